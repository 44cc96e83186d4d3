package lineage

import (
	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
)

// sType is a field's type as a contract's schema gives it, in the words of the
// schema's format (Avro: int, long, decimal, timestamp-millis, record, ...; Protobuf:
// int32, message, enum, ...; JSON Schema: integer, string, object, ...), which is what
// Flink's formats map to SQL types. Nested types are resolved on demand, so a
// recursive schema costs only the paths a DDL names.
type sType struct {
	Kind             string
	Nullable         bool
	Precision, Scale int    // Avro decimal
	Name             string // record or message full name
	// Required: an Avro record field without a default that is not nullable, which a
	// writer must give.
	Required bool
	field    func(name string) (*sType, bool)
	fields   func() []*sType // with Names, in schema order (Avro records)
	FieldOf  string          // the field's name, in fields()
	elem     func() *sType
	key      func() *sType
}

// schemaRoot is the type of the values of a subject's schema; nil when its format
// gives no types (the columns are then checked by name only).
func schemaRoot(sch checker.Schema) *sType {
	switch s := sch.(type) {
	case interface{ Avro() avro.Schema }:
		return avroType(s.Avro())
	case interface {
		Record() protoreflect.MessageDescriptor
	}:
		if md := s.Record(); md != nil {
			return protoMessage(md)
		}
	case checker.ValueTyper:
		vt := s.ValueTypes()
		return jsonType(vt.Root, vt.Records)
	}
	return nil
}

func avroType(s avro.Schema) *sType {
	if r, ok := s.(*avro.RefSchema); ok {
		s = r.Schema()
	}
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		t := &sType{Kind: string(l.Logical().Type())}
		if d, ok := l.Logical().(*avro.DecimalLogicalSchema); ok {
			t.Precision, t.Scale = d.Precision(), d.Scale()
		}
		return t
	}
	switch s := s.(type) {
	case *avro.UnionSchema:
		var core []avro.Schema
		nullable := false
		for _, m := range s.Types() {
			if m.Type() == avro.Null {
				nullable = true
			} else {
				core = append(core, m)
			}
		}
		if len(core) != 1 {
			return &sType{Kind: "union", Nullable: nullable}
		}
		t := avroType(core[0])
		t.Nullable = t.Nullable || nullable
		return t
	case *avro.RecordSchema:
		fieldType := func(f *avro.Field) *sType {
			t := avroType(f.Type())
			t.FieldOf = f.Name()
			t.Required = !t.Nullable && !f.HasDefault()
			return t
		}
		return &sType{Kind: "record", Name: s.FullName(),
			field: func(name string) (*sType, bool) {
				for _, f := range s.Fields() {
					if f.Name() == name {
						return fieldType(f), true
					}
				}
				return nil, false
			},
			fields: func() []*sType {
				out := make([]*sType, len(s.Fields()))
				for i, f := range s.Fields() {
					out[i] = fieldType(f)
				}
				return out
			}}
	case *avro.ArraySchema:
		return &sType{Kind: "array", elem: func() *sType { return avroType(s.Items()) }}
	case *avro.MapSchema:
		return &sType{Kind: "map", elem: func() *sType { return avroType(s.Values()) },
			key: func() *sType { return &sType{Kind: "string"} }}
	}
	return &sType{Kind: string(s.Type())}
}

func protoMessage(md protoreflect.MessageDescriptor) *sType {
	return &sType{Kind: "message", Name: string(md.FullName()), field: func(name string) (*sType, bool) {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return nil, false
		}
		return protoField(fd), true
	}}
}

// protoField is a field's type: repeated is an array of it, a map field a map.
func protoField(fd protoreflect.FieldDescriptor) *sType {
	switch {
	case fd.IsMap():
		return &sType{Kind: "map", key: func() *sType { return protoValue(fd.MapKey()) },
			elem: func() *sType { return protoValue(fd.MapValue()) }}
	case fd.IsList():
		return &sType{Kind: "array", elem: func() *sType { return protoValue(fd) }}
	}
	return protoValue(fd)
}

func protoValue(fd protoreflect.FieldDescriptor) *sType {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return protoMessage(fd.Message())
	}
	return &sType{Kind: fd.Kind().String()}
}

// jsonType is a JSON Schema value's type as the schema's ValueTypes give it: integer
// (ValueInt), string, boolean, object (a record, or a map), array; a plain number,
// which the schema's ValueTypes do not tell from a union, is "any".
func jsonType(v checker.ValueType, recs map[string][]checker.RecordField) *sType {
	t := &sType{Nullable: v.Nullable}
	switch v.Kind {
	case checker.ValueBool:
		t.Kind = "boolean"
	case checker.ValueInt, checker.ValueUint:
		t.Kind = "integer"
	case checker.ValueString:
		t.Kind = "string"
	case checker.ValueBytes:
		t.Kind = "string"
	case checker.ValueRecord:
		t.Kind, t.Name = "object", v.Record
		t.field = func(name string) (*sType, bool) {
			for _, f := range recs[v.Record] {
				if f.Name == name {
					return jsonType(f.Type, recs), true
				}
			}
			return nil, false
		}
	case checker.ValueList:
		t.Kind = "array"
		t.elem = func() *sType { return jsonType(*v.Elem, recs) }
	case checker.ValueMap:
		t.Kind = "map"
		t.elem = func() *sType { return jsonType(*v.Elem, recs) }
		t.key = func() *sType { return &sType{Kind: "string"} }
	default:
		t.Kind = "any"
	}
	return t
}
