package protobuf

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// wireView is a message as the registry's parser sees it: top-level fields, real
// oneofs (synthetic proto3-optional oneofs are plain fields) and every field by number.
type wireView struct {
	top     map[int32]protoreflect.FieldDescriptor
	all     map[int32]protoreflect.FieldDescriptor
	oneofs  map[string]protoreflect.OneofDescriptor
	oneofOf map[int32]string
}

func realOneof(fd protoreflect.FieldDescriptor) protoreflect.OneofDescriptor {
	if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
		return od
	}
	return nil
}

func newWireView(md protoreflect.MessageDescriptor) wireView {
	w := wireView{
		top:     map[int32]protoreflect.FieldDescriptor{},
		all:     map[int32]protoreflect.FieldDescriptor{},
		oneofs:  map[string]protoreflect.OneofDescriptor{},
		oneofOf: map[int32]string{},
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		n := int32(fd.Number())
		w.all[n] = fd
		if od := realOneof(fd); od != nil {
			w.oneofs[string(od.Name())] = od
			w.oneofOf[n] = string(od.Name())
			continue
		}
		w.top[n] = fd
	}
	return w
}

// oneofFields returns a oneof's members by number.
func oneofFields(od protoreflect.OneofDescriptor) map[int32]protoreflect.FieldDescriptor {
	out := map[int32]protoreflect.FieldDescriptor{}
	if od == nil {
		return out
	}
	fs := od.Fields()
	for i := 0; i < fs.Len(); i++ {
		out[int32(fs.Get(i).Number())] = fs.Get(i)
	}
	return out
}

func compareMessages(c *diffCtx, o, u protoreflect.MessageDescriptor) {
	if !c.onStack[o.FullName()] {
		c.onStack[o.FullName()] = true
		compareMessageFields(c, o, u)
		delete(c.onStack, o.FullName())
	}
	compareTypeElements(c, o.Messages(), o.Enums(), u.Messages(), u.Enums())
}

func compareMessageFields(c *diffCtx, o, u protoreflect.MessageDescriptor) {
	ow, uw := newWireView(o), newWireView(u)

	// A oneof removed by name with none of its members left anywhere is a complete
	// deletion: compatible, its members are not reported one by one.
	deleted := map[string]bool{}
	for name, od := range ow.oneofs {
		if _, ok := uw.oneofs[name]; ok {
			continue
		}
		survives := false
		for n := range oneofFields(od) {
			_, in := uw.all[n]
			survives = survives || in
		}
		deleted[name] = !survives
	}

	// New mutual exclusivity: the pre-existing members of a oneof of the update must
	// come from one group of the original (one oneof, or one top-level field).
	for _, name := range sortedKeys(uw.oneofs) {
		uo := uw.oneofs[name]
		groups := map[string]bool{}
		topLevel := 0
		fs := uo.Fields()
		for i := 0; i < fs.Len(); i++ {
			n := int32(fs.Get(i).Number())
			if on, ok := ow.oneofOf[n]; ok {
				groups["oneof:"+on] = true
			} else if _, ok := ow.all[n]; ok {
				groups["field:"+strconv.Itoa(int(n))] = true
				topLevel++
			}
		}
		if len(groups) > 1 {
			c.push(name)
			if topLevel > 1 {
				c.add(MultipleFieldsMovedToOneof, nil, uo)
			} else {
				c.add(FieldMovedToExistingOneof, nil, uo)
			}
			c.pop()
		}
	}

	for _, name := range unionKeys(ow.oneofs, uw.oneofs) {
		oo, uo := ow.oneofs[name], uw.oneofs[name]
		c.push(name)
		switch {
		case uo == nil:
			c.add(OneofRemoved, oo, nil)
		case oo == nil:
			c.add(OneofAdded, nil, uo)
		}
		c.pop()
	}

	// One pass over every field by number, wherever it lives; contents are compared
	// at the field's place in the update (`oneof/number` inside a oneof).
	for _, n := range unionKeys(ow.all, uw.all) {
		of, uf := ow.all[n], uw.all[n]
		on, un := ow.oneofOf[n], uw.oneofOf[n]
		tag := strconv.Itoa(int(n))
		switch {
		case uf == nil && on != "":
			if !deleted[on] {
				c.path = append(c.path, on, tag)
				c.add(OneofFieldRemoved, of, uw.oneofs[on])
				c.path = c.path[:len(c.path)-2]
			}
		case uf == nil:
			c.push(tag)
			if of.Cardinality() == protoreflect.Required {
				c.add(RequiredFieldRemoved, of, nil)
			} else {
				c.add(FieldRemoved, of, nil)
			}
			c.pop()
		case of == nil && un != "":
			c.path = append(c.path, un, tag)
			c.add(OneofFieldAdded, nil, uf)
			c.path = c.path[:len(c.path)-2]
		case of == nil:
			c.push(tag)
			if uf.Cardinality() == protoreflect.Required {
				c.add(RequiredFieldAdded, nil, uf)
			} else {
				c.add(FieldAdded, nil, uf)
			}
			c.pop()
		default:
			if on != "" && un == "" {
				c.push(tag)
				c.add(OneofFieldMovedToTopLevel, of, uf)
				c.pop()
			}
			if un != "" {
				c.push(un)
			}
			c.push(tag)
			compareFields(c, of, uf)
			c.pop()
			if un != "" {
				c.pop()
			}
		}
	}
}

