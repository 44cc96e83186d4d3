package avro

import (
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// explainHambaError turns an error of hamba/avro's parser, which has no position, into
// a pointer to the most likely place and a sentence that says what to fix.
func explainHambaError(root *jsontext.Node, err error) (ptr, msg string) {
	raw := strings.TrimPrefix(err.Error(), "avro: ")
	quoted := firstQuoted(raw)
	switch {
	case strings.HasPrefix(raw, "unknown type: "):
		name := strings.TrimPrefix(raw, "unknown type: ")
		if p, ok := findTypeString(root, "", name); ok {
			return p, fmt.Sprintf("unknown type %q: use a primitive type (null, boolean, int, long, float, double, bytes, string) or a named type defined earlier in the file (check its spelling and namespace)", name)
		}
		return "", "unknown type: " + name + "; every \"type\" must be a primitive type name, a named type defined earlier, or a complex type object"
	case strings.HasPrefix(raw, "duplicate field name"):
		if p, ok := findDuplicateField(root, "", quoted); ok {
			return p, fmt.Sprintf("record has two fields named %q; rename or remove one", quoted)
		}
	case strings.HasPrefix(raw, "duplicate name"):
		short := quoted[strings.LastIndex(quoted, ".")+1:]
		if p, ok := findNthName(root, short, 2); ok {
			return p + "/name", fmt.Sprintf("type %q is defined twice; define it once and refer to it by name afterwards", quoted)
		}
	case strings.HasPrefix(raw, "invalid default for field "):
		name := strings.TrimPrefix(raw, "invalid default for field ")
		if i := strings.Index(name, ". "); i >= 0 {
			name = name[:i]
		}
		typ := ""
		if i := strings.LastIndex(raw, " not a "); i >= 0 {
			typ = " " + raw[i+len(" not a "):]
		}
		if p, ok := findFieldByName(root, "", name); ok {
			return p + "/default", fmt.Sprintf("default of field %q does not match its type%s; write a value of that type (a union's default matches its first branch; bytes and fixed defaults are strings)", name, typ)
		}
	case strings.HasPrefix(raw, "union type must be unique"):
		if p, ok := findDuplicateUnion(root, ""); ok {
			return p, "union lists the same type twice; keep one of each type (named types may repeat only under different names)"
		}
	}
	if quoted != "" {
		if p, ok := findString(root, "", quoted); ok {
			return p, raw
		}
	}
	return "", raw
}

func firstQuoted(s string) string {
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(s[i+1:], '"')
	if j < 0 {
		return ""
	}
	return s[i+1 : i+1+j]
}

// walkJSON visits every node with its pointer, depth first, until fn returns true.
func walkJSON(n *jsontext.Node, ptr string, fn func(n *jsontext.Node, ptr string) bool) bool {
	if fn(n, ptr) {
		return true
	}
	switch n.Kind {
	case jsontext.Object:
		for _, m := range n.Members {
			if walkJSON(m.Val, ptr+"/"+jsontext.EscapePointerToken(m.Key), fn) {
				return true
			}
		}
	case jsontext.Array:
		for i, e := range n.Elems {
			if walkJSON(e, fmt.Sprintf("%s/%d", ptr, i), fn) {
				return true
			}
		}
	}
	return false
}

func findTypeString(root *jsontext.Node, ptr, name string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jsontext.Node, p string) bool {
		if n.Kind != jsontext.String || n.Str != name {
			return false
		}
		last := p[strings.LastIndex(p, "/")+1:]
		if p == "" || last == "type" || last == "items" || last == "values" || (last != "" && last[0] >= '0' && last[0] <= '9' && !strings.Contains(p, "/symbols/") && !strings.Contains(p, "/aliases/")) {
			found = p
			return true
		}
		return false
	})
	return found, ok
}

func findString(root *jsontext.Node, ptr, s string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jsontext.Node, p string) bool {
		if n.Kind == jsontext.String && n.Str == s {
			found = p
			return true
		}
		return false
	})
	return found, ok
}

func findDuplicateField(root *jsontext.Node, ptr, name string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jsontext.Node, p string) bool {
		fields := n.Get("fields")
		if fields == nil || fields.Kind != jsontext.Array {
			return false
		}
		seen := false
		for i, f := range fields.Elems {
			if nm := f.Get("name"); nm != nil && nm.Str == name {
				if seen {
					found = fmt.Sprintf("%s/fields/%d", p, i)
					return true
				}
				seen = true
			}
		}
		return false
	})
	return found, ok
}

func findFieldByName(root *jsontext.Node, ptr, name string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jsontext.Node, p string) bool {
		fields := n.Get("fields")
		if fields == nil || fields.Kind != jsontext.Array {
			return false
		}
		for i, f := range fields.Elems {
			if nm := f.Get("name"); nm != nil && nm.Str == name && f.Get("default") != nil {
				found = fmt.Sprintf("%s/fields/%d", p, i)
				return true
			}
		}
		return false
	})
	return found, ok
}

// findNthName finds the nth definition of a named type with that short name.
func findNthName(root *jsontext.Node, short string, nth int) (string, bool) {
	var found string
	count := 0
	ok := walkJSON(root, "", func(n *jsontext.Node, p string) bool {
		if !isDefinition(n) {
			return false
		}
		nm := n.Get("name")
		if nm == nil || nm.Str[strings.LastIndex(nm.Str, ".")+1:] != short {
			return false
		}
		count++
		if count == nth {
			found = p
			return true
		}
		return false
	})
	return found, ok
}

func findDuplicateUnion(root *jsontext.Node, ptr string) (string, bool) {
	var found string
	ok := walkJSON(root, ptr, func(n *jsontext.Node, p string) bool {
		if n.Kind != jsontext.Array || strings.HasSuffix(p, "/fields") || strings.HasSuffix(p, "/symbols") || strings.HasSuffix(p, "/aliases") {
			return false
		}
		seen := map[string]bool{}
		for i, e := range n.Elems {
			key := ""
			switch e.Kind {
			case jsontext.String:
				key = e.Str
			case jsontext.Object:
				if t := e.Get("type"); t != nil && t.Kind == jsontext.String {
					key = t.Str
					if nm := e.Get("name"); nm != nil {
						key += ":" + nm.Str
					}
				}
			}
			if key == "" {
				continue
			}
			if seen[key] {
				found = fmt.Sprintf("%s/%d", p, i)
				return true
			}
			seen[key] = true
		}
		return false
	})
	return found, ok
}
