package contract

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// file collects the diagnostics of one YAML file while it is decoded.
type file struct {
	path  string
	diags *Diagnostics
}

func (f *file) report(p Pos, code, format string, args ...any) {
	*f.diags = append(*f.diags, Diagnostic{
		File: f.path, Line: max(p.Line, 1), Column: max(p.Column, 1),
		Severity: Error, Code: code, Message: fmt.Sprintf(format, args...),
	})
}

func posOf(n ast.Node) Pos {
	if n == nil || n.GetToken() == nil {
		return Pos{1, 1}
	}
	p := n.GetToken().Position
	return Pos{Line: p.Line, Column: p.Column}
}

// parse reads one YAML document and returns its top-level mapping, or nil after
// reporting why there is none.
func (f *file) parse(data []byte) *object {
	doc, err := parser.ParseBytes(data, 0)
	if err != nil {
		var se *yaml.SyntaxError
		if errors.As(err, &se) && se.Token != nil {
			f.report(Pos{se.Token.Position.Line, se.Token.Position.Column}, CodeYAMLSyntax,
				"YAML syntax error: %s. Check the indentation and quoting on this line.", se.Message)
		} else {
			f.report(Pos{1, 1}, CodeYAMLSyntax, "YAML syntax error: %v.", err)
		}
		return nil
	}
	var bodies []ast.Node
	for _, d := range doc.Docs {
		if d != nil && d.Body != nil {
			bodies = append(bodies, d.Body)
		}
	}
	switch len(bodies) {
	case 0:
		f.report(Pos{1, 1}, CodeMissingKey, "the file is empty; write the keys this file needs (see docs/contract-format.md).")
		return nil
	case 1:
	default:
		f.report(posOf(bodies[1]), CodeYAMLSyntax, "the file holds more than one YAML document; keep one (remove the `---` separator).")
		return nil
	}
	return f.object(bodies[0], "the file")
}

// object is a YAML mapping whose keys have been checked.
type object struct {
	f    *file
	pos  Pos
	vals map[string]ast.Node
	keys map[string]Pos
}

// unwrap strips tags and anchors and reports aliases, which the format does not allow.
func (f *file) unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		case *ast.AliasNode:
			f.report(posOf(v), CodeAlias, "YAML aliases (*name) are not allowed in contract files; write the value out in full.")
			return nil
		default:
			return n
		}
	}
}

func kindName(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode:
		return "a number"
	case *ast.FloatNode:
		return "a number"
	case *ast.BoolNode:
		return "true or false"
	case *ast.NullNode, nil:
		return "nothing"
	}
	return "a value"
}

// object checks that n is a mapping and indexes its keys. what names it in messages.
func (f *file) object(n ast.Node, what string) *object {
	n = f.unwrap(n)
	m, ok := n.(*ast.MappingNode)
	if !ok {
		f.report(posOf(n), CodeWrongType, "%s must be a mapping of keys to values, found %s.", what, kindName(n))
		return nil
	}
	o := &object{f: f, pos: posOf(m), vals: map[string]ast.Node{}, keys: map[string]Pos{}}
	if len(m.Values) > 0 {
		o.pos = posOf(m.Values[0].Key) // a mapping's own token is its first ':'
	}
	for _, mv := range m.Values {
		key := f.unwrap(mv.Key)
		if key == nil {
			continue
		}
		name := key.GetToken().Value
		if _, dup := o.vals[name]; dup {
			f.report(posOf(key), CodeYAMLSyntax, "key %q appears twice in %s; keep one.", name, what)
			continue
		}
		o.vals[name] = mv.Value
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
	for _, k := range o.names() {
		if !known[k] {
			hint := didYouMean(k, all)
			if hint == "" {
				hint = fmt.Sprintf(" Allowed keys: %s.", strings.Join(all, ", "))
			}
			o.f.report(o.keys[k], CodeUnknownKey, "unknown key %q in %s.%s", k, what, hint)
		}
	}
	for _, k := range required {
		if _, ok := o.vals[k]; !ok {
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
	if n, ok := o.vals[key]; ok && n != nil {
		if _, null := n.(*ast.NullNode); !null {
			return posOf(n)
		}
	}
	return o.keys[key]
}

// scalar returns the text of a scalar node and whether it is a string-like scalar.
func scalar(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
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
		hint := ""
		if t := n.GetToken(); t != nil && kindName(n) != "a mapping" && kindName(n) != "a list" && kindName(n) != "nothing" {
			hint = fmt.Sprintf(" Quote it: %s: %q.", key, t.Value)
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
	iv, ok := n.(*ast.IntegerNode)
	if !ok {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a whole number, found %s.", key, kindName(n))
		return 0, false
	}
	v, err := strconv.Atoi(iv.GetToken().Value)
	if err != nil {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a whole number, found %q.", key, iv.GetToken().Value)
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
	bv, ok := n.(*ast.BoolNode)
	if !ok {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be true or false, found %s.", key, kindName(n))
		return false, false
	}
	return bv.Value, true
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
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		hint := ""
		if s, isStr := scalar(n); isStr {
			hint = fmt.Sprintf(" Write it as a list: %s: [%s].", key, s)
		}
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a list of strings, found %s.%s", key, kindName(n), hint)
		return nil, false
	}
	out := make([]item, 0, len(seq.Values))
	good := true
	for _, v := range seq.Values {
		v = o.f.unwrap(v)
		if v == nil {
			good = false // an alias, already reported
			continue
		}
		s, isStr := scalar(v)
		if !isStr {
			o.f.report(posOf(v), CodeWrongType, "every entry of %q must be a string, found %s.", key, kindName(v))
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
	if n == nil {
		o.f.report(o.keys[key], CodeWrongType, "%s must be a mapping, found nothing.", what)
		return nil
	}
	if _, null := n.(*ast.NullNode); null {
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
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		o.f.report(o.valuePos(key), CodeWrongType, "%q must be a list, found %s.", key, kindName(n))
		return nil
	}
	var out []*object
	for i, v := range seq.Values {
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
