package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	goccy "github.com/goccy/go-yaml"
	goccyparser "github.com/goccy/go-yaml/parser"
	"go.yaml.in/yaml/v3"

	"github.com/contractbot/contractbot/checker/located"
)

// file collects the diagnostics of one YAML file while it is decoded.
type file struct {
	path  string
	diags *Diagnostics
	data  []byte // the text parsed, for hints that quote a line
}

func (f *file) report(p Pos, code, format string, args ...any) {
	*f.diags = append(*f.diags, Diagnostic{
		Span:     located.Span{File: f.path, Line: max(p.Line, 1), Column: max(p.Column, 1)},
		Severity: Error, Code: code, Message: fmt.Sprintf(format, args...),
	})
}

// reportField is report for an unknown-field error about field of the subject.
func (f *file) reportField(p Pos, field, code, format string, args ...any) {
	f.report(p, code, format, args...)
	(*f.diags)[len(*f.diags)-1].Field = field
}

func posOf(n *yaml.Node) Pos {
	if n == nil {
		return Pos{1, 1}
	}
	return Pos{Line: n.Line, Column: n.Column}
}

// reYAMLLine finds the line in a go-yaml error message.
var reYAMLLine = regexp.MustCompile(`line (\d+):\s*(.*)`)

// parse reads one YAML document and returns its top-level mapping, or nil after
// reporting why there is none. Files are parsed with go.yaml.in/yaml/v3, which keeps
// the line and column of every node; when a file does not parse, goccy/go-yaml parses
// it again to find the column of the offending token, which yaml/v3 does not report.
func (f *file) parse(data []byte) *object {
	f.data = data
	if p, deep := tooDeepFlow(data); deep {
		f.reportTooDeep(p) // before any parser: the error-locating one is costly this deep
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			f.report(Pos{1, 1}, CodeMissingKey, "the file is empty; write the keys this file needs (see docs/contract-format.md).")
			return nil
		}
		f.syntaxError(data, err)
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		f.report(posOf(&next), CodeYAMLSyntax, "the file holds more than one YAML document; keep one (remove the `---` separator).")
		return nil
	} else if !errors.Is(err, io.EOF) {
		f.syntaxError(data, err)
		return nil
	}
	if n, deep := tooDeepNode(&doc, 0); deep {
		f.reportTooDeep(posOf(n))
		return nil
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		f.report(Pos{1, 1}, CodeMissingKey, "the file is empty; write the keys this file needs (see docs/contract-format.md).")
		return nil
	}
	return f.object(doc.Content[0], "the file")
}

// syntaxError reports a file that does not parse, with the best position known.
func (f *file) syntaxError(data []byte, err error) {
	// yaml/v3 refuses control characters and invalid UTF-8 before it parses, without a
	// position: find the character, so the report points at it, not at 1:1.
	if !reYAMLLine.MatchString(err.Error()) {
		if p, r, ok := firstUnprintable(data); ok {
			what := fmt.Sprintf("the character U+%04X", r)
			if r == utf8.RuneError {
				what = "a byte that is not UTF-8"
			}
			f.report(p, CodeYAMLSyntax, "YAML syntax error: %s is not allowed in YAML; remove it (contract files are UTF-8 text).", what)
			return
		}
	}
	if _, gerr := goccyparser.ParseBytes(data, 0); gerr != nil {
		var se *goccy.SyntaxError
		if errors.As(gerr, &se) && se.Token != nil {
			line := se.Token.Position.Line
			f.report(Pos{line, se.Token.Position.Column}, CodeYAMLSyntax,
				"YAML syntax error: %s.%s", se.Message, orCheckQuoting(f.quoteHintAt(line)))
			return
		}
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	p, hint := Pos{1, 1}, ""
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
		hint = f.quoteHintAt(p.Line)
	} else if hp, h := f.firstQuoteHint(); h != "" {
		p, hint = hp, h // no line from YAML ("unknown anchor"): the first line that explains it
	}
	f.report(p, CodeYAMLSyntax, "YAML syntax error: %s.%s", msg, orCheckQuoting(hint))
}

// orCheckQuoting is hint, or the general advice when there is none.
func orCheckQuoting(hint string) string {
	if hint != "" {
		return hint
	}
	return " Check the indentation and quoting on this line."
}

