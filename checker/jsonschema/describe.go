package jsonschema

import (
	"strings"

	"github.com/contractbot/contractbot/checker"
)

// DescribeFields lists the properties in the order the schema declares them, nested
// properties after their parent, as FieldPaths reaches them (arrays, combinations and
// $ref are transparent): the type without null ("string", "integer", "object",
// "enum [a, b]"), nullable when null is one of its types, the default as JSON, and the
// description (else the title).
func (s *Schema) DescribeFields() []checker.FieldInfo {
	var out []checker.FieldInfo
	seen := map[string]bool{}
	onPath := map[*node]bool{}
	var walk func(n *node, prefix string, depth int)
	walk = func(n *node, prefix string, depth int) {
		n = deref(n)
		if n == nil || onPath[n] {
			return
		}
		onPath[n] = true
		defer delete(onPath, n)
		switch n.kind {
		case kObject:
			for _, p := range n.props {
				path := p.name
				if prefix != "" {
					path = prefix + "." + p.name
				}
				if _, ok := s.byPath[path]; !ok || seen[path] {
					continue
				}
				seen[path] = true
				out = append(out, describe(path, depth, p.n))
				walk(p.n, path, depth+1)
			}
		case kArray:
			walk(n.items, prefix, depth)
			for _, it := range n.itemList {
				walk(it, prefix, depth)
			}
			walk(n.addlItems, prefix, depth)
		case kCombined:
			for _, sub := range n.subs {
				walk(sub, prefix, depth)
			}
		}
	}
	walk(s.root, "", 0)
	return out
}

func describe(path string, depth int, n *node) checker.FieldInfo {
	fi := checker.FieldInfo{Path: path, Depth: depth}
	var types []string
	for _, t := range strings.Split(label(n), "|") {
		if t == "null" {
			fi.Nullable = true
		} else {
			types = append(types, t)
		}
	}
	fi.Type = strings.Join(types, " or ")
	if fi.Type == "" {
		fi.Type = "null"
	}
	if d := deref(n); d != nil {
		if d.hasDef {
			fi.Default, fi.HasDefault = d.def, true
		}
		fi.Doc = d.desc
		if !d.hasDesc {
			fi.Doc = d.title
		}
	}
	return fi
}
