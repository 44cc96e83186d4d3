package sample

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/hamba/avro/v2"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// printer renders the JSON Schema validator's messages.
var printer = message.NewPrinter(language.English)

// celValue turns a decoded JSON value into the values CEL reads: integers as int64,
// other numbers as float64.
func celValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = celValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = celValue(e)
		}
		return out
	}
	return v
}

// avroValue turns what hamba/avro decodes into `any` into the values CEL reads, as
// Confluent's executors see a record: a union's value without its branch name, ints
// as int64, floats as float64, decimals as doubles.
func avroValue(s avro.Schema, v any) any {
	switch t := s.(type) {
	case *avro.RefSchema:
		return avroValue(t.Schema(), v)
	case *avro.RecordSchema:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		for _, f := range t.Fields() {
			if fv, ok := m[f.Name()]; ok {
				m[f.Name()] = avroValue(f.Type(), fv)
			}
		}
		return m
	case *avro.UnionSchema:
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return v
		}
		for name, inner := range m {
			for _, b := range t.Types() {
				if branchName(b) == name || string(b.Type()) == name {
					return avroValue(b, inner)
				}
			}
			return inner
		}
	case *avro.ArraySchema:
		if a, ok := v.([]any); ok {
			for i := range a {
				a[i] = avroValue(t.Items(), a[i])
			}
		}
		return v
	case *avro.MapSchema:
		if m, ok := v.(map[string]any); ok {
			for k := range m {
				m[k] = avroValue(t.Values(), m[k])
			}
		}
		return v
	}
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case *big.Rat:
		f, _ := x.Float64()
		return f
	case time.Duration:
		return x
	}
	return v
}

// protoValue turns a Protobuf message into the values CEL reads when `message` is
// dynamic: fields by name, enums as ints (as cel-go reads them), 32-bit numbers
// widened.
func protoValue(m protoreflect.Message) map[string]any {
	out := map[string]any{}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		out[string(fd.Name())] = protoFieldValue(fd, v)
		return true
	})
	return out
}

func protoFieldValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch {
	case fd.IsMap():
		out := map[string]any{}
		v.Map().Range(func(k protoreflect.MapKey, e protoreflect.Value) bool {
			out[k.String()] = protoScalar(fd.MapValue(), e)
			return true
		})
		return out
	case fd.IsList():
		l := v.List()
		out := make([]any, l.Len())
		for i := range l.Len() {
			out[i] = protoScalar(fd, l.Get(i))
		}
		return out
	}
	return protoScalar(fd, v)
}

func protoScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return protoValue(v.Message())
	case protoreflect.EnumKind:
		return int64(v.Enum())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int()
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return v.Uint()
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float()
	}
	return v.Interface()
}

// unknownFields reports the fields a Protobuf payload carries that the schema does not
// declare (their numbers), in the message and the messages inside it.
func unknownFields(m protoreflect.Message, path string, p *problems) {
	for b := m.GetUnknown(); len(b) > 0 && !p.full(); {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			break
		}
		f := join(path, fmt.Sprintf("#%d", num))
		p.add(UndeclaredField, f, "the message carries field number %d (wire type %d)%s, which %s does not declare.", num, typ, under(path), m.Descriptor().FullName())
		b = b[n:]
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		f := join(path, string(fd.Name()))
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					unknownFields(e.Message(), f, p)
					return true
				})
			}
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				unknownFields(l.Get(i).Message(), f, p)
			}
		default:
			unknownFields(v.Message(), f, p)
		}
		return true
	})
}

// under says where a nested unknown field is.
func under(path string) string {
	if path == "" {
		return ""
	}
	return fmt.Sprintf(" in %q", path)
}
