package web

import (
	"html"
	"html/template"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
)

// A token is a piece of schema text with a class: "" (plain), "k" (JSON key or
// Protobuf keyword), "s" (string), "n" (number or field number), "t" (type),
// "c" (comment), "b" (JSON true, false, null).
type token struct {
	class, text string
}

// highlight renders schema text as HTML: each token is escaped, then the classed
// ones are wrapped in spans. The syntax comes from the format's engine (JSON for
// Avro, Protobuf; plain text for a format that names none). The result is safe
// whatever the text holds: no byte of the input reaches the output without
// html.EscapeString.
func highlight(format string, src []byte) template.HTML {
	syntax := ""
	if e, ok := formats.Lookup(format); ok {
		syntax = e.Describe().Syntax
	}
	var toks []token
	switch syntax {
	case checker.SyntaxJSON:
		toks = jsonTokens(string(src))
	case checker.SyntaxProtobuf:
		toks = protoTokens(string(src))
	default:
		toks = []token{{"", string(src)}}
	}
	var b strings.Builder
	b.Grow(len(src) * 2)
	for _, t := range toks {
		if t.class == "" {
			b.WriteString(html.EscapeString(t.text))
			continue
		}
		b.WriteString(`<span class="hl-` + t.class + `">`)
		b.WriteString(html.EscapeString(t.text))
		b.WriteString(`</span>`)
	}
	return template.HTML(b.String())
}

// jsonTokens splits JSON text into tokens. It never fails: text that is not JSON
// comes out as plain tokens.
func jsonTokens(s string) []token {
	var out []token
	plain := 0 // start of the pending plain run
	flush := func(i int) {
		if i > plain {
			out = append(out, token{"", s[plain:i]})
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			class := "s"
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
				k++
			}
			if k < len(s) && s[k] == ':' {
				class = "k"
			}
			flush(i)
			out = append(out, token{class, s[i:j]})
			i, plain = j, j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && strings.IndexByte("0123456789.eE+-", s[j]) >= 0 {
				j++
			}
			flush(i)
			out = append(out, token{"n", s[i:j]})
			i, plain = j, j
		case c >= 'a' && c <= 'z':
			j := i
			for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				j++
			}
			if w := s[i:j]; w == "true" || w == "false" || w == "null" {
				flush(i)
				out = append(out, token{"b", w})
				plain = j
			}
			i = j
		default:
			i++
		}
	}
	flush(len(s))
	return out
}

var protoKeywords = map[string]bool{
	"syntax": true, "edition": true, "package": true, "import": true, "public": true, "weak": true,
	"option": true, "message": true, "enum": true, "service": true, "rpc": true, "returns": true,
	"stream": true, "oneof": true, "map": true, "repeated": true, "optional": true, "required": true,
	"reserved": true, "extend": true, "extensions": true, "to": true, "max": true, "true": true, "false": true,
}

var protoTypes = map[string]bool{
	"double": true, "float": true, "int32": true, "int64": true, "uint32": true, "uint64": true,
	"sint32": true, "sint64": true, "fixed32": true, "fixed64": true, "sfixed32": true, "sfixed64": true,
	"bool": true, "string": true, "bytes": true,
}

func isIdent(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c >= '0' && c <= '9' || c == '.')
}

// protoTokens splits Protobuf text into tokens: comments, strings, keywords, scalar
// types, and numbers (a number after "=" is a field number).
func protoTokens(s string) []token {
	var out []token
	plain := 0
	emit := func(i, j int, class string) {
		if i > plain {
			out = append(out, token{"", s[plain:i]})
		}
		out = append(out, token{class, s[i:j]})
		plain = j
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case strings.HasPrefix(s[i:], "//"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			emit(i, i+j, "c")
			i += j
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			end := len(s)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			emit(i, end, "c")
			i = end
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			emit(i, j, "s")
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && isIdent(s[j], false) {
				j++
			}
			emit(i, j, "n")
			i = j
		case isIdent(c, true):
			j := i
			for j < len(s) && isIdent(s[j], false) {
				j++
			}
			switch w := s[i:j]; {
			case protoKeywords[w]:
				emit(i, j, "k")
			case protoTypes[w]:
				emit(i, j, "t")
			}
			i = j
		default:
			i++
		}
	}
	if plain < len(s) {
		out = append(out, token{"", s[plain:]})
	}
	return out
}