// object is a YAML mapping whose keys have been checked.
type object struct {
	f    *file
	pos  Pos
	vals map[string]*yaml.Node
	keys map[string]Pos
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// unwrap reports aliases, which the format does not allow (no expansion bombs, and
// every value is where it is read); nil means reported.
func (f *file) unwrap(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		f.report(posOf(n), CodeAlias, "YAML aliases (*name) are not allowed in contract files; write the value out in full.%s", f.quoteHintAt(n.Line))
		return nil
	}
	if n != nil && n.Anchor != "" {
		f.report(posOf(n), CodeAlias, "YAML anchors (&%s) are not allowed in contract files; remove it.%s", n.Anchor, f.quoteHintAt(n.Line))
		return nil
	}
	return n
}

func kindName(n *yaml.Node) string {
	if isNull(n) {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!str", "!!timestamp", "!!binary":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "true or false"
	}
	return "a value"
}

// object checks that n is a mapping and indexes its keys. what names it in messages.
func (f *file) object(n *yaml.Node, what string) *object {
	n = f.unwrap(n)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		f.report(posOf(n), CodeWrongType, "%s must be a mapping of keys to values, found %s.", what, kindName(n))
		return nil
	}
	o := &object{f: f, pos: posOf(n), vals: map[string]*yaml.Node{}, keys: map[string]Pos{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := f.unwrap(n.Content[i])
		if key == nil {
			continue
		}
		if key.Kind != yaml.ScalarNode {
			f.report(posOf(key), CodeWrongType, "a key in %s must be a plain name, found %s.", what, kindName(key))
			continue
		}
		name := key.Value
		if _, dup := o.vals[name]; dup {
			f.report(posOf(key), CodeYAMLSyntax, "key %q appears twice in %s; keep one.", name, what)
			continue
		}
		o.vals[name] = n.Content[i+1]
		o.keys[name] = posOf(key)
	}
	return o
}

// names returns the keys in file order.
func (o *object) names() []string {
	out := make([]string, 0, len(o.keys))
	for k := range o.keys {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := o.keys[out[i]], o.keys[out[j]]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}

// expect reports unknown keys (with a suggestion) and missing required keys.
func (o *object) expect(what string, required, optional []string) {
	if o == nil {
		return
	}
	all := append(append([]string{}, required...), optional...)
	known := map[string]bool{}
	for _, k := range all {
		known[k] = true
	}
	misspelt := map[string]bool{} // required keys written with a typo: one error, not two
	for _, k := range o.names() {
		if !known[k] {
			hint := didYouMean(k, all)
			if hint == "" {
				hint = fmt.Sprintf(" Allowed keys: %s.", strings.Join(all, ", "))
			}
			for _, r := range required {
				if _, ok := o.vals[r]; !ok && hint == didYouMean(k, []string{r}) {
					misspelt[r] = true
				}
			}
			o.f.report(o.keys[k], CodeUnknownKey, "unknown key %q in %s.%s", k, what, hint)
		}
	}
	for _, k := range required {
		if _, ok := o.vals[k]; !ok && !misspelt[k] {
			o.f.report(o.pos, CodeMissingKey, "%s has no %q key; add `%s:` (it is required).", what, k, k)
		}
	}
}

func (o *object) has(key string) bool {
	if o == nil {
		return false
	}
	_, ok := o.vals[key]
	return ok
}

// valuePos is where the value of key starts (the key's position when it has none).
func (o *object) valuePos(key string) Pos {
	if n, ok := o.vals[key]; ok && !isNull(n) {
		return posOf(n)
	}
	return o.keys[key]
}

// scalar returns the text of a scalar node and whether it is a string-like scalar
// (a plain date such as 2026-12-08 counts: calendar times are read as text).
func scalar(n *yaml.Node) (string, bool) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!str" || n.Tag == "!!timestamp") {
		return n.Value, true
	}
	return "", false
}

