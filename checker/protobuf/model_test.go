package protobuf

import (
	"fmt"
	"strings"
)

// A small model of a .proto file, rendered to text, so tests and benchmarks can
// generate schemas and edits of them.

type pFile struct {
	syntax  string // proto2 | proto3
	pkg     string
	imports []string // import paths, rendered in order
	msgs    []*pMsg
	enums   []*pEnum
	svcs    []*pSvc
}

type pMsg struct {
	name     string
	fields   []*pField
	reserved []string // raw reserved statements' bodies: `5`, `"x"`, `8 to 10`
	nested   []*pMsg
	enums    []*pEnum
}

type pField struct {
	label    string // "", optional, repeated, required
	typ      string // int32, string, Item, map<string, int32> ...
	name     string
	num      int
	oneof    string
	jsonName string
	def      string
}

type pEnum struct {
	name       string
	allowAlias bool
	values     []pValue
	reserved   []string
}

type pValue struct {
	name string
	num  int
}

type pSvc struct {
	name    string
	methods []pMethod
}

type pMethod struct {
	name, in, out string
	cs, ss        bool
	idempotency   string
}

func (f *pFile) clone() *pFile {
	c := *f
	c.msgs = cloneMsgs(f.msgs)
	c.enums = cloneEnums(f.enums)
	c.imports = append([]string(nil), f.imports...)
	c.svcs = nil
	for _, s := range f.svcs {
		sc := *s
		sc.methods = append([]pMethod(nil), s.methods...)
		c.svcs = append(c.svcs, &sc)
	}
	return &c
}

func cloneMsgs(ms []*pMsg) []*pMsg {
	var out []*pMsg
	for _, m := range ms {
		c := *m
		c.fields = nil
		for _, f := range m.fields {
			fc := *f
			c.fields = append(c.fields, &fc)
		}
		c.reserved = append([]string(nil), m.reserved...)
		c.nested = cloneMsgs(m.nested)
		c.enums = cloneEnums(m.enums)
		out = append(out, &c)
	}
	return out
}

func cloneEnums(es []*pEnum) []*pEnum {
	var out []*pEnum
	for _, e := range es {
		c := *e
		c.values = append([]pValue(nil), e.values...)
		c.reserved = append([]string(nil), e.reserved...)
		out = append(out, &c)
	}
	return out
}

