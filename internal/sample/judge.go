package sample

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// DefaultMaxBytes is the budget of one message (key or value) when Options leave it
// zero: a larger one is a too-large problem and is not decoded.
const DefaultMaxBytes = 1 << 20

// maxProblems bounds the problems one message reports (a hostile message with a
// million undeclared properties is still judged in bounded time and space).
const maxProblems = 32

// Record is one Kafka record as read from a broker or a capture.
type Record struct {
	Topic     string
	Partition int32
	Offset    int64
	// Key and Value are the record's bytes; nil for a null key or value (a null
	// value is a tombstone and conforms).
	Key, Value []byte
	// ValueID and KeyID are set (> 0) when the capture already decoded the bytes with
	// that schema id (kcat -s value=avro): Value or Key is then the decoded JSON.
	ValueID, KeyID int
	// ValueError and KeyError are a capture's own decoding failure (kcat's
	// payload_error, key_error).
	ValueError, KeyError string
}

// Options bound the judging.
type Options struct {
	// MaxBytes is the budget of a key or value in bytes (DefaultMaxBytes when 0).
	MaxBytes int
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// Judge judges the records of one topic against the contract of its subjects: the
// value's subject and, when the contract declares one, the key's. It is safe for
// concurrent use; each schema version is parsed on first use.
type Judge struct {
	Topic string
	// Value and Key are the subjects judged; Key is nil when the contract declares no
	// key schema for the topic.
	Value, Key *Side
	max        int
}

// NewJudge returns the judge of a topic's records.
func NewJudge(topic string, value, key *Side, o Options) *Judge {
	o = o.withDefaults()
	return &Judge{Topic: topic, Value: value, Key: key, max: o.MaxBytes}
}

// Side is one subject of a topic (its value or its key schema) as the judge sees it:
// the contract's subject, the versions of its history by schema id, and its rules.
type Side struct {
	Subject *contract.Subject
	// current is the contract's schema now (unframed JSON is judged against it).
	current *version
	byID    map[int]*version
	// elsewhere names, by schema id, the subject versions of other subjects (for the
	// message of an id that belongs to another subject).
	elsewhere map[int]string
	rules     *ruleSet
}

// Version is one schema version of a subject's history.
type Version struct {
	ID, Version int
	// Load reads and parses the version's schema (called once, on first use): the
	// parsed schema and its text.
	Load func() (checker.Schema, []byte, error)
}

// NewSide returns the side of subject s: currentID is the id of its schema now (0
// when the history does not know it), history every version the contract's history
// had, elsewhere the other subjects' ids ("version 2 of orders.x-value"), resolve
// reads the tree's files a schema refers to (contract.Tree.ReadImport).
func NewSide(s *contract.Subject, currentID int, history []Version, elsewhere map[int]string, resolve func(string) ([]byte, error), o Options) *Side {
	o = o.withDefaults()
	sd := &Side{Subject: s, byID: map[int]*version{}, elsewhere: elsewhere}
	for _, v := range history {
		sd.byID[v.ID] = &version{id: v.ID, number: v.Version, load: v.Load, resolve: resolve, max: o.MaxBytes}
	}
	cur := sd.byID[currentID]
	if cur == nil {
		cur = &version{id: currentID, resolve: resolve, max: o.MaxBytes}
		if currentID > 0 {
			sd.byID[currentID] = cur
		}
	}
	// The contract's schema now is the tree's parse, with its imports as they are.
	cur.load = func() (checker.Schema, []byte, error) {
		sch, err := s.Schema()
		return sch, s.SchemaText, err
	}
	sd.current = cur
	sd.rules = compileRules(s)
	return sd
}

// version is one schema of a subject, parsed on first use.
type version struct {
	id, number int
	load       func() (checker.Schema, []byte, error)
	resolve    func(string) ([]byte, error)
	max        int

	once    sync.Once
	decoder *decoder
	err     error
}

func (v *version) get() (*decoder, error) {
	v.once.Do(func() {
		if v.load == nil {
			v.err = fmt.Errorf("no schema")
			return
		}
		sch, text, err := v.load()
		if err != nil {
			v.err = err
			return
		}
		v.decoder, v.err = newDecoder(sch, text, v.resolve, v.max)
	})
	return v.decoder, v.err
}

// what names the version in messages.
func (v *version) what(subject string) string {
	if v.number > 0 {
		return fmt.Sprintf("schema id %d (version %d of %s)", v.id, v.number, subject)
	}
	return "the schema of " + subject
}

// Judge returns the problems of one record, none when it conforms. It never panics:
// a failure of a decoder on a hostile message is a decode-error of that message.
func (j *Judge) Judge(rec Record) (probs []Problem) {
	defer func() {
		if v := recover(); v != nil {
			probs = append(probs, Problem{Kind: DecodeError, Detail: fmt.Sprintf("the message could not be judged: the decoder failed (%v).", v)})
		}
	}()
	if j.Value != nil && rec.Value != nil {
		probs = j.Value.judge(rec.Value, rec.ValueID, rec.ValueError, false, j.max)
	}
	if j.Key != nil {
		if rec.Key == nil {
			probs = append(probs, Problem{Kind: MissingField, Key: true,
				Detail: fmt.Sprintf("the record has no key, but the contract declares the key schema %s.", j.Key.Subject.Subject)})
		} else {
			probs = append(probs, j.Key.judge(rec.Key, rec.KeyID, rec.KeyError, true, j.max)...)
		}
	}
	return probs
}

// judge judges one key or value.
func (sd *Side) judge(b []byte, decodedID int, captureErr string, key bool, limit int) []Problem {
	p := &problems{key: key}
	switch {
	case len(b) > limit:
		p.add(TooLarge, "", "the message is %d bytes, over the budget of %d bytes; it was not decoded.", len(b), limit)
	case captureErr != "":
		p.add(DecodeError, "", "the capture could not decode it: %s.", captureErr)
	case decodedID > 0:
		if v := sd.version(decodedID, p); v != nil {
			sd.judgeJSON(v, b, p)
		}
	case len(b) >= 5 && b[0] == 0:
		id := int(binary.BigEndian.Uint32(b[1:5]))
		if v := sd.version(id, p); v != nil {
			sd.judgeFramed(v, b[5:], p)
		}
	default:
		if !looksJSON(b) {
			p.add(DecodeError, "", "the message is neither Confluent-framed (magic byte 0 and a schema id) nor JSON (its first byte is 0x%02x).", b[0])
			break
		}
		sd.judgeJSON(sd.current, b, p)
	}
	return p.list
}

// version returns the subject's version with that id, or reports the id.
func (sd *Side) version(id int, p *problems) *version {
	if v := sd.byID[id]; v != nil {
		return v
	}
	if other, ok := sd.elsewhere[id]; ok {
		p.addID(UnknownSchemaID, id, "the message carries schema id %d, which is %s, not a version of %s.", id, other, sd.Subject.Subject)
		return nil
	}
	p.addID(UnknownSchemaID, id, "the message carries schema id %d, which no version of %s in the contract's history has.", id, sd.Subject.Subject)
	return nil
}

// judgeFramed decodes a framed payload with its version's schema.
func (sd *Side) judgeFramed(v *version, payload []byte, p *problems) {
	d, err := v.get()
	if err != nil {
		p.add(DecodeError, "", "%s could not be read to decode the message: %v.", v.what(sd.Subject.Subject), err)
		return
	}
	val, err := d.decodeFramed(payload, p, len(sd.rules.rules) > 0)
	if err != nil {
		p.add(DecodeError, "", "the payload does not decode with %s: %s.", v.what(sd.Subject.Subject), decodeCause(err))
		return
	}
	sd.rules.check(val, p)
}

// judgeJSON judges a JSON payload field by field against a version's schema (or its
// JSON mapping).
func (sd *Side) judgeJSON(v *version, b []byte, p *problems) {
	d, err := v.get()
	if err != nil {
		p.add(DecodeError, "", "%s could not be read to judge the message: %v.", v.what(sd.Subject.Subject), err)
		return
	}
	doc, err := parseJSON(b)
	if err != nil {
		p.add(DecodeError, "", "the message is not valid JSON: %v.", err)
		return
	}
	d.judgeJSON(doc, p)
	if len(sd.rules.rules) > 0 {
		sd.rules.check(celValue(doc), p)
	}
}

// looksJSON reports whether b starts (after white space) like a JSON object or array.
func looksJSON(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// problems collects one message's problems, at most maxProblems, once per kind and
// field.
type problems struct {
	key  bool
	list []Problem
}

func (p *problems) add(k Kind, field, format string, args ...any) {
	p.put(Problem{Kind: k, Key: p.key, Field: field, Detail: fmt.Sprintf(format, args...)})
}

func (p *problems) addID(k Kind, id int, format string, args ...any) {
	p.put(Problem{Kind: k, Key: p.key, ID: id, Detail: fmt.Sprintf(format, args...)})
}

func (p *problems) put(pr Problem) {
	if len(p.list) >= maxProblems {
		return
	}
	if slices.ContainsFunc(p.list, func(q Problem) bool { return q.Kind == pr.Kind && q.Field == pr.Field }) {
		return
	}
	p.list = append(p.list, pr)
}

// about reports whether a problem is already reported at one of fields or inside it.
func (p *problems) about(fields []string) bool {
	for _, q := range p.list {
		for _, f := range fields {
			if q.Field == f || strings.HasPrefix(q.Field, f+".") || strings.HasPrefix(f, q.Field+".") {
				return true
			}
		}
	}
	return false
}

// full reports whether no more problems are kept (walks may stop).
func (p *problems) full() bool { return len(p.list) >= maxProblems }

// join appends a field name to a dotted path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// suggest returns `; did you mean "x"?` for an undeclared field: a declared field of
// the same name elsewhere in the schema (a moved field) or the closest declared
// sibling (a misspelt or re-cased one), or "".
func suggest(field string, siblings []string, paths []string) string {
	parent, name := "", field
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		parent, name = field[:i], field[i+1:]
	}
	if c, ok := contract.Closest(name, siblings); ok {
		return fmt.Sprintf("; did you mean %q?", join(parent, c))
	}
	for _, p := range paths {
		if p == name || strings.HasSuffix(p, "."+name) {
			return fmt.Sprintf("; the contract has %q: was it moved?", p)
		}
	}
	return ""
}

// decodeCause shortens a decoder's error to its cause: hamba/avro prefixes the Go
// types it was decoding into ("map[string]interface {}: ...: avro: ReadSTRING: ...").
func decodeCause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "avro: "); i > 0 {
		msg = msg[i:]
	}
	return strings.TrimSuffix(msg, ".")
}
