package protobuf

import (
	"sort"
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
	origTop := make(map[int32]protoreflect.FieldDescriptor, len(ow.top))
	for k, v := range ow.top {
		origTop[k] = v
	}

	// Membership: a oneof of the update may take in at most one field that could be
	// set together with another one before.
	oneofNames := unionKeys(ow.oneofs, uw.oneofs)
	for _, name := range oneofNames {
		uo := uw.oneofs[name]
		if uo == nil {
			continue
		}
		c.push(name)
		moved, existing := 0, 0
		from := map[string]bool{}
		fs := uo.Fields()
		for i := 0; i < fs.Len(); i++ {
			n := int32(fs.Get(i).Number())
			if _, ok := origTop[n]; ok {
				delete(origTop, n) // moved into the oneof: not a removal
				moved++
			} else if on, ok := ow.oneofOf[n]; ok {
				existing++
				from[on] = true
			}
		}
		switch {
		case moved > 1:
			c.add(MultipleFieldsMovedToOneof, nil, uo)
		case moved == 1 && existing > 0:
			c.add(FieldMovedToExistingOneof, nil, uo)
		case len(from) > 1:
			c.add(FieldMovedToExistingOneof, nil, uo)
		}
		c.pop()
	}

	for _, name := range oneofNames {
		oo, uo := ow.oneofs[name], uw.oneofs[name]
		c.push(name)
		switch {
		case uo == nil:
			c.add(OneofRemoved, oo, nil)
		case oo == nil:
			c.add(OneofAdded, nil, uo)
		}
		compareOneofs(c, ow, uw, oo, uo)
		c.pop()
	}

	for _, n := range unionInts(origTop, uw.top) {
		of, uf := origTop[n], uw.top[n]
		c.push(strconv.Itoa(int(n)))
		switch {
		case uf == nil:
			if of.Cardinality() == protoreflect.Required {
				c.add(RequiredFieldRemoved, of, nil)
			} else {
				c.add(FieldRemoved, of, nil)
			}
		case of == nil:
			switch {
			case ow.oneofOf[n] != "":
				c.add(OneofFieldMovedToTopLevel, ow.all[n], uf)
			case uf.Cardinality() == protoreflect.Required:
				c.add(RequiredFieldAdded, nil, uf)
			default:
				c.add(FieldAdded, nil, uf)
			}
		default:
			compareFields(c, of, uf)
		}
		c.pop()
	}

	// Fields whose oneof membership changed are compared by number, at their place in
	// the update.
	var common []int32
	for n := range ow.all {
		if _, ok := uw.all[n]; ok {
			common = append(common, n)
		}
	}
	sort.Slice(common, func(i, j int) bool { return common[i] < common[j] })
	for _, n := range common {
		on, un := ow.oneofOf[n], uw.oneofOf[n]
		if on == un {
			continue // both top-level, or in a same-named oneof: compared above
		}
		if un != "" {
			c.push(un)
		}
		c.push(strconv.Itoa(int(n)))
		compareFields(c, ow.all[n], uw.all[n])
		c.pop()
		if un != "" {
			c.pop()
		}
	}
}

// compareOneofs compares the members of a oneof on both sides (either may be nil).
// A member that left the oneof but lives on elsewhere was moved, not removed.
func compareOneofs(c *diffCtx, ow, uw wireView, oo, uo protoreflect.OneofDescriptor) {
	of, uf := oneofFields(oo), oneofFields(uo)
	for _, n := range unionInts(of, uf) {
		a, b := of[n], uf[n]
		c.push(strconv.Itoa(int(n)))
		switch {
		case b == nil:
			if _, ok := uw.all[n]; !ok {
				c.add(OneofFieldRemoved, a, uo)
			}
		case a == nil:
			if _, ok := ow.all[n]; !ok {
				c.add(OneofFieldAdded, oo, b)
			}
		default:
			compareFields(c, a, b)
		}
		c.pop()
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
	sub := c.sub(strings.Split(ol, "."))
	compareMessages(sub, om, um)
	c.diffs = append(c.diffs, sub.diffs...)
	if !sub.compatible() {
		c.add(FieldNamedTypeChanged, o, u)
	}
}
