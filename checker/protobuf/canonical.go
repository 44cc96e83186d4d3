package protobuf

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/bufbuild/protocompile/ast"
	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
)

// Canonical returns the text the Confluent Schema Registry stores for a .proto file
// (ProtobufSchema.canonicalString): the parsed file printed again with comments and
// layout gone, two-space indentation, messages before enums at every level, a
// message's parts in a fixed order (reserved ranges, options, fields, oneofs,
// groups, extension ranges, nested messages, nested enums), `default` and `json_name`
// after a field's other options, and names, types and option values as written (a
// type is not resolved: `Money` and `.shop.Money` stay different, as they do in the
// registry). Only the file's own text is read; imports are not resolved.
func (Engine) Canonical(text []byte) ([]byte, error) {
	if n, _, _ := countDeclarations(text, 0); n > MaxDeclarations {
		return nil, fmt.Errorf("protobuf: the schema has %d declarations, over the limit of %d (MaxDeclarations)", n, MaxDeclarations)
	}
	if err := longLine("schema.proto", text); err != nil {
		return nil, fmt.Errorf("protobuf: %w", err)
	}
	h := reporter.NewHandler(nil)
	file, err := parser.Parse("schema.proto", bytes.NewReader(text), h)
	if err != nil {
		return nil, fmt.Errorf("protobuf: %w", err)
	}
	c := canon{file: file}
	return []byte(c.file_()), nil
}

// canon prints one parsed file in Confluent's canonical form.
type canon struct{ file *ast.FileNode }

// indented indents every line of s by two spaces, as Confluent's printer does (trailing
// empty lines dropped, inner empty lines indented too).
func indented(sb *strings.Builder, s string) {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		sb.WriteString("  ")
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
}

// block prints `head {`, then each non-empty group of declarations after a line break,
// indented, then `}`: the shape of every message, enum, extend, service and oneof in
// Confluent's canonical text.
func block(head string, groups ...[]string) string {
	var sb strings.Builder
	sb.WriteString(head + " {")
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		sb.WriteByte('\n')
		for _, d := range g {
			indented(&sb, d)
		}
	}
	sb.WriteString("}\n")
	return sb.String()
}

func (c canon) file_() string {
	var sb strings.Builder
	var imports, public []string
	var options []*ast.OptionNode
	var messages, enums []ast.Node
	var extends []*ast.ExtendNode
	var services []*ast.ServiceNode
	if c.file.Syntax != nil {
		sb.WriteString(`syntax = "` + c.file.Syntax.Syntax.AsString() + "\";\n")
	} else if c.file.Edition != nil {
		sb.WriteString(`edition = "` + c.file.Edition.Edition.AsString() + "\";\n")
	}
	for _, d := range c.file.Decls {
		switch d := d.(type) {
		case *ast.PackageNode:
			sb.WriteString("package " + string(d.Name.AsIdentifier()) + ";\n")
		case *ast.ImportNode:
			if d.Public != nil {
				public = append(public, d.Name.AsString())
			} else {
				imports = append(imports, d.Name.AsString())
			}
		case *ast.OptionNode:
			options = append(options, d)
		case *ast.MessageNode:
			messages = append(messages, d)
		case *ast.EnumNode:
			enums = append(enums, d)
		case *ast.ExtendNode:
			extends = append(extends, d)
		case *ast.ServiceNode:
			services = append(services, d)
		}
	}
	if len(imports)+len(public) > 0 {
		sb.WriteByte('\n')
		for _, f := range imports {
			sb.WriteString(`import "` + f + "\";\n")
		}
		for _, f := range public {
			sb.WriteString(`import public "` + f + "\";\n")
		}
	}
	if len(options) > 0 {
		sb.WriteByte('\n')
		for _, o := range options {
			sb.WriteString("option " + c.option(o) + ";\n")
		}
	}
	if len(messages)+len(enums) > 0 {
		sb.WriteByte('\n')
		for _, m := range messages {
			sb.WriteString(c.message(m.(*ast.MessageNode)))
		}
		for _, e := range enums {
			sb.WriteString(c.enum(e.(*ast.EnumNode)))
		}
	}
	if len(extends) > 0 {
		sb.WriteByte('\n')
		for _, e := range extends {
			sb.WriteString(c.extend(e))
		}
	}
	if len(services) > 0 {
		sb.WriteByte('\n')
		for _, s := range services {
			sb.WriteString(c.service(s))
		}
	}
	return sb.String()
}