func (f *pFile) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = %q;\n", f.syntax)
	if f.pkg != "" {
		fmt.Fprintf(&b, "package %s;\n", f.pkg)
	}
	for _, imp := range f.imports {
		fmt.Fprintf(&b, "import %q;\n", imp)
	}
	b.WriteString("\n")
	for _, m := range f.msgs {
		renderMsg(&b, m, "")
	}
	for _, e := range f.enums {
		renderEnum(&b, e, "")
	}
	for _, s := range f.svcs {
		fmt.Fprintf(&b, "service %s {\n", s.name)
		for _, m := range s.methods {
			cs, ss := "", ""
			if m.cs {
				cs = "stream "
			}
			if m.ss {
				ss = "stream "
			}
			if m.idempotency != "" {
				fmt.Fprintf(&b, "  rpc %s(%s%s) returns (%s%s) {\n    option idempotency_level = %s;\n  }\n", m.name, cs, m.in, ss, m.out, m.idempotency)
			} else {
				fmt.Fprintf(&b, "  rpc %s(%s%s) returns (%s%s);\n", m.name, cs, m.in, ss, m.out)
			}
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func renderField(b *strings.Builder, f *pField, indent string) {
	b.WriteString(indent)
	if f.label != "" {
		b.WriteString(f.label + " ")
	}
	fmt.Fprintf(b, "%s %s = %d", f.typ, f.name, f.num)
	var opts []string
	if f.jsonName != "" {
		opts = append(opts, fmt.Sprintf("json_name = %q", f.jsonName))
	}
	if f.def != "" {
		opts = append(opts, "default = "+f.def)
	}
	if len(opts) > 0 {
		b.WriteString(" [" + strings.Join(opts, ", ") + "]")
	}
	b.WriteString(";\n")
}

func renderMsg(b *strings.Builder, m *pMsg, indent string) {
	fmt.Fprintf(b, "%smessage %s {\n", indent, m.name)
	in := indent + "  "
	done := map[string]bool{}
	for _, f := range m.fields {
		if f.oneof == "" {
			renderField(b, f, in)
			continue
		}
		if done[f.oneof] {
			continue
		}
		done[f.oneof] = true
		fmt.Fprintf(b, "%soneof %s {\n", in, f.oneof)
		for _, g := range m.fields {
			if g.oneof == f.oneof {
				renderField(b, g, in+"  ")
			}
		}
		fmt.Fprintf(b, "%s}\n", in)
	}
	for _, r := range m.reserved {
		fmt.Fprintf(b, "%sreserved %s;\n", in, r)
	}
	for _, n := range m.nested {
		renderMsg(b, n, in)
	}
	for _, e := range m.enums {
		renderEnum(b, e, in)
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

func renderEnum(b *strings.Builder, e *pEnum, indent string) {
	fmt.Fprintf(b, "%senum %s {\n", indent, e.name)
	if e.allowAlias {
		fmt.Fprintf(b, "%s  option allow_alias = true;\n", indent)
	}
	for _, v := range e.values {
		fmt.Fprintf(b, "%s  %s = %d;\n", indent, v.name, v.num)
	}
	for _, r := range e.reserved {
		fmt.Fprintf(b, "%s  reserved %s;\n", indent, r)
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

// baseFiles are the hand-written starting points of generated edits.
func baseFiles() []*pFile {
	orders := &pFile{syntax: "proto3", pkg: "shop.orders.v1",
		msgs: []*pMsg{
			{name: "Order", fields: []*pField{
				{typ: "string", name: "order_id", num: 1},
				{typ: "int64", name: "user_id", num: 2},
				{typ: "int32", name: "amount", num: 3},
				{label: "repeated", typ: "Item", name: "items", num: 4},
				{typ: "Status", name: "status", num: 5},
				{typ: "string", name: "email", num: 6, oneof: "contact"},
				{typ: "string", name: "phone", num: 7, oneof: "contact"},
				{typ: "map<string, string>", name: "labels", num: 8},
				{typ: "bytes", name: "blob", num: 9},
				{label: "optional", typ: "uint32", name: "priority", num: 10},
				{typ: "fixed64", name: "checksum", num: 11},
				{typ: "double", name: "ratio", num: 12},
			}, reserved: []string{"20", `"legacy"`}},
			{name: "Item", fields: []*pField{
				{typ: "string", name: "sku", num: 1},
				{typ: "uint32", name: "qty", num: 2},
				{typ: "sint64", name: "delta", num: 3},
			}},
		},
		enums: []*pEnum{{name: "Status", values: []pValue{{"STATUS_UNSPECIFIED", 0}, {"STATUS_OPEN", 1}, {"STATUS_PAID", 2}}, reserved: []string{"9"}}},
		svcs: []*pSvc{{name: "Orders", methods: []pMethod{
			{name: "Get", in: "Item", out: "Order"},
			{name: "Watch", in: "Item", out: "Order", ss: true},
		}}},
	}
	legacy := &pFile{syntax: "proto2", pkg: "legacy",
		msgs: []*pMsg{{name: "Event", fields: []*pField{
			{label: "required", typ: "string", name: "id", num: 1},
			{label: "optional", typ: "int32", name: "count", num: 2, def: "5"},
			{label: "optional", typ: "string", name: "kind", num: 3, def: `"x"`},
			{label: "repeated", typ: "int64", name: "ts", num: 4},
			{label: "optional", typ: "Level", name: "level", num: 5},
			{label: "optional", typ: "bool", name: "flag", num: 6, jsonName: "isFlag"},
		}, enums: []*pEnum{{name: "Level", values: []pValue{{"LOW", 1}, {"HIGH", 2}}}}}},
	}
	return []*pFile{orders, legacy}
}