// str returns a string value; ok is false when the key is absent or not a string.
func (o *object) str(key string) (string, bool) {
	if !o.has(key) {
		return "", false
	}
	n := o.f.unwrap(o.vals[key])
	if n == nil {
		return "", false
	}
	s, ok := scalar(n)
	if !ok {
		hint := o.f.quoteHintAt(o.keys[key].Line)
		if hint == "" && n.Kind == yaml.ScalarNode && !isNull(n) {
			hint = fmt.Sprintf(" Quote it: %s: %q.", key, n.Value)
		}
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a string, found %s.%s", key, kindName(n), hint)
		return "", false
	}
	return s, true
}

// integer returns an int value.
func (o *object) integer(key string) (int, bool) {
	if !o.has(key) {
		return 0, false
	}
	n := o.f.unwrap(o.vals[key])
	if n == nil {
		return 0, false
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a whole number, found %s.", key, kindName(n))
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a whole number, found %q.", key, n.Value)
		return 0, false
	}
	return v, true
}

// boolean returns a bool value.
func (o *object) boolean(key string) (bool, bool) {
	if !o.has(key) {
		return false, false
	}
	n := o.f.unwrap(o.vals[key])
	if n == nil {
		return false, false
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be true or false, found %s.", key, kindName(n))
		return false, false
	}
	v, err := strconv.ParseBool(strings.ToLower(n.Value))
	if err != nil {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be true or false, found %q.", key, n.Value)
		return false, false
	}
	return v, true
}

// item is one string of a list, with its position.
type item struct {
	val string
	pos Pos
}

// strList returns a list of strings. A single string is not accepted: lists are lists.
func (o *object) strList(key string) ([]item, bool) {
	if !o.has(key) {
		return nil, false
	}
	n := o.f.unwrap(o.vals[key])
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.SequenceNode {
		hint := ""
		if s, isStr := scalar(n); isStr {
			hint = fmt.Sprintf(" Write it as a list: %s: [%s].", key, s)
		}
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a list of strings, found %s.%s", key, kindName(n), hint)
		return nil, false
	}
	out := make([]item, 0, len(n.Content))
	good := true
	for _, v := range n.Content {
		v = o.f.unwrap(v)
		if v == nil {
			good = false // an alias, already reported
			continue
		}
		s, isStr := scalar(v)
		if !isStr {
			o.f.report(posOf(v), CodeWrongType, "every entry of %q must be a string, found %s.%s", key, kindName(v), o.f.quoteHintAt(v.Line))
			good = false
			continue
		}
		out = append(out, item{s, posOf(v)})
	}
	return out, good
}

// child returns the nested mapping under key.
func (o *object) child(key, what string) *object {
	if !o.has(key) {
		return nil
	}
	n := o.vals[key]
	if isNull(n) {
		o.f.report(o.keys[key], CodeWrongType, "%s must be a mapping, found nothing.", what)
		return nil
	}
	return o.f.object(n, what)
}

// list returns the entries of a list of mappings under key.
func (o *object) list(key, what string) []*object {
	if !o.has(key) {
		return nil
	}
	n := o.f.unwrap(o.vals[key])
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a list, found %s.", key, kindName(n))
		return nil
	}
	var out []*object
	for i, v := range n.Content {
		if c := o.f.object(v, fmt.Sprintf("%s %d", what, i+1)); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// oneOfValue checks a string against allowed values and reports a suggestion.
func (o *object) oneOfValue(key, val string, allowed []string) bool {
	for _, a := range allowed {
		if a == val {
			return true
		}
	}
	hint := didYouMean(val, allowed)
	o.f.report(o.valuePos(key), CodeInvalidValue, "%q is not a valid %s; use %s.%s", val, key, oneOf(allowed), hint)
	return false
}

// firstUnprintable finds the first character YAML does not allow (a control character
// other than tab, line feed and carriage return, or a byte that is not UTF-8), with its
// line and column (counted in characters, from 1).
func firstUnprintable(data []byte) (Pos, rune, bool) {
	p := Pos{1, 1}
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && n <= 1,
			r < 0x20 && r != '\t' && r != '\n' && r != '\r',
			r == 0x7f, r >= 0x80 && r <= 0x9f && r != 0x85, r == 0xfffe, r == 0xffff:
			return p, r, true
		}
		if r == '\n' {
			p.Line++
			p.Column = 1
		} else {
			p.Column++
		}
		data = data[n:]
	}
	return Pos{}, 0, false
}
