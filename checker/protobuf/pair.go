package protobuf

import (
	"sort"

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
	for _, path := range sortedKeys(pf) {
		if cur, ok := nf[path]; ok {
			ps.files = append(ps.files, pair[protoreflect.FileDescriptor]{pf[path], cur})
		}
	}
	for _, name := range sortedKeys(pm) {
		cur, ok := nm[name]
		if !ok {
			continue
		}
		prev := pm[name]
		ps.messages = append(ps.messages, pair[protoreflect.MessageDescriptor]{prev, cur})
		pfs, cix := prev.Fields(), indexFields(cur.Fields())
		for i := 0; i < pfs.Len(); i++ {
			if cf := cix.ByNumber(pfs.Get(i).Number()); cf != nil {
				ps.fields = append(ps.fields, pair[protoreflect.FieldDescriptor]{pfs.Get(i), cf})
			}
		}
	}
	for _, name := range sortedKeys(pe) {
		cur, ok := ne[name]
		if !ok {
			continue
		}
		prev := pe[name]
		ps.enums = append(ps.enums, pair[protoreflect.EnumDescriptor]{prev, cur})
		pv, cv := valuesByNumber(prev), valuesByNumber(cur)
		for _, n := range sortedKeys(pv) {
			if c, ok := cv[n]; ok {
				ps.enumValues = append(ps.enumValues, pair[[]protoreflect.EnumValueDescriptor]{pv[n], c})
			}
		}
	}
	for _, name := range sortedKeys(psv) {
		cur, ok := nsv[name]
		if !ok {
			continue
		}
		ms := psv[name].Methods()
		for i := 0; i < ms.Len(); i++ {
			if cm := cur.Methods().ByName(ms.Get(i).Name()); cm != nil {
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
		for _, p := range ps.files {
			r.file(rep, p.prev, p.cur)
		}
	case r.message != nil:
		for _, p := range ps.messages {
			r.message(rep, p.prev, p.cur)
		}
	case r.field != nil:
		for _, p := range ps.fields {
			r.field(rep, p.prev, p.cur)
		}
	case r.enum != nil:
		for _, p := range ps.enums {
			r.enum(rep, p.prev, p.cur)
		}
	case r.enumValues != nil:
		for _, p := range ps.enumValues {
			r.enumValues(rep, p.prev, p.cur)
		}
	case r.method != nil:
		for _, p := range ps.methods {
			r.method(rep, p.prev, p.cur)
		}
	}
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

func sortedKeys[K ~string | ~int32, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
