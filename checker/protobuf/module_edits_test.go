package protobuf

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// fieldNamed returns a message's field by name and its index, or nil and -1.
func fieldNamed(msg *pMsg, name string) (*pField, int) {
	for i, f := range msg.fields {
		if f.name == name {
			return f, i
		}
	}
	return nil, -1
}

// onField applies fn to the main message's field of that name, when there is one.
func onField(name string, fn func(msg *pMsg, fd *pField, i int) bool) func(m *mfModule, f *mfFile, r *rand.Rand) bool {
	return func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		fd, i := fieldNamed(f.p.msgs[0], name)
		return fd != nil && fn(f.p.msgs[0], fd, i)
	}
}

// stateEnum returns the file's top-level enum when it is still there.
func stateEnum(f *mfFile) *pEnum {
	for _, e := range f.p.enums {
		if e.name == upper(f.name)+"State" {
			return e
		}
	}
	return nil
}

func onState(fn func(e *pEnum, prefix string) bool) func(m *mfModule, f *mfFile, r *rand.Rand) bool {
	return func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		e := stateEnum(f)
		return e != nil && fn(e, strings.ToUpper(f.name)+"_STATE_")
	}
}

// moveTop moves a top-level message or enum of f (by name) to another file of the
// module, renaming it wherever it is named.
func moveTop(typeName string, enum bool) func(m *mfModule, f *mfFile, r *rand.Rand) bool {
	return func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		name := upper(f.name) + typeName
		others := slices.DeleteFunc(slices.Clone(m.files), func(o *mfFile) bool { return o == f })
		to := others[r.IntN(len(others))]
		if enum {
			i := slices.IndexFunc(f.p.enums, func(e *pEnum) bool { return e.name == name })
			if i < 0 {
				return false
			}
			to.p.enums = append(to.p.enums, f.p.enums[i])
			f.p.enums = slices.Delete(f.p.enums, i, i+1)
		} else {
			i := slices.IndexFunc(f.p.msgs, func(msg *pMsg) bool { return msg.name == name })
			if i < 0 {
				return false
			}
			to.p.msgs = append(to.p.msgs, f.p.msgs[i])
			f.p.msgs = slices.Delete(f.p.msgs, i, i+1)
		}
		m.rewriteRefs("."+f.p.pkg+"."+name, "."+to.p.pkg+"."+name)
		return true
	}
}

