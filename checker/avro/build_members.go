package avro

import (
	"slices"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// object is a type object read as hamba's mapstructure decoding reads it: the members
// named keys go to its struct, the others are custom properties.
//
// Reading a member of another JSON kind than hamba's struct field sets odd: the text
// is then left to hamba, whose decoding fails or converts in its own way.
type object struct {
	n    *jsontext.Node
	keys []string
	odd  bool
}

// members reads a type object whose struct has the given keys. A member whose name
// matches one of keys only in another letter case, which mapstructure would take for
// that key, makes the object odd.
func members(n *jsontext.Node, keys ...string) *object {
	o := &object{n: n, keys: keys}
	for _, mem := range n.Members {
		for _, k := range keys {
			if mem.Key != k && strings.EqualFold(mem.Key, k) {
				o.odd = true
			}
		}
	}
	return o
}

// get returns a member's value; nil when it is missing.
func (o *object) get(key string) *jsontext.Node { return o.n.Get(key) }

// str is a string member ("" when missing or null).
func (o *object) str(key string) string {
	v := o.get(key)
	switch {
	case v == nil || v.Kind == jsontext.Null:
		return ""
	case v.Kind == jsontext.String:
		return v.Str
	}
	o.odd = true
	return ""
}

// strs is an array of strings member (nil when missing or null).
func (o *object) strs(key string) []string {
	v := o.get(key)
	switch {
	case v == nil || v.Kind == jsontext.Null:
		return nil
	case v.Kind != jsontext.Array:
		o.odd = true
		return nil
	}
	out := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		if e.Kind != jsontext.String {
			o.odd = true
		}
		out[i] = e.Str
	}
	return out
}

// props returns the members hamba keeps as custom properties, decoded as its JSON
// decoder does (numbers as float64); nil when there are none.
func (o *object) props() map[string]any {
	var out map[string]any
	for _, mem := range o.n.Members {
		if slices.Contains(o.keys, mem.Key) {
			continue
		}
		v, ok := value(mem.Val)
		if !ok {
			o.odd = true
		}
		if out == nil {
			out = map[string]any{}
		}
		out[mem.Key] = v
	}
	return out
}

// name reads the name, namespace (the enclosing one when empty) and aliases of a
// named type.
func (o *object) name(space string) (name, ns string, aliases []string) {
	name, ns, aliases = o.str("name"), o.str("namespace"), o.strs("aliases")
	if name == "" {
		o.odd = true
	}
	if ns == "" {
		ns = space
	}
	return name, ns, aliases
}

// value decodes a JSON value as encoding/json (and hamba's jsoniter) does into an any.
func value(n *jsontext.Node) (any, bool) {
	switch n.Kind {
	case jsontext.Null:
		return nil, true
	case jsontext.Bool:
		return n.Str == "true", true
	case jsontext.String:
		return n.Str, true
	case jsontext.Number:
		if !strictNumber(n.Str) {
			return nil, false
		}
		f, err := strconv.ParseFloat(n.Str, 64)
		return f, err == nil
	case jsontext.Array:
		out := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			v, ok := value(e)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	case jsontext.Object:
		out := make(map[string]any, len(n.Members))
		for _, mem := range n.Members {
			v, ok := value(mem.Val)
			if !ok {
				return nil, false
			}
			out[mem.Key] = v
		}
		return out, true
	}
	return nil, false
}

// strictNumber reports whether a number jsontext accepted is one hamba's JSON decoder
// accepts too: jsontext lets a leading zero through ("007").
func strictNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) < 2 || s[0] != '0' || s[1] < '0' || s[1] > '9'
}
