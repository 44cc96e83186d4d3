package protobuf

import (
	"fmt"
	"strings"
)

// edit is one generated change to a schema.
type edit struct {
	name  string
	apply func(f *pFile)
}

// fieldEdits are the changes applied to one field at a time.
var fieldEdits = []struct {
	name  string
	apply func(m *pMsg, i int) bool // false: does not apply to this field
}{
	{"delete", func(m *pMsg, i int) bool { m.fields = append(m.fields[:i], m.fields[i+1:]...); return true }},
	{"delete_reserve_number", func(m *pMsg, i int) bool {
		n := m.fields[i].num
		m.fields = append(m.fields[:i], m.fields[i+1:]...)
		m.reserved = append(m.reserved, fmt.Sprint(n))
		return true
	}},
	{"delete_reserve_both", func(m *pMsg, i int) bool {
		f := m.fields[i]
		m.fields = append(m.fields[:i], m.fields[i+1:]...)
		m.reserved = append(m.reserved, fmt.Sprint(f.num), fmt.Sprintf("%q", f.name))
		return true
	}},
	{"rename", func(m *pMsg, i int) bool { m.fields[i].name += "_v2"; return true }},
	{"rename_keep_json", func(m *pMsg, i int) bool {
		f := m.fields[i]
		if f.jsonName == "" {
			f.jsonName = jsonCamel(f.name)
		}
		f.name += "_v2"
		return true
	}},
	{"json_name", func(m *pMsg, i int) bool { m.fields[i].jsonName = "renamedJson"; return true }},
	{"renumber", func(m *pMsg, i int) bool { m.fields[i].num += 100; return true }},
	{"to_int64", func(m *pMsg, i int) bool { return retype(m.fields[i], "int64") }},
	{"to_uint64", func(m *pMsg, i int) bool { return retype(m.fields[i], "uint64") }},
	{"to_sint32", func(m *pMsg, i int) bool { return retype(m.fields[i], "sint32") }},
	{"to_bytes", func(m *pMsg, i int) bool { return retype(m.fields[i], "bytes") }},
	{"to_string", func(m *pMsg, i int) bool { return retype(m.fields[i], "string") }},
	{"to_fixed32", func(m *pMsg, i int) bool { return retype(m.fields[i], "fixed32") }},
	{"to_sfixed64", func(m *pMsg, i int) bool { return retype(m.fields[i], "sfixed64") }},
	{"to_bool", func(m *pMsg, i int) bool { return retype(m.fields[i], "bool") }},
	{"to_float", func(m *pMsg, i int) bool { return retype(m.fields[i], "float") }},
	{"to_repeated", func(m *pMsg, i int) bool {
		f := m.fields[i]
		if f.label == "repeated" || f.oneof != "" || strings.HasPrefix(f.typ, "map<") || f.label == "required" {
			return false
		}
		f.label, f.def = "repeated", ""
		return true
	}},
	{"to_singular", func(m *pMsg, i int) bool {
		f := m.fields[i]
		if f.label != "repeated" {
			return false
		}
		f.label = ""
		if strings.Contains(m.name, "Event") {
			f.label = "optional"
		}
		return true
	}},
	{"into_new_oneof", func(m *pMsg, i int) bool {
		f := m.fields[i]
		if f.oneof != "" || f.label != "" && f.label != "optional" || strings.HasPrefix(f.typ, "map<") {
			return false
		}
		f.label, f.oneof = "", "choice"
		return true
	}},
	{"out_of_oneof", func(m *pMsg, i int) bool {
		if m.fields[i].oneof == "" {
			return false
		}
		m.fields[i].oneof = ""
		return true
	}},
	{"rename_oneof", func(m *pMsg, i int) bool {
		o := m.fields[i].oneof
		if o == "" {
			return false
		}
		for _, f := range m.fields {
			if f.oneof == o {
				f.oneof = o + "_v2"
			}
		}
		return true
	}},
	{"default", func(m *pMsg, i int) bool {
		f := m.fields[i]
		switch {
		case f.def != "" && f.typ == "int32":
			f.def = "7"
		case f.def != "":
			f.def = `"y"`
		default:
			return false
		}
		return true
	}},
	{"to_required", func(m *pMsg, i int) bool {
		if m.fields[i].label != "optional" || !strings.Contains(m.name, "Event") {
			return false
		}
		m.fields[i].label = "required"
		return true
	}},
	{"to_optional", func(m *pMsg, i int) bool {
		f := m.fields[i]
		if f.label == "required" {
			f.label = "optional"
			return true
		}
		if f.label == "" && f.oneof == "" && !strings.HasPrefix(f.typ, "map<") && !strings.Contains(m.name, "Event") {
			f.label = "optional"
			return true
		}
		return false
	}},
}

