package sample

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxLineBytes bounds one line of a capture file.
const MaxLineBytes = 16 << 20

// ReadFile reads a capture of records, one a line, and passes each to fn: lines as
// `kcat -C -J` writes them (an object with topic, partition, offset, key, payload;
// key_schema_id and value_schema_id when kcat decoded with -s avro; key_error and
// payload_error when it could not), or as `kafka-console-consumer` prints them with
// --property print.partition=true, print.offset=true, print.key=true (and
// print.timestamp, print.headers; tab-separated, the value last), whose lines do not
// name their topic: topic names it. Blank lines are skipped. A line that is neither
// is an error naming the file and line.
func ReadFile(r io.Reader, name, topic string, fn func(Record)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var rec Record
		var err error
		if text[0] == '{' && bytes.Contains(text[:min(len(text), 200)], []byte(`"topic"`)) {
			rec, err = kcatLine(text)
		} else {
			rec, err = consoleLine(text, topic)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		fn(rec)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: a line is over %d bytes; capture fewer or smaller records", name, line+1, MaxLineBytes)
		}
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

// kcatLine reads one line of kcat -J.
func kcatLine(text []byte) (Record, error) {
	var l struct {
		Topic         string          `json:"topic"`
		Partition     *int32          `json:"partition"`
		Offset        *int64          `json:"offset"`
		Key           json.RawMessage `json:"key"`
		Payload       json.RawMessage `json:"payload"`
		KeySchemaID   int             `json:"key_schema_id"`
		ValueSchemaID int             `json:"value_schema_id"`
		KeyError      string          `json:"key_error"`
		PayloadError  string          `json:"payload_error"`
	}
	if err := json.Unmarshal(sanitizeUTF8(text), &l); err != nil {
		return Record{}, fmt.Errorf("not a kcat -J record: %w", err)
	}
	if l.Topic == "" || l.Partition == nil || l.Offset == nil {
		return Record{}, errors.New(`a kcat -J record needs "topic", "partition" and "offset"; capture with kcat -C -J`)
	}
	rec := Record{Topic: l.Topic, Partition: *l.Partition, Offset: *l.Offset, KeyID: l.KeySchemaID, ValueID: l.ValueSchemaID,
		KeyError: l.KeyError, ValueError: l.PayloadError}
	var err error
	if rec.Key, err = rawBytes(text, "key", l.Key, l.KeySchemaID > 0); err != nil {
		return Record{}, err
	}
	if rec.Value, err = rawBytes(text, "payload", l.Payload, l.ValueSchemaID > 0); err != nil {
		return Record{}, err
	}
	if l.KeyError != "" {
		rec.Key = []byte{}
	}
	if l.PayloadError != "" {
		rec.Value = []byte{}
	}
	return rec, nil
}

// sanitizeUTF8 replaces bytes that are not UTF-8 so that encoding/json reads the line's
// structure; the raw bytes of key and payload are taken from the line itself.
func sanitizeUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

// rawBytes returns a kcat field's bytes: null is nil, a string its bytes as kcat wrote
// them (yajl escapes control bytes and leaves other bytes raw, so the raw line is
// read again when it is not UTF-8), decoded JSON (with a schema id) its text.
func rawBytes(line []byte, field string, v json.RawMessage, decoded bool) ([]byte, error) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	if decoded || v[0] != '"' {
		return []byte(v), nil
	}
	if utf8.Valid(line) {
		return unquote(v)
	}
	// Find the field's string in the raw line: its key, then the string after it.
	at := bytes.Index(line, []byte(`"`+field+`":`))
	if at < 0 {
		return nil, fmt.Errorf("the %s of the record could not be read back", field)
	}
	rest := bytes.TrimLeft(line[at+len(field)+3:], " ")
	end := stringEnd(rest)
	if end < 0 {
		return nil, fmt.Errorf("the %s string of the record does not end", field)
	}
	return unquote(rest[:end+1])
}

// stringEnd returns the index of the quote that closes the JSON string at s[0].
func stringEnd(s []byte) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote decodes a JSON string literal into its bytes, keeping bytes that are not
// UTF-8 as they are.
func unquote(q []byte) ([]byte, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return nil, errors.New("not a JSON string")
	}
	s := q[1 : len(q)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			return nil, errors.New("a JSON string ends in a backslash")
		}
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+4 >= len(s) {
				return nil, errors.New("a \\u escape is cut short")
			}
			r, err := strconv.ParseUint(string(s[i+1:i+5]), 16, 32)
			if err != nil {
				return nil, errors.New("a \\u escape is not four hex digits")
			}
			i += 4
			ru := rune(r)
			if utf16.IsSurrogate(ru) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, err := strconv.ParseUint(string(s[i+3:i+7]), 16, 32); err == nil {
					ru = utf16.DecodeRune(ru, rune(r2))
					i += 6
				}
			}
			if ru < 0x80 {
				out = append(out, byte(ru))
			} else {
				out = utf8.AppendRune(out, ru)
			}
		default:
			return nil, fmt.Errorf("a JSON string has the escape \\%c", s[i])
		}
	}
	return out, nil
}

// consoleLine reads one line of kafka-console-consumer's default formatter.
func consoleLine(text []byte, topic string) (Record, error) {
	if topic == "" {
		return Record{}, errors.New("a kafka-console-consumer line does not name its topic: give it with --topic")
	}
	rec := Record{Topic: topic, Partition: -1, Offset: -1}
	fields := strings.Split(string(text), "\t")
	i := 0
	for ; i < len(fields)-1; i++ {
		f := fields[i]
		switch {
		case strings.HasPrefix(f, "CreateTime:"), strings.HasPrefix(f, "LogAppendTime:"), f == "NO_TIMESTAMP", f == "NO_HEADERS":
		case strings.HasPrefix(f, "Partition:"):
			p, err := strconv.ParseInt(f[len("Partition:"):], 10, 32)
			if err != nil {
				return Record{}, fmt.Errorf("%q is not a partition", f)
			}
			rec.Partition = int32(p)
		case strings.HasPrefix(f, "Offset:"):
			o, err := strconv.ParseInt(f[len("Offset:"):], 10, 64)
			if err != nil {
				return Record{}, fmt.Errorf("%q is not an offset", f)
			}
			rec.Offset = o
		default:
			goto rest
		}
	}
rest:
	if rec.Partition < 0 || rec.Offset < 0 {
		return Record{}, errors.New("a kafka-console-consumer line needs its partition and offset: capture with --property print.partition=true --property print.offset=true")
	}
	switch left := fields[i:]; len(left) {
	case 1:
		rec.Value = []byte(left[0])
	default:
		// The key, then the value: a value holds no tab outside its strings (JSON
		// escapes them), the key is printed before the first.
		rec.Key = []byte(left[0])
		rec.Value = []byte(strings.Join(left[1:], "\t"))
		if left[0] == "null" {
			rec.Key = nil
		}
	}
	if string(rec.Value) == "null" {
		rec.Value = nil
	}
	return rec, nil
}
