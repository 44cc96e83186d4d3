package jsonschema

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxSchemaBytes is the largest schema text Parse accepts (8 MiB).
const MaxSchemaBytes = 8 << 20

// MaxNestingDepth is the deepest nesting of JSON arrays and objects Parse accepts.
// Deeper text is refused before anything recurses over it.
const MaxNestingDepth = 256

// jkind is the kind of a JSON value.
type jkind byte

const (
	jObject jkind = iota + 1
	jArray
	jString
	jNumber
	jBool
	jNull
)

// jnode is one JSON value with the byte offset where it starts. Object members keep
// their order and the offset of their key, so a JSON pointer can name a key's position.
type jnode struct {
	kind    jkind
	off     int
	str     string // string value, or the number's text
	members []jmember
	elems   []*jnode
}

type jmember struct {
	key    string
	keyOff int
	val    *jnode
}

// get returns the value of an object member, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for i := range n.members {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// syntaxError is a JSON text error at a byte offset.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// jparser is a small JSON parser that keeps offsets and refuses deep nesting.
type jparser struct {
	data  []byte
	pos   int
	depth int
}

// parseJSON parses one JSON document; trailing text other than white space is an error.
func parseJSON(data []byte) (*jnode, error) {
	p := &jparser{data: data}
	p.skipSpace()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, &syntaxError{p.pos, fmt.Sprintf("unexpected %s after the schema; a schema file holds exactly one JSON value", p.describe())}
	}
	return n, nil
}

func (p *jparser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) describe() string {
	if p.pos >= len(p.data) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return strconv.QuoteRune(r)
}

func (p *jparser) errf(format string, args ...any) error {
	return &syntaxError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *jparser) value() (*jnode, error) {
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of file: expected a JSON value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		off := p.pos
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, off: off, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", jBool)
	case c == 'f':
		return p.literal("false", jBool)
	case c == 'n':
		return p.literal("null", jNull)
	default:
		return nil, p.errf("unexpected %s: expected a JSON value (object, array, string, number, true, false or null)", p.describe())
	}
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > MaxNestingDepth {
		return p.errf("schema nests deeper than %d levels; flatten it (define the nested part once under $defs and refer to it with $ref)", MaxNestingDepth)
	}
	return nil
}

func (p *jparser) object() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	n := &jnode{kind: jObject, off: p.pos}
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return n, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("unexpected %s: expected a quoted member name", p.describe())
		}
		keyOff := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		for _, m := range n.members {
			if m.key == key {
				return nil, &syntaxError{keyOff, fmt.Sprintf("duplicate member %q in one object; keep only one", key)}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("unexpected %s: expected ':' after member name %q", p.describe(), key)
		}
		p.pos++
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: key, keyOff: keyOff, val: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of file: expected ',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return n, nil
		default:
			return nil, p.errf("unexpected %s: expected ',' or '}'", p.describe())
		}
	}
}

func (p *jparser) array() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	n := &jnode{kind: jArray, off: p.pos}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return n, nil
	}
	for {
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of file: expected ',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return n, nil
		default:
			return nil, p.errf("unexpected %s: expected ',' or ']'", p.describe())
		}
	}
}

func (p *jparser) literal(word string, k jkind) (*jnode, error) {
	if !strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
		return nil, p.errf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
	}
	n := &jnode{kind: k, off: p.pos, str: word}
	p.pos += len(word)
	return n, nil
}

func (p *jparser) number() (*jnode, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		s := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - s
	}
	if digits() == 0 {
		return nil, p.errf("unexpected %s: expected a digit", p.describe())
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errf("unexpected %s: expected a digit after '.'", p.describe())
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errf("unexpected %s: expected a digit in the exponent", p.describe())
		}
	}
	return &jnode{kind: jNumber, off: start, str: string(p.data[start:p.pos])}, nil
}

// str reads a quoted string at p.pos and returns its decoded value.
func (p *jparser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			if !utf8.ValidString(s) {
				return "", &syntaxError{start, "string is not valid UTF-8"}
			}
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errf("control character in string: write it as an escape such as \\n")
		}
		p.pos++
	}
	var b strings.Builder
	b.Write(p.data[start:p.pos])
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			s := b.String()
			if !utf8.ValidString(s) {
				return "", &syntaxError{start, "string is not valid UTF-8"}
			}
			return s, nil
		case c < 0x20:
			return "", p.errf("control character in string: write it as an escape such as \\n")
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.errf("unexpected end of file in string escape")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errf("invalid \\u escape: expected four hex digits")
				}
				if utf16.IsSurrogate(r) && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					if r2, ok := p.hex4(); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r = d
						} else {
							p.pos = save
						}
					} else {
						p.pos = save
					}
				}
				b.WriteRune(r)
			default:
				p.pos -= 2
				return "", p.errf("invalid escape \\%c in string", e)
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", &syntaxError{start - 1, "string is not closed: add the closing double quote"}
}

func (p *jparser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

// lineIndex maps byte offsets to 1-based line and column (columns count bytes).
type lineIndex []int

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) pos(off int) (line, col int) {
	i := sort.Search(len(l), func(i int) bool { return l[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, off - l[i] + 1
}

// escapePointerToken escapes one JSON pointer reference token (RFC 6901).
func escapePointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// resolvePointer finds the node a JSON pointer names and the offset that best shows
// it: the member's key for an object member, the value's start otherwise. When the
// pointer goes past what exists, the deepest existing prefix is used; ok is false then.
func resolvePointer(root *jnode, ptr string) (n *jnode, off int, ok bool) {
	if root == nil {
		return nil, 0, false
	}
	n, off = root, root.off
	if ptr == "" || ptr == "/" {
		return n, off, true
	}
	for tok := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.kind {
		case jObject:
			found := false
			for _, m := range n.members {
				if m.key == tok {
					n, off, found = m.val, m.keyOff, true
					break
				}
			}
			if !found {
				return n, off, false
			}
		case jArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.elems) {
				return n, off, false
			}
			n = n.elems[i]
			off = n.off
		default:
			return n, off, false
		}
	}
	return n, off, true
}