func retype(f *pField, typ string) bool {
	if f.typ == typ || f.label == "repeated" && (typ == "string" || typ == "bytes") || strings.HasPrefix(f.typ, "map<") {
		return false
	}
	f.typ, f.def = typ, ""
	return true
}

// jsonCamel is protoc's default JSON name.
func jsonCamel(s string) string {
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}

// fileEdits are changes to the file as a whole.
var fileEdits = []edit{
	{"package", func(f *pFile) { f.pkg += ".v2" }},
	{"add_field", func(f *pFile) {
		f.msgs[0].fields = append(f.msgs[0].fields, &pField{label: optionalFor(f), typ: "string", name: "added", num: 50})
	}},
	{"add_required_field", func(f *pFile) {
		if f.syntax == "proto2" {
			f.msgs[0].fields = append(f.msgs[0].fields, &pField{label: "required", typ: "string", name: "added", num: 50})
		}
	}},
	{"drop_reserved", func(f *pFile) { f.msgs[0].reserved = nil }},
	{"shrink_reserved", func(f *pFile) {
		if len(f.msgs[0].reserved) > 0 {
			f.msgs[0].reserved = f.msgs[0].reserved[1:]
		}
	}},
	{"delete_message", func(f *pFile) {
		if len(f.msgs) > 1 {
			f.msgs = f.msgs[:1]
			for _, fd := range f.msgs[0].fields {
				if fd.typ == "Item" {
					fd.typ = "string"
				}
			}
			for _, s := range f.svcs {
				for i := range s.methods {
					s.methods[i].in = f.msgs[0].name
				}
			}
		}
	}},
	{"rename_message", func(f *pFile) {
		if len(f.msgs) > 1 {
			old := f.msgs[1].name
			f.msgs[1].name += "V2"
			for _, fd := range f.msgs[0].fields {
				if fd.typ == old {
					fd.typ = f.msgs[1].name
				}
			}
			for _, s := range f.svcs {
				for i := range s.methods {
					if s.methods[i].in == old {
						s.methods[i].in = f.msgs[1].name
					}
				}
			}
		}
	}},
	{"nested_field_type", func(f *pFile) {
		if len(f.msgs) > 1 {
			f.msgs[1].fields[0].typ = "int64"
		}
	}},
	{"reorder_messages", func(f *pFile) {
		if len(f.msgs) > 1 {
			f.msgs[0], f.msgs[1] = f.msgs[1], f.msgs[0]
		}
	}},
	{"enum_add_value", func(f *pFile) { e := firstEnum(f); e.values = append(e.values, pValue{"NEW_VALUE", 30}) }},
	{"enum_delete_value", func(f *pFile) { e := firstEnum(f); e.values = e.values[:len(e.values)-1] }},
	{"enum_delete_value_reserved", func(f *pFile) {
		e := firstEnum(f)
		v := e.values[len(e.values)-1]
		e.values = e.values[:len(e.values)-1]
		e.reserved = append(e.reserved, fmt.Sprint(v.num))
	}},
	{"enum_delete_value_reserved_both", func(f *pFile) {
		e := firstEnum(f)
		v := e.values[len(e.values)-1]
		e.values = e.values[:len(e.values)-1]
		e.reserved = append(e.reserved, fmt.Sprint(v.num), fmt.Sprintf("%q", v.name))
	}},
	{"enum_rename_value", func(f *pFile) { e := firstEnum(f); e.values[len(e.values)-1].name += "_V2" }},
	{"enum_drop_reserved", func(f *pFile) { e := firstEnum(f); e.reserved = nil }},
	{"to_proto2", func(f *pFile) {
		if f.syntax != "proto3" {
			return
		}
		f.syntax = "proto2"
		for _, m := range f.msgs {
			for _, fd := range m.fields {
				if fd.label == "" && fd.oneof == "" && !strings.HasPrefix(fd.typ, "map<") {
					fd.label = "optional"
				}
			}
		}
	}},
	{"rpc_request", func(f *pFile) {
		if len(f.svcs) > 0 {
			f.svcs[0].methods[0].in = "Order"
		}
	}},
	{"rpc_response", func(f *pFile) {
		if len(f.svcs) > 0 {
			f.svcs[0].methods[0].out = "Item"
		}
	}},
	{"rpc_streaming", func(f *pFile) {
		if len(f.svcs) > 0 {
			f.svcs[0].methods[0].cs = true
			f.svcs[0].methods[1].ss = false
		}
	}},
	{"rpc_idempotency", func(f *pFile) {
		if len(f.svcs) > 0 {
			f.svcs[0].methods[0].idempotency = "NO_SIDE_EFFECTS"
		}
	}},
	{"map_value_type", func(f *pFile) {
		for _, fd := range f.msgs[0].fields {
			if strings.HasPrefix(fd.typ, "map<") {
				fd.typ = "map<string, int32>"
			}
		}
	}},
	{"map_to_repeated", func(f *pFile) {
		for _, fd := range f.msgs[0].fields {
			if strings.HasPrefix(fd.typ, "map<") {
				fd.typ, fd.label = "string", "repeated"
			}
		}
	}},
	{"enum_field_to_int32", func(f *pFile) {
		for _, fd := range f.msgs[0].fields {
			if fd.typ == "Status" || fd.typ == "Level" {
				fd.typ, fd.def = "int32", ""
			}
		}
	}},
}