func (c canon) message(m *ast.MessageNode) string {
	return c.messageBody("message "+m.Name.Val, m.Decls)
}

func (c canon) messageBody(head string, decls []ast.MessageElement) string {
	var reserved, options, fields, oneofs, groups, extensions, messages, enums []string
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.ReservedNode:
			if s := c.reserved(d); s != "" {
				reserved = append(reserved, s)
			}
		case *ast.OptionNode:
			options = append(options, "option "+c.option(d)+";\n")
		case *ast.FieldNode:
			fields = append(fields, c.field(d))
		case *ast.MapFieldNode:
			fields = append(fields, c.mapField(d))
		case *ast.OneofNode:
			oneofs = append(oneofs, c.oneof(d))
		case *ast.GroupNode:
			groups = append(groups, c.group(d))
		case *ast.ExtensionRangeNode:
			extensions = append(extensions, c.extensions(d))
		case *ast.MessageNode:
			messages = append(messages, c.message(d))
		case *ast.EnumNode:
			enums = append(enums, c.enum(d))
		}
	}
	return block(head, reserved, options, fields, oneofs, groups, extensions, append(messages, enums...))
}

func (c canon) enum(e *ast.EnumNode) string {
	var options, values []string
	for _, d := range e.Decls {
		switch d := d.(type) {
		case *ast.OptionNode:
			options = append(options, "option "+c.option(d)+";\n")
		case *ast.EnumValueNode:
			s := d.Name.Val + " = " + c.intValue(d.Number)
			if opts := c.compact(d.Options, nil); opts != "" {
				s += " " + opts
			}
			values = append(values, s+";\n")
		}
	}
	return block("enum "+e.Name.Val, append(options, values...))
}

func (c canon) extend(e *ast.ExtendNode) string {
	var fields []string
	for _, d := range e.Decls {
		switch d := d.(type) {
		case *ast.FieldNode:
			fields = append(fields, c.field(d))
		case *ast.GroupNode:
			fields = append(fields, c.group(d))
		}
	}
	return block("extend "+string(e.Extendee.AsIdentifier()), fields)
}

func (c canon) service(s *ast.ServiceNode) string {
	var options, rpcs []string
	for _, d := range s.Decls {
		switch d := d.(type) {
		case *ast.OptionNode:
			options = append(options, "option "+c.option(d)+";\n")
		case *ast.RPCNode:
			rpcs = append(rpcs, c.rpc(d))
		}
	}
	return block("service "+s.Name.Val, options, rpcs)
}

func (c canon) rpc(r *ast.RPCNode) string {
	typ := func(t *ast.RPCTypeNode) string {
		if t.Stream != nil {
			return "stream " + string(t.MessageType.AsIdentifier())
		}
		return string(t.MessageType.AsIdentifier())
	}
	s := "rpc " + r.Name.Val + " (" + typ(r.Input) + ") returns (" + typ(r.Output) + ")"
	var options []string
	for _, d := range r.Decls {
		if o, ok := d.(*ast.OptionNode); ok {
			options = append(options, "option "+c.option(o)+";\n")
		}
	}
	if len(options) > 0 {
		var sb strings.Builder
		sb.WriteString(" {\n")
		for _, o := range options {
			indented(&sb, o)
		}
		sb.WriteByte('}')
		s += sb.String()
	}
	return s + ";\n"
}

func (c canon) oneof(o *ast.OneofNode) string {
	var options, fields, groups []string
	for _, d := range o.Decls {
		switch d := d.(type) {
		case *ast.OptionNode:
			options = append(options, "option "+c.option(d)+";\n")
		case *ast.FieldNode:
			fields = append(fields, c.field(d))
		case *ast.GroupNode:
			groups = append(groups, c.group(d))
		}
	}
	return block("oneof "+o.Name.Val, options, fields, groups)
}
