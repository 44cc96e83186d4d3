package protobuf

import (
	"math"
	"math/big"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Source paths inside a FieldDescriptorProto.
var (
	fieldNamePath     = []int32{1}
	fieldTypePath     = []int32{5}
	fieldTypeNamePath = []int32{6}
	fieldDefaultPath  = []int32{7}
	fieldJSONNamePath = []int32{10}
)

var fieldSameName = rule{
	id:      "FIELD_SAME_NAME",
	purpose: "A field keeps its name, since JSON and text formats address fields by name.",
	field: func(r *report, prev, cur protoreflect.FieldDescriptor) {
		if prev.Name() != cur.Name() {
			r.add(cur, prev, fieldNamePath, "Field \"%d\" on message %q changed name from %q to %q; keep the old name.", cur.Number(), cur.Parent().Name(), prev.Name(), cur.Name())
		}
	},
}

var fieldSameJSONName = rule{
	id:      "FIELD_SAME_JSON_NAME",
	purpose: "A field keeps its JSON name, since JSON readers look fields up by it.",
	field: func(r *report, prev, cur protoreflect.FieldDescriptor) {
		if prev.JSONName() != cur.JSONName() {
			r.add(cur, prev, fieldJSONNamePath, "Field \"%d\" with name %q on message %q changed option \"json_name\" from %q to %q; set json_name = %q.", cur.Number(), cur.Name(), cur.Parent().Name(), prev.JSONName(), cur.JSONName(), prev.JSONName())
		}
	},
}

var fieldSameOneof = rule{
	id:      "FIELD_SAME_ONEOF",
	purpose: "A field stays inside or outside the same oneof, since oneof membership changes what can be set together.",
	field: func(r *report, prev, cur protoreflect.FieldDescriptor) {
		po, co := realOneof(prev), realOneof(cur)
		switch {
		case po == nil && co == nil:
		case po != nil && co != nil:
			if po.Name() != co.Name() {
				r.add(cur, prev, nil, "Field \"%d\" with name %q on message %q moved from oneof %q to oneof %q.", cur.Number(), cur.Name(), cur.Parent().Name(), po.Name(), co.Name())
			}
		case co != nil:
			r.add(cur, prev, nil, "Field \"%d\" with name %q on message %q moved from outside to inside a oneof.", cur.Number(), cur.Name(), cur.Parent().Name())
		default:
			r.add(cur, prev, nil, "Field \"%d\" with name %q on message %q moved from inside to outside a oneof.", cur.Number(), cur.Name(), cur.Parent().Name())
		}
	},
}

// cardinality is buf's view of how many values a field holds and its presence.
type cardinality int

const (
	cardinalityOptionalExplicit cardinality = iota + 1
	cardinalityOptionalImplicit
	cardinalityRequired
	cardinalityRepeated
	cardinalityMap
)

func (c cardinality) String() string {
	return [...]string{"", "optional with explicit presence", "optional with implicit presence", "required", "repeated", "map"}[c]
}

func cardinalityOf(fd protoreflect.FieldDescriptor) cardinality {
	switch {
	case fd.IsList():
		return cardinalityRepeated
	case fd.IsMap():
		return cardinalityMap
	case fd.Cardinality() == protoreflect.Required:
		return cardinalityRequired
	case fd.HasPresence():
		return cardinalityOptionalExplicit
	}
	return cardinalityOptionalImplicit
}

var (
	wireCardinalityGroup     = map[cardinality]int{cardinalityOptionalExplicit: 1, cardinalityOptionalImplicit: 1, cardinalityRequired: 2, cardinalityRepeated: 3, cardinalityMap: 3}
	wireJSONCardinalityGroup = map[cardinality]int{cardinalityOptionalExplicit: 1, cardinalityOptionalImplicit: 1, cardinalityRequired: 2, cardinalityRepeated: 3, cardinalityMap: 4}
)

func cardinalityRule(id, purpose string, groups map[cardinality]int) rule {
	return rule{id: id, purpose: purpose, field: func(r *report, prev, cur protoreflect.FieldDescriptor) {
		if prev.ContainingMessage().IsMapEntry() && cur.ContainingMessage().IsMapEntry() {
			return
		}
		pc, cc := cardinalityOf(prev), cardinalityOf(cur)
		if groups[pc] != groups[cc] {
			r.add(cur, prev, nil, "Field \"%d\" with name %q on message %q changed cardinality from %q to %q.", cur.Number(), cur.Name(), cur.Parent().Name(), pc, cc)
		}
	}}
}

var fieldWireCompatibleCardinality = cardinalityRule("FIELD_WIRE_COMPATIBLE_CARDINALITY",
	"A field changes cardinality only within groups that share a wire encoding.", wireCardinalityGroup)

var fieldWireJSONCompatibleCardinality = cardinalityRule("FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY",
	"A field changes cardinality only within groups that share both the wire and the JSON encoding.", wireJSONCardinalityGroup)

var (
	wireTypeGroup = map[protoreflect.Kind]int{
		protoreflect.Int32Kind: 1, protoreflect.Int64Kind: 1, protoreflect.Uint32Kind: 1, protoreflect.Uint64Kind: 1, protoreflect.BoolKind: 1,
		protoreflect.Sint32Kind: 2, protoreflect.Sint64Kind: 2,
		protoreflect.StringKind: 3, protoreflect.BytesKind: 4,
		protoreflect.Fixed32Kind: 5, protoreflect.Sfixed32Kind: 5,
		protoreflect.Fixed64Kind: 6, protoreflect.Sfixed64Kind: 6,
		protoreflect.DoubleKind: 7, protoreflect.FloatKind: 8,
		protoreflect.GroupKind: 9, protoreflect.MessageKind: 10, protoreflect.EnumKind: 11,
	}
	wireJSONTypeGroup = map[protoreflect.Kind]int{
		protoreflect.Int32Kind: 1, protoreflect.Uint32Kind: 1,
		protoreflect.Int64Kind: 2, protoreflect.Uint64Kind: 2,
		protoreflect.Fixed32Kind: 3, protoreflect.Sfixed32Kind: 3,
		protoreflect.Fixed64Kind: 4, protoreflect.Sfixed64Kind: 4,
		protoreflect.BoolKind: 5, protoreflect.Sint32Kind: 6, protoreflect.Sint64Kind: 7,
		protoreflect.StringKind: 8, protoreflect.BytesKind: 9,
		protoreflect.DoubleKind: 10, protoreflect.FloatKind: 11,
		protoreflect.GroupKind: 12, protoreflect.MessageKind: 13, protoreflect.EnumKind: 14,
	}
)

var fieldWireCompatibleType = rule{
	id:      "FIELD_WIRE_COMPATIBLE_TYPE",
	purpose: "A field changes type only to one with the same wire encoding (string may become bytes).",
	field: func(r *report, prev, cur protoreflect.FieldDescriptor) {
		if wireTypeGroup[prev.Kind()] != wireTypeGroup[cur.Kind()] {
			if prev.Kind() == protoreflect.StringKind && cur.Kind() == protoreflect.BytesKind {
				return
			}
			reportTypeChange(r, prev, cur)
			return
		}
		sameNamedType(r, prev, cur)
	},
}

var fieldWireJSONCompatibleType = rule{
	id:      "FIELD_WIRE_JSON_COMPATIBLE_TYPE",
	purpose: "A field changes type only to one with the same wire and JSON encoding.",
	field: func(r *report, prev, cur protoreflect.FieldDescriptor) {
		if wireJSONTypeGroup[prev.Kind()] != wireJSONTypeGroup[cur.Kind()] {
			reportTypeChange(r, prev, cur)
			return
		}
		sameNamedType(r, prev, cur)
	},
}

func typeLocation(fd protoreflect.FieldDescriptor) []int32 {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.EnumKind, protoreflect.GroupKind:
		return fieldTypeNamePath
	}
	return fieldTypePath
}