func optionalFor(f *pFile) string {
	if f.syntax == "proto2" {
		return "optional"
	}
	return ""
}

func firstEnum(f *pFile) *pEnum {
	if len(f.enums) > 0 {
		return f.enums[0]
	}
	for _, m := range f.msgs {
		if len(m.enums) > 0 {
			return m.enums[0]
		}
	}
	panic("no enum")
}

// editCase is a generated pair of schema texts; deps are the other files of each
// side (imports), by import path.
type editCase struct {
	name               string
	prev, next         string
	prevDeps, nextDeps map[string]string
}

// files returns every file of one side, schema.proto included.
func (tc editCase) files(next bool) map[string]string {
	text, deps := tc.prev, tc.prevDeps
	if next {
		text, deps = tc.next, tc.nextDeps
	}
	out := map[string]string{"schema.proto": text}
	for k, v := range deps {
		out[k] = v
	}
	return out
}

// importedBase is a schema whose types live in an imported file (a registry
// reference); edits change the imported file only.
func importedBase() (schema string, common *pFile) {
	schema = `syntax = "proto3";
package shop.orders;
import "common.proto";

message Order {
  string id = 1;
  repeated shop.common.Item items = 2;
  shop.common.Kind kind = 3;
}
`
	common = &pFile{syntax: "proto3", pkg: "shop.common",
		msgs: []*pMsg{{name: "Item", fields: []*pField{
			{typ: "string", name: "sku", num: 1},
			{typ: "uint32", name: "qty", num: 2},
			{typ: "sint64", name: "delta", num: 3},
			{typ: "Kind", name: "kind", num: 4},
			{label: "repeated", typ: "string", name: "tags", num: 5},
		}}},
		enums: []*pEnum{{name: "Kind", values: []pValue{{"KIND_UNSPECIFIED", 0}, {"KIND_A", 1}, {"KIND_B", 2}}}},
	}
	return schema, common
}

// generatedEdits applies every field edit to every field of each base file's first
// message, and every file edit to each base file.
func generatedEdits() []editCase {
	var out []editCase
	for bi, base := range baseFiles() {
		prevText := base.render()
		for fi := range base.msgs[0].fields {
			for _, fe := range fieldEdits {
				f := base.clone()
				if !fe.apply(f.msgs[0], fi) {
					continue
				}
				out = append(out, editCase{
					name: fmt.Sprintf("base%d/%s/%s", bi, base.msgs[0].fields[fi].name, fe.name),
					prev: prevText, next: f.render(),
				})
			}
		}
		for _, e := range fileEdits {
			f := base.clone()
			e.apply(f)
			next := f.render()
			if next == prevText {
				continue
			}
			out = append(out, editCase{name: fmt.Sprintf("base%d/%s", bi, e.name), prev: prevText, next: next})
		}
	}
	schema, common := importedBase()
	prevCommon := common.render()
	add := func(name string, f *pFile) {
		out = append(out, editCase{name: "imported/" + name, prev: schema, next: schema,
			prevDeps: map[string]string{"common.proto": prevCommon}, nextDeps: map[string]string{"common.proto": f.render()}})
	}
	for fi := range common.msgs[0].fields {
		for _, fe := range fieldEdits {
			f := common.clone()
			if fe.apply(f.msgs[0], fi) {
				add(common.msgs[0].fields[fi].name+"/"+fe.name, f)
			}
		}
	}
	for _, name := range []string{"enum_add_value", "enum_delete_value", "enum_delete_value_reserved", "enum_rename_value"} {
		for _, e := range fileEdits {
			if e.name == name {
				f := common.clone()
				e.apply(f)
				add(name, f)
			}
		}
	}
	return out
}