// moduleEdits are the changes applied to one file of a generated module.
var moduleEdits = []moduleEdit{
	// oneofs
	{"oneof_add_field", onField("email", func(msg *pMsg, fd *pField, i int) bool {
		msg.fields = slices.Insert(msg.fields, i+1, &pField{typ: "bool", name: "flag", num: 41, oneof: fd.oneof})
		return true
	})},
	{"oneof_move_in", onField("count", func(msg *pMsg, fd *pField, i int) bool { fd.oneof = "choice"; return true })},
	{"oneof_move_out", onField("email", func(msg *pMsg, fd *pField, i int) bool { fd.oneof = ""; return true })},
	{"oneof_rename", onField("email", func(msg *pMsg, fd *pField, i int) bool {
		for _, g := range msg.fields {
			if g.oneof == "choice" {
				g.oneof = "choice_v2"
			}
		}
		return true
	})},
	{"oneof_delete_field", onField("code", func(msg *pMsg, fd *pField, i int) bool {
		msg.fields = slices.Delete(msg.fields, i, i+1)
		return true
	})},
	// maps
	{"map_value_type", onField("labels", func(msg *pMsg, fd *pField, i int) bool {
		fd.typ = map[bool]string{true: "map<string, int64>", false: "map<string, sint32>"}[strings.Contains(fd.typ, "string>")]
		return true
	})},
	{"map_key_type", onField("labels", func(msg *pMsg, fd *pField, i int) bool {
		fd.typ = strings.Replace(fd.typ, "map<string,", "map<int64,", 1)
		return true
	})},
	{"map_to_repeated", onField("labels", func(msg *pMsg, fd *pField, i int) bool {
		fd.typ, fd.label = "string", "repeated"
		return true
	})},
	{"map_ref_value_type", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		for _, fd := range f.p.msgs[0].fields {
			if strings.HasPrefix(fd.name, "ref_") && strings.HasPrefix(fd.typ, "map<") {
				fd.typ = "map<string, string>"
				return true
			}
		}
		return false
	}},
	// proto3 optional
	{"optional_remove", onField("note", func(msg *pMsg, fd *pField, i int) bool { fd.label = ""; return true })},
	{"optional_add", onField("count", func(msg *pMsg, fd *pField, i int) bool { fd.label = "optional"; return true })},
	// reserved ranges and names
	{"reserved_drop_range", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		f.p.msgs[0].reserved = slices.DeleteFunc(f.p.msgs[0].reserved, func(s string) bool { return s == "20 to 25" })
		return true
	}},
	{"reserved_shrink_range", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		f.p.msgs[0].reserved[0] = "20 to 22"
		return true
	}},
	{"reserved_drop_name", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		f.p.msgs[0].reserved = slices.DeleteFunc(f.p.msgs[0].reserved, func(s string) bool { return s == `"legacy"` })
		return true
	}},
	{"field_delete", onField("tags", func(msg *pMsg, fd *pField, i int) bool {
		msg.fields = slices.Delete(msg.fields, i, i+1)
		return true
	})},
	{"field_delete_reserved", onField("count", func(msg *pMsg, fd *pField, i int) bool {
		msg.fields = slices.Delete(msg.fields, i, i+1)
		msg.reserved = append(msg.reserved, fmt.Sprint(fd.num), fmt.Sprintf("%q", fd.name))
		return true
	})},
	{"field_delete_in_range", onField("note", func(msg *pMsg, fd *pField, i int) bool {
		msg.fields = slices.Delete(msg.fields, i, i+1)
		msg.reserved[0] = "3, 20 to 25"
		return true
	})},
	{"enum_reserved_drop", onState(func(e *pEnum, _ string) bool { e.reserved = nil; return true })},
	// nested types
	{"nested_field_type", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		f.p.msgs[0].nested[0].fields[1].typ = "string"
		return true
	}},
	{"nested_rename", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		old := "." + f.p.pkg + "." + f.p.msgs[0].name + ".Detail"
		f.p.msgs[0].nested[0].name = "Details"
		m.rewriteRefs(old, old+"s")
		return true
	}},
	{"nested_to_top", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		main := f.p.msgs[0]
		d := main.nested[0]
		main.nested = nil
		f.p.msgs = append(f.p.msgs, d)
		m.rewriteRefs("."+f.p.pkg+"."+main.name+".Detail", "."+f.p.pkg+".Detail")
		return true
	}},
	{"nested_enum_rename_value", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		f.p.msgs[0].enums[0].values[1].name = "KIND_ALPHA"
		return true
	}},
	{"nested_enum_delete_value", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		e := f.p.msgs[0].enums[0]
		e.values = e.values[:2]
		return true
	}},
	// enums with aliases
	{"enum_alias_add", onState(func(e *pEnum, prefix string) bool {
		e.allowAlias = true
		e.values = append(e.values, pValue{prefix + "FINISHED", 2})
		return true
	})},
	{"enum_alias_remove", onState(func(e *pEnum, prefix string) bool {
		i := slices.Index(e.values, pValue{prefix + "ON", 1})
		if i < 0 {
			return false
		}
		e.values = slices.Delete(e.values, i, i+1)
		e.allowAlias = false
		return true
	})},
	{"enum_alias_replace", onState(func(e *pEnum, prefix string) bool {
		i := slices.Index(e.values, pValue{prefix + "ACTIVE", 1})
		if i < 0 || !e.allowAlias {
			return false
		}
		e.values = slices.Delete(e.values, i, i+1)
		e.allowAlias = false
		return true
	})},
	{"enum_value_rename", onState(func(e *pEnum, prefix string) bool {
		e.values[len(e.values)-1].name = prefix + "COMPLETE"
		return true
	})},
	{"enum_value_renumber", onState(func(e *pEnum, prefix string) bool {
		e.values[len(e.values)-1].num = 7
		return true
	})},
	{"enum_values_swap", onState(func(e *pEnum, prefix string) bool {
		n := len(e.values)
		e.values[n-1].num, e.values[n-2].num = e.values[n-2].num, e.values[n-1].num
		return true
	})},
	{"enum_value_delete_reserved", onState(func(e *pEnum, prefix string) bool {
		v := e.values[len(e.values)-1]
		e.values = e.values[:len(e.values)-1]
		e.reserved = append(e.reserved, fmt.Sprint(v.num), fmt.Sprintf("%q", v.name))
		return true
	})},
	// json_name
	{"json_name_add", onField("id", func(msg *pMsg, fd *pField, i int) bool { fd.jsonName = "identifier"; return true })},
	{"json_name_default", onField("tags", func(msg *pMsg, fd *pField, i int) bool {
		if fd.jsonName == "" {
			fd.jsonName = "tags"
			return true
		}
		fd.jsonName = ""
		return true
	})},
	{"json_name_change", onField("tags", func(msg *pMsg, fd *pField, i int) bool {
		if fd.jsonName == "" {
			return false
		}
		fd.jsonName = "tagNames"
		return true
	})},
	{"field_rename_keep_json", onField("count", func(msg *pMsg, fd *pField, i int) bool {
		fd.name, fd.jsonName = "total", "count"
		return true
	})},
	// packages and types moved between files
	{"package_rename", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		old := f.p.pkg
		f.p.pkg = f.name + ".v2"
		m.rewriteRefs("."+old, "."+f.p.pkg)
		return true
	}},
	{"move_message", moveTop("Part", false)},
	{"move_enum", moveTop("State", true)},
	{"ref_retarget", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		for _, fd := range f.p.msgs[0].fields {
			if t := refOf(fd.typ); strings.HasPrefix(fd.name, "ref_") && strings.HasSuffix(t, "Part") {
				fd.typ = strings.Replace(fd.typ, t, strings.TrimSuffix(t, "Part"), 1)
				return true
			}
		}
		return false
	}},
	// services
	{"rpc_request_type", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		if len(f.p.svcs) == 0 {
			return false
		}
		f.p.svcs[0].methods[0].in = "." + f.p.pkg + "." + f.p.msgs[0].name
		return true
	}},
	{"rpc_response_imported", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		if len(f.p.svcs) == 0 || len(f.deps) == 0 {
			return false
		}
		to := m.file(f.deps[0])
		f.p.svcs[0].methods[1].out = "." + to.p.pkg + "." + upper(to.name)
		return true
	}},
	{"rpc_streaming", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		if len(f.p.svcs) == 0 {
			return false
		}
		f.p.svcs[0].methods[0].cs = true
		f.p.svcs[0].methods[1].ss = false
		return true
	}},
	{"rpc_idempotency", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		if len(f.p.svcs) == 0 {
			return false
		}
		f.p.svcs[0].methods[0].idempotency = "NO_SIDE_EFFECTS"
		return true
	}},
	{"rpc_delete", func(m *mfModule, f *mfFile, r *rand.Rand) bool {
		if len(f.p.svcs) == 0 {
			return false
		}
		f.p.svcs[0].methods = f.p.svcs[0].methods[:1]
		return true
	}},
	// well-known types
	{"wkt_change", onField("at", func(msg *pMsg, fd *pField, i int) bool {
		fd.typ = map[bool]string{true: ".google.protobuf.Duration", false: ".google.protobuf.Timestamp"}[fd.typ != ".google.protobuf.Duration"]
		return true
	})},
	{"wkt_to_scalar", onField("at", func(msg *pMsg, fd *pField, i int) bool {
		fd.typ = map[bool]string{true: "string", false: "int64"}[fd.typ == ".google.protobuf.StringValue"]
		return true
	})},
	{"wkt_repeated", onField("at", func(msg *pMsg, fd *pField, i int) bool { fd.label = "repeated"; return true })},
}
