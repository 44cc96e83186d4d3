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
	out := make([]checker.FieldInfo, 0, len(s.declared))
	for _, d := range s.declared {
		out = append(out, describe(d.path, d.depth, d.n))
	}
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
