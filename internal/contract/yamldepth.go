package contract

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// CodeYAMLTooDeep is a file whose collections nest deeper than MaxYAMLDepth.
const CodeYAMLTooDeep = "yaml-too-deep"

// MaxYAMLDepth is how deeply lists and mappings may nest in a contract file. The formats
// need five levels at most; the limit keeps a hostile file from costing time and memory in
// the parsers (a line of 30,000 `[` costs the error-locating parser 1.4 GB).
const MaxYAMLDepth = 64

// tooDeepFlow finds the first flow bracket ([ or {) nested more than MaxYAMLDepth deep,
// outside quoted scalars and comments, before any parser sees the text. It is one pass
// over the bytes; columns count characters, as the parsers' do.
func tooDeepFlow(data []byte) (Pos, bool) {
	depth, line, col := 0, 1, 0
	var quote byte // the open quote, 0 outside quoted scalars
	prev := byte('\n')
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c&0xC0 != 0x80 { // count runes, not continuation bytes
			col++
		}
		switch {
		case c == '\n':
			line, col = line+1, 0
			if quote == 0 {
				prev = c
				continue
			}
		case quote == '\'':
			if c == '\'' {
				if i+1 < len(data) && data[i+1] == '\'' {
					i++ // '' is a quote inside the scalar
					col++
				} else {
					quote = 0
				}
			}
		case quote == '"':
			if c == '\\' && i+1 < len(data) && data[i+1] != '\n' {
				i++
				col++
			} else if c == '"' {
				quote = 0
			}
		case c == '#' && (prev == ' ' || prev == '\t' || prev == '\n'):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case (c == '"' || c == '\'') && (prev == ' ' || prev == '\t' || prev == '\n' || prev == '[' || prev == '{' || prev == ','):
			quote = c // a quoted scalar starts a value; don't's quote is text
		case c == '[' || c == '{':
			depth++
			if depth > MaxYAMLDepth {
				return Pos{Line: line, Column: col}, true
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
		prev = c
	}
	return Pos{}, false
}

// tooDeepNode finds the first node nested more than MaxYAMLDepth deep in a parsed
// document (block indentation nests too), or reports false.
func tooDeepNode(n *yaml.Node, depth int) (*yaml.Node, bool) {
	if depth > MaxYAMLDepth {
		return n, true
	}
	for _, c := range n.Content {
		if d, ok := tooDeepNode(c, depth+1); ok {
			return d, true
		}
	}
	return nil, false
}

// reportTooDeep reports a file nesting past MaxYAMLDepth at p.
func (f *file) reportTooDeep(p Pos) {
	f.report(p, CodeYAMLTooDeep, "%s", fmt.Sprintf("lists and mappings nest more than %d levels deep here; contract files need a few levels, so flatten this value (the limit keeps hostile files cheap to read).", MaxYAMLDepth))
}
