// Package jsontext is a small JSON parser that keeps the byte offset of every value
// and object key, so a checker can report a schema problem at file:line:col. It is
// shared by the Avro and JSON Schema engines: Parse refuses nesting deeper than
// MaxNestingDepth (with advice each format gives through Options), duplicate object
// members and trailing text; ResolvePointer turns a JSON pointer (RFC 6901) into the
// offset that best shows it, and LineIndex turns an offset into a line and column.
package jsontext

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxNestingDepth is the deepest nesting of JSON arrays and objects Parse accepts.
// Deeper text is refused before anything recurses over it.
const MaxNestingDepth = 256

// Kind is the kind of a JSON value.
type Kind byte

// The kinds of JSON values.
const (
	Object Kind = iota + 1 // an object: Node.Members
	Array                  // an array: Node.Elems
	String                 // a string: Node.Str holds the decoded value
	Number                 // a number: Node.Str holds its text as written
	Bool                   // true or false: Node.Str holds the word
	Null                   // null
)

// Node is one JSON value with the byte offset where it starts. Object members keep
// their order and the offset of their key, so a JSON pointer can name a key's position.
type Node struct {
	Kind    Kind
	Off     int      // byte offset of the value's first character
	Str     string   // a string's decoded value, a number's text, or true/false/null
	Members []Member // an object's members in the order written
	Elems   []*Node  // an array's elements
}

// Member is one member of a JSON object.
type Member struct {
	Key    string // the decoded member name
	KeyOff int    // byte offset of the name's opening quote
	Val    *Node
}

// Get returns the value of an object member, or nil when n is not an object or has
// no member named key.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := range n.Members {
		if n.Members[i].Key == key {
			return n.Members[i].Val
		}
	}
	return nil
}

// SyntaxError is a JSON text error at a byte offset. Msg is a full sentence (without
// the position) that says what is wrong and, where it helps, what to write instead.
type SyntaxError struct {
	Off int
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Options tune Parse for one schema format.
type Options struct {
	// DepthHint is the advice that follows "schema nests deeper than N levels; " when
	// the text nests past MaxNestingDepth, such as how the format lets the author
	// define the nested part once. Empty means "flatten it".
	DepthHint string
}

// jparser is a small JSON parser that keeps offsets and refuses deep nesting.
type jparser struct {
	hint  string
	data  []byte
	pos   int
	depth int
}

// Parse parses one JSON document; trailing text other than white space is an error.
// Every error it returns is a *SyntaxError.
func Parse(data []byte, opts Options) (*Node, error) {
	hint := opts.DepthHint
	if hint == "" {
		hint = "flatten it"
	}
	p := &jparser{data: data, hint: hint}
	p.skipSpace()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, &SyntaxError{p.pos, fmt.Sprintf("unexpected %s after the schema; a schema file holds exactly one JSON value", p.describe())}
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
	return &SyntaxError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *jparser) value() (*Node, error) {
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
		return &Node{Kind: String, Off: off, Str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", Bool)
	case c == 'f':
		return p.literal("false", Bool)
	case c == 'n':
		return p.literal("null", Null)
	default:
		return nil, p.errf("unexpected %s: expected a JSON value (object, array, string, number, true, false or null)", p.describe())
	}
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > MaxNestingDepth {
		return p.errf("schema nests deeper than %d levels; %s", MaxNestingDepth, p.hint)
	}
	return nil
}

func (p *jparser) object() (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	n := &Node{Kind: Object, Off: p.pos}
	p.pos++ // {
	p.skipSpace()
	if p.closes('}') {
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
		for _, m := range n.Members {
			if m.Key == key {
				return nil, &SyntaxError{keyOff, fmt.Sprintf("duplicate member %q in one object; keep only one", key)}
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
		n.Members = append(n.Members, Member{Key: key, KeyOff: keyOff, Val: v})
		done, err := p.after('}')
		if err != nil {
			return nil, err
		}
		if done {
			return n, nil
		}
	}
}

func (p *jparser) array() (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	n := &Node{Kind: Array, Off: p.pos}
	p.pos++ // [
	p.skipSpace()
	if p.closes(']') {
		return n, nil
	}
	for {
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.Elems = append(n.Elems, v)
		done, err := p.after(']')
		if err != nil {
			return nil, err
		}
		if done {
			return n, nil
		}
	}
}

// closes reports whether the next byte is close, the end of the object or array
// being read, and if so consumes it and leaves the container.
func (p *jparser) closes(close byte) bool {
	if p.pos < len(p.data) && p.data[p.pos] == close {
		p.pos++
		p.depth--
		return true
	}
	return false
}

// after reads what follows a member or an element: ',' when another comes, or
// close, which ends the container (done).
func (p *jparser) after(close byte) (done bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, p.errf("unexpected end of file: expected ',' or '%c'", close)
	}
	if p.data[p.pos] == ',' {
		p.pos++
		return false, nil
	}
	if p.closes(close) {
		return true, nil
	}
	return false, p.errf("unexpected %s: expected ',' or '%c'", p.describe(), close)
}

func (p *jparser) literal(word string, k Kind) (*Node, error) {
	if !strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
		return nil, p.errf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
	}
	n := &Node{Kind: k, Off: p.pos, Str: word}
	p.pos += len(word)
	return n, nil
}

func (p *jparser) number() (*Node, error) {
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
	return &Node{Kind: Number, Off: start, Str: string(p.data[start:p.pos])}, nil
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
				return "", &SyntaxError{start, "string is not valid UTF-8"}
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
				return "", &SyntaxError{start, "string is not valid UTF-8"}
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
	return "", &SyntaxError{start - 1, "string is not closed: add the closing double quote"}
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

// LineIndex maps byte offsets to 1-based line and column (columns count bytes).
type LineIndex []int

// NewLineIndex indexes the line starts of data.
func NewLineIndex(data []byte) LineIndex {
	idx := LineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// Pos returns the 1-based line and column (in bytes) of byte offset off.
func (l LineIndex) Pos(off int) (line, col int) {
	i := sort.Search(len(l), func(i int) bool { return l[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, off - l[i] + 1
}

// EscapePointerToken escapes one JSON pointer reference token (RFC 6901).
func EscapePointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// ResolvePointer finds the node a JSON pointer names and the offset that best shows
// it: the member's key for an object member, the value's start otherwise. When the
// pointer goes past what exists, the deepest existing prefix is used; ok is false then.
func ResolvePointer(root *Node, ptr string) (n *Node, off int, ok bool) {
	if root == nil {
		return nil, 0, false
	}
	n, off = root, root.Off
	if ptr == "" || ptr == "/" {
		return n, off, true
	}
	for tok := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.Kind {
		case Object:
			found := false
			for _, m := range n.Members {
				if m.Key == tok {
					n, off, found = m.Val, m.KeyOff, true
					break
				}
			}
			if !found {
				return n, off, false
			}
		case Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Elems) {
				return n, off, false
			}
			n = n.Elems[i]
			off = n.Off
		default:
			return n, off, false
		}
	}
	return n, off, true
}
