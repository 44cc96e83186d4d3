package protobuf

import (
	"cmp"
	"maps"
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// pair is an element of the previous schema and its match in the current one.
type pair[T any] struct{ prev, cur T }

// pairs holds every matched element of two schemas, computed once per check: files by
// path, messages and enums by full name, fields by number within paired messages,
// enum values by number within paired enums, methods by name within paired services.
type pairs struct {
	files      []pair[protoreflect.FileDescriptor]
	messages   []pair[protoreflect.MessageDescriptor]
	fields     []pair[protoreflect.FieldDescriptor]
	enums      []pair[protoreflect.EnumDescriptor]
	enumValues []pair[[]protoreflect.EnumValueDescriptor]
	methods    []pair[protoreflect.MethodDescriptor]
}

// moduleFiles returns the file and its imports, leaving out the well-known types: the
// files buf would see in a module holding the schema and what it imports.
func moduleFiles(s *Schema) map[string]protoreflect.FileDescriptor {
	out := map[string]protoreflect.FileDescriptor{}
	var walk func(f protoreflect.FileDescriptor)
	walk = func(f protoreflect.FileDescriptor) {
		if _, ok := out[f.Path()]; ok || (isWellKnown(f.Path()) && f.Path() != s.path) {
			return
		}
		out[f.Path()] = f
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			walk(imps.Get(i).FileDescriptor)
		}
	}
	walk(s.file)
	return out
}

func pairUp(prev, next *Schema) *pairs {
	ps := &pairs{}
	pf, nf := moduleFiles(prev), moduleFiles(next)
	pm, nm := map[protoreflect.FullName]protoreflect.MessageDescriptor{}, map[protoreflect.FullName]protoreflect.MessageDescriptor{}
	pe, ne := map[protoreflect.FullName]protoreflect.EnumDescriptor{}, map[protoreflect.FullName]protoreflect.EnumDescriptor{}
	psv, nsv := map[protoreflect.FullName]protoreflect.ServiceDescriptor{}, map[protoreflect.FullName]protoreflect.ServiceDescriptor{}
	for _, f := range pf {
		collect(f, pm, pe, psv)
	}
	for _, f := range nf {
		collect(f, nm, ne, nsv)
	}
	ps.files = matched(pf, nf)
	ps.messages = matched(pm, nm)
	for _, p := range ps.messages {
		pfs, cix := p.prev.Fields(), indexFields(p.cur.Fields())
		for i := 0; i < pfs.Len(); i++ {
			if cf := cix.ByNumber(pfs.Get(i).Number()); cf != nil {
				ps.fields = append(ps.fields, pair[protoreflect.FieldDescriptor]{pfs.Get(i), cf})
			}
		}
	}
	ps.enums = matched(pe, ne)
	for _, p := range ps.enums {
		pv, cv := valuesByNumber(p.prev), valuesByNumber(p.cur)
		for _, n := range sortedKeys(pv) {
			if c, ok := cv[n]; ok {
				ps.enumValues = append(ps.enumValues, pair[[]protoreflect.EnumValueDescriptor]{pv[n], c})
			}
		}
	}
	for _, p := range matched(psv, nsv) {
		ms := p.prev.Methods()
		for i := 0; i < ms.Len(); i++ {
			if cm := p.cur.Methods().ByName(ms.Get(i).Name()); cm != nil {
				ps.methods = append(ps.methods, pair[protoreflect.MethodDescriptor]{ms.Get(i), cm})
			}
		}
	}
	return ps
}

// run applies one rule to every pair of the kind it handles.
func (ps *pairs) run(r rule, rep *report) {
	switch {
	case r.file != nil:
		each(rep, ps.files, r.file)
	case r.message != nil:
		each(rep, ps.messages, r.message)
	case r.field != nil:
		each(rep, ps.fields, r.field)
	case r.enum != nil:
		each(rep, ps.enums, r.enum)
	case r.enumValues != nil:
		each(rep, ps.enumValues, r.enumValues)
	case r.method != nil:
		each(rep, ps.methods, r.method)
	}
}

// each applies a rule's handler to every pair.
func each[T any](rep *report, ps []pair[T], handle func(*report, T, T)) {
	for _, p := range ps {
		handle(rep, p.prev, p.cur)
	}
}

// matched pairs the elements both maps hold under the same key, in key order.
func matched[K ~string, V any](prev, cur map[K]V) []pair[V] {
	var out []pair[V]
	for _, k := range sortedKeys(prev) {
		if c, ok := cur[k]; ok {
			out = append(out, pair[V]{prev[k], c})
		}
	}
	return out
}

func collect(f protoreflect.FileDescriptor, msgs map[protoreflect.FullName]protoreflect.MessageDescriptor, enums map[protoreflect.FullName]protoreflect.EnumDescriptor, svcs map[protoreflect.FullName]protoreflect.ServiceDescriptor) {
	var walk func(ms protoreflect.MessageDescriptors, es protoreflect.EnumDescriptors)
	walk = func(ms protoreflect.MessageDescriptors, es protoreflect.EnumDescriptors) {
		for i := 0; i < es.Len(); i++ {
			enums[es.Get(i).FullName()] = es.Get(i)
		}
		for i := 0; i < ms.Len(); i++ {
			md := ms.Get(i)
			msgs[md.FullName()] = md
			walk(md.Messages(), md.Enums())
		}
	}
	walk(f.Messages(), f.Enums())
	ss := f.Services()
	for i := 0; i < ss.Len(); i++ {
		svcs[ss.Get(i).FullName()] = ss.Get(i)
	}
}

func valuesByNumber(e protoreflect.EnumDescriptor) map[protoreflect.EnumNumber][]protoreflect.EnumValueDescriptor {
	out := map[protoreflect.EnumNumber][]protoreflect.EnumValueDescriptor{}
	vs := e.Values()
	for i := 0; i < vs.Len(); i++ {
		out[vs.Get(i).Number()] = append(out[vs.Get(i).Number()], vs.Get(i))
	}
	return out
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K { return slices.Sorted(maps.Keys(m)) }