// wireLabel is the label written in the source as the registry's parser reads it:
// "" for none (proto3 singular, oneof members, maps).
func wireLabel(fd protoreflect.FieldDescriptor) string {
	if realOneof(fd) != nil || fd.IsMap() {
		return ""
	}
	switch fd.Cardinality() {
	case protoreflect.Repeated:
		return "repeated"
	case protoreflect.Required:
		return "required"
	}
	if fd.ParentFile().Syntax() == protoreflect.Proto3 && !fd.HasOptionalKeyword() {
		return ""
	}
	return "optional"
}

// typeKind is the registry's coarse classification of a field type.
type typeKind int

const (
	scalarType typeKind = iota
	messageType
	mapType
)

// fieldType is a field's type as the registry compares it.
type fieldType struct {
	kind     typeKind
	scalar   protoreflect.Kind // for scalars (EnumKind for enums)
	msg      protoreflect.MessageDescriptor
	key, val *fieldType
}

func typeOf(fd protoreflect.FieldDescriptor) fieldType {
	if fd.IsMap() {
		k, v := typeOf(fd.MapKey()), typeOf(fd.MapValue())
		return fieldType{kind: mapType, key: &k, val: &v}
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return fieldType{kind: messageType, msg: fd.Message()}
	}
	return fieldType{kind: scalarType, scalar: fd.Kind()}
}

// scalarGroup groups scalars whose encodings the registry treats as interchangeable.
func scalarGroup(k protoreflect.Kind) string {
	switch k {
	case protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Int64Kind,
		protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.BoolKind:
		return "GENERAL_NUMBER"
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return "SIGNED_NUMBER"
	case protoreflect.StringKind, protoreflect.BytesKind:
		return "STRING_OR_BYTES"
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return "FIXED32"
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return "FIXED64"
	case protoreflect.FloatKind:
		return "FLOAT"
	case protoreflect.DoubleKind:
		return "DOUBLE"
	}
	return k.String()
}

func compareFields(c *diffCtx, o, u protoreflect.FieldDescriptor) {
	if o.Name() != u.Name() {
		c.add(FieldNameChanged, o, u)
	}
	compareTypes(c, wireLabel(o), wireLabel(u), typeOf(o), typeOf(u), o, u)
}

func compareTypes(c *diffCtx, ol, ul string, ot, ut fieldType, o, u protoreflect.FieldDescriptor) {
	if ot.kind != ut.kind {
		c.add(FieldKindChanged, o, u)
		return
	}
	switch ot.kind {
	case scalarType:
		og, ug := scalarGroup(ot.scalar), scalarGroup(ut.scalar)
		if og != ug {
			c.add(FieldScalarKindChanged, o, u)
			return
		}
		if ol != "" && ul != "" && ol != ul {
			if og == "STRING_OR_BYTES" {
				c.add(FieldStringOrBytesLabel, o, u)
			} else {
				c.add(FieldNumericLabelChanged, o, u)
			}
		}
	case messageType:
		compareMessageTypes(c, ot.msg, ut.msg, o, u)
	case mapType:
		compareTypes(c, "", "", *ot.key, *ut.key, o, u)
		compareTypes(c, "", "", *ot.val, *ut.val, o, u)
	}
}

// localName is a message's name without its file's package: `outer.GoogleHome`.
func localName(md protoreflect.MessageDescriptor) string {
	full := string(md.FullName())
	if pkg := string(md.ParentFile().Package()); pkg != "" {
		return strings.TrimPrefix(full, pkg+".")
	}
	return full
}

func compareMessageTypes(c *diffCtx, om, um protoreflect.MessageDescriptor, o, u protoreflect.FieldDescriptor) {
	ol, ul := localName(om), localName(um)
	if ol != ul {
		c.add(FieldNamedTypeChanged, o, u)
		return
	}
	if om.ParentFile().Path() == c.origFile.Path() && um.ParentFile().Path() == c.updFile.Path() {
		return // both declared in the compared files: compared on their own
	}
	key := [2]protoreflect.FullName{om.FullName(), um.FullName()}
	compatible, done := c.compared[key]
	if !done {
		sub := c.sub(strings.Split(ol, "."))
		compareMessages(sub, om, um)
		c.diffs = append(c.diffs, sub.diffs...)
		compatible = sub.compatible()
		if !c.onStack[om.FullName()] {
			c.compared[key] = compatible
		}
	}
	if !compatible {
		c.add(FieldNamedTypeChanged, o, u)
	}
}