func reportTypeChange(r *report, prev, cur protoreflect.FieldDescriptor) {
	r.add(cur, prev, typeLocation(cur), "Field \"%d\" with name %q on message %q changed type from %q to %q; see https://protobuf.dev/programming-guides/proto3/#updating for compatible changes.", cur.Number(), cur.Name(), cur.Parent().Name(), prev.Kind(), cur.Kind())
}

// sameNamedType checks that a message or enum field still names the same type (an
// enum may be replaced by one with the same short name holding all the old values).
func sameNamedType(r *report, prev, cur protoreflect.FieldDescriptor) {
	switch cur.Kind() {
	case protoreflect.EnumKind:
		pe, ce := prev.Enum(), cur.Enum()
		if pe.FullName() == ce.FullName() {
			return
		}
		if pe.Name() == ce.Name() && enumIsSubset(pe, ce) {
			return
		}
		r.add(cur, prev, fieldTypeNamePath, "Field \"%d\" with name %q on message %q changed type from %q to %q.", cur.Number(), cur.Name(), cur.Parent().Name(), pe.FullName(), ce.FullName())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if prev.Message().FullName() != cur.Message().FullName() {
			r.add(cur, prev, fieldTypeNamePath, "Field \"%d\" with name %q on message %q changed type from %q to %q.", cur.Number(), cur.Name(), cur.Parent().Name(), prev.Message().FullName(), cur.Message().FullName())
		}
	}
}

