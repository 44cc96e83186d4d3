package protobuf

import (
	"strconv"
	"strings"

	"github.com/bufbuild/protocompile/ast"
)

// Fields, ranges, options and values as Confluent's canonical text prints them.

func label(l ast.FieldLabel) string {
	if l.KeywordNode == nil {
		return ""
	}
	return l.Val + " "
}

func (c canon) field(f *ast.FieldNode) string {
	typ := string(f.FldType.AsIdentifier())
	s := label(f.Label) + typ + " " + f.Name.Val + " = " + c.intValue(f.Tag)
	if opts := c.compact(f.Options, &typ); opts != "" {
		s += " " + opts
	}
	return s + ";\n"
}

func (c canon) mapField(f *ast.MapFieldNode) string {
	typ := "map<" + f.MapType.KeyType.Val + ", " + string(f.MapType.ValueType.AsIdentifier()) + ">"
	s := typ + " " + f.Name.Val + " = " + c.intValue(f.Tag)
	if opts := c.compact(f.Options, &typ); opts != "" {
		s += " " + opts
	}
	return s + ";\n"
}

func (c canon) group(g *ast.GroupNode) string {
	head := label(g.Label) + "group " + g.Name.Val + " = " + c.intValue(g.Tag)
	if opts := c.compact(g.Options, nil); opts != "" {
		head += " " + opts
	}
	return c.messageBody(head, g.Decls)
}

func (c canon) reserved(r *ast.ReservedNode) string {
	var vals []string
	for _, rg := range r.Ranges {
		vals = append(vals, c.rangeText(rg, "536870911"))
	}
	for _, n := range r.Names {
		vals = append(vals, `"`+n.AsString()+`"`)
	}
	for _, n := range r.Identifiers {
		vals = append(vals, `"`+n.Val+`"`)
	}
	if len(vals) == 0 {
		return ""
	}
	return "reserved " + strings.Join(vals, ", ") + ";\n"
}

func (c canon) extensions(e *ast.ExtensionRangeNode) string {
	var vals []string
	for _, rg := range e.Ranges {
		vals = append(vals, c.rangeText(rg, "max"))
	}
	s := "extensions " + strings.Join(vals, ", ")
	if opts := c.compact(e.Options, nil); opts != "" {
		s += " " + opts
	}
	return s + ";\n"
}

// rangeText prints a range as "a", or "a to b" (max written as given).
func (c canon) rangeText(r *ast.RangeNode, max string) string {
	start := c.intValue(r.StartVal)
	switch {
	case r.Max != nil:
		return start + " to " + max
	case r.EndVal != nil:
		return start + " to " + c.intValue(r.EndVal)
	}
	return start
}

// intValue prints a tag, an enum number or a range bound in decimal.
func (c canon) intValue(n ast.Node) string {
	switch v := n.(type) {
	case *ast.UintLiteralNode:
		return strconv.FormatUint(v.Val, 10)
	case *ast.NegativeIntLiteralNode:
		return strconv.FormatInt(v.Val, 10)
	}
	return c.raw(n)
}

// raw is a node's text as written, without white space.
func (c canon) raw(n ast.Node) string {
	return strings.Join(strings.Fields(c.file.NodeInfo(n).RawText()), "")
}

// compact prints `[a = 1]` or, for several options, one per line; a field's `default`
// and `json_name` come after its other options (fieldType is the field's type, nil
// for things that are not fields).
func (c canon) compact(opts *ast.CompactOptionsNode, fieldType *string) string {
	if opts == nil || len(opts.Options) == 0 {
		return ""
	}
	var out, special []string
	var def, jsonName *ast.OptionNode
	for _, o := range opts.Options {
		name := c.optionName(o.Name)
		switch {
		case fieldType != nil && name == "default":
			def = o
		case fieldType != nil && name == "json_name":
			jsonName = o
		default:
			out = append(out, c.option(o))
		}
	}
	if def != nil {
		special = append(special, "default = "+c.defaultValue(def.Val, *fieldType))
	}
	if jsonName != nil {
		if s, ok := jsonName.Val.(ast.StringValueNode); ok {
			special = append(special, `json_name = "`+escapeChars(s.AsString())+`"`)
		}
	}
	out = append(out, special...)
	if len(out) == 1 {
		return "[" + out[0] + "]"
	}
	var sb strings.Builder
	sb.WriteString("[\n")
	for i, o := range out {
		if i < len(out)-1 {
			o += ","
		}
		indented(&sb, o)
	}
	sb.WriteByte(']')
	return sb.String()
}

// defaultValue prints a field's default: quoted for string fields, as written for
// numbers, bools and enum values (the registry does not quote bytes defaults either).
func (c canon) defaultValue(v ast.ValueNode, fieldType string) string {
	if s, ok := v.(ast.StringValueNode); ok {
		if fieldType == "string" {
			return `"` + escapeChars(s.AsString()) + `"`
		}
		return s.AsString()
	}
	return c.raw(v)
}

func (c canon) optionName(n *ast.OptionNameNode) string {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		parts[i] = p.Value()
	}
	return strings.Join(parts, ".")
}

// option prints `name = value` (without "option" and ";").
func (c canon) option(o *ast.OptionNode) string {
	return c.optionName(o.Name) + " = " + c.value(o.Val)
}

func (c canon) value(v ast.ValueNode) string {
	switch v := v.(type) {
	case ast.StringValueNode:
		return `"` + escapeChars(v.AsString()) + `"`
	case *ast.MessageLiteralNode:
		var sb strings.Builder
		sb.WriteString("{\n")
		c.messageLiteral(&sb, v)
		sb.WriteByte('}')
		return sb.String()
	case *ast.ArrayLiteralNode:
		var sb strings.Builder
		sb.WriteString("[\n")
		for i, e := range v.Elements {
			s := c.value(e)
			if i < len(v.Elements)-1 {
				s += ","
			}
			indented(&sb, s)
		}
		sb.WriteByte(']')
		return sb.String()
	}
	return c.raw(v)
}

// messageLiteral prints the members of a message literal one per line, "key: value",
// separated by commas; a key given more than once holds the list of its values, as
// the registry's parser collects them.
func (c canon) messageLiteral(sb *strings.Builder, m *ast.MessageLiteralNode) {
	var keys []string
	vals := map[string][]string{}
	for _, e := range m.Elements {
		k := e.Name.Value()
		if e.Name.IsExtension() {
			k = "[" + string(e.Name.Name.AsIdentifier()) + "]"
		}
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
		}
		vals[k] = append(vals[k], c.value(e.Val))
	}
	for i, k := range keys {
		v := vals[k]
		s := v[0]
		if len(v) > 1 {
			var lb strings.Builder
			lb.WriteString("[\n")
			for j, x := range v {
				if j < len(v)-1 {
					x += ","
				}
				indented(&lb, x)
			}
			lb.WriteByte(']')
			s = lb.String()
		}
		line := k + ": " + s
		if i < len(keys)-1 {
			line += ","
		}
		indented(sb, line)
	}
}

// escapeChars escapes a string value as the registry's printer does.
func escapeChars(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