// enumIsSubset reports whether every value of sub (name and number) is in super.
func enumIsSubset(sub, super protoreflect.EnumDescriptor) bool {
	vs, sv := sub.Values(), super.Values()
	byName := make(map[protoreflect.Name]protoreflect.EnumNumber, sv.Len())
	for i := 0; i < sv.Len(); i++ {
		if _, dup := byName[sv.Get(i).Name()]; !dup {
			byName[sv.Get(i).Name()] = sv.Get(i).Number()
		}
	}
	for i := 0; i < vs.Len(); i++ {
		if n, ok := byName[vs.Get(i).Name()]; !ok || n != vs.Get(i).Number() {
			return false
		}
	}
	return true
}

var fieldSameDefault = rule{
	id:      "FIELD_SAME_DEFAULT",
	purpose: "A field keeps its default value, since readers fill absent fields with it.",
	field: func(r *report, prev, cur protoreflect.FieldDescriptor) {
		if !canHaveDefault(prev) || !canHaveDefault(cur) {
			return
		}
		pd, cd := defaultOf(prev), defaultOf(cur)
		if isZeroDefault(pd) && isZeroDefault(cd) {
			return
		}
		if !defaultsEqual(pd, cd) {
			r.add(cur, prev, fieldDefaultPath, "Field \"%d\" with name %q on message %q changed default value from %v to %v.", cur.Number(), cur.Name(), cur.Parent().Name(), pd, cd)
		}
	},
}

func canHaveDefault(fd protoreflect.FieldDescriptor) bool {
	return !fd.IsList() && !fd.IsMap() && fd.Message() == nil
}

// defaultOf returns a field's default as a comparable Go value (string for string and
// bytes, int32 for enums).
func defaultOf(fd protoreflect.FieldDescriptor) any {
	v := fd.Default()
	switch fd.Kind() {
	case protoreflect.BytesKind:
		return string(v.Bytes())
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.EnumKind:
		return int32(v.Enum())
	}
	return v.Interface()
}

func isZeroDefault(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case bool:
		return !t
	case int32:
		return t == 0
	case int64:
		return t == 0
	case uint32:
		return t == 0
	case uint64:
		return t == 0
	case float32:
		return t == 0 && !math.Signbit(float64(t))
	case float64:
		return t == 0 && !math.Signbit(t)
	}
	return v == nil
}

func defaultsEqual(a, b any) bool {
	_, as := a.(string)
	_, bs := b.(string)
	if as || bs {
		return a == b
	}
	switch af := a.(type) {
	case float32:
		if bf, ok := b.(float64); ok {
			return (math.IsNaN(float64(af)) && math.IsNaN(bf)) || af == float32(bf)
		}
	case float64:
		if bf, ok := b.(float32); ok {
			return (math.IsNaN(af) && math.IsNaN(float64(bf))) || float32(af) == bf
		}
	}
	av, aNaN := bigFloat(a)
	bv, bNaN := bigFloat(b)
	if aNaN || bNaN {
		return aNaN == bNaN
	}
	if av == nil || bv == nil {
		return a == b
	}
	return av.Cmp(bv) == 0
}

func bigFloat(v any) (*big.Float, bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return big.NewFloat(1), false
		}
		return big.NewFloat(0), false
	case int32:
		return new(big.Float).SetInt64(int64(t)), false
	case int64:
		return new(big.Float).SetInt64(t), false
	case uint32:
		return new(big.Float).SetUint64(uint64(t)), false
	case uint64:
		return new(big.Float).SetUint64(t), false
	case float32:
		if math.IsNaN(float64(t)) {
			return nil, true
		}
		return big.NewFloat(float64(t)), false
	case float64:
		if math.IsNaN(t) {
			return nil, true
		}
		return big.NewFloat(t), false
	}
	return nil, false
}
