package synth

import (
	"encoding/json"
	"fmt"
	"strings"
)

// fieldKind is the shape of one generated schema field.
type fieldKind int

const (
	kString fieldKind = iota
	kInt
	kLong
	kDouble
	kBool
	kTimestamp
	kDecimal
	kEnum
	kRecord
	kArrayRecord
	kOptString
	kMapString
)

// field is one field of a generated schema, rendered both as Avro and as Protobuf.
type field struct {
	name     string
	kind     fieldKind
	doc      string
	symbols  []string // kEnum
	children []field  // kRecord, kArrayRecord
}

// paths appends the dotted field paths of f (format spec: records by field name,
// arrays, unions and maps transparent).
func (f field) paths(prefix string, out []string) []string {
	p := prefix + f.name
	out = append(out, p)
	if f.kind == kRecord || f.kind == kArrayRecord {
		for _, c := range f.children {
			out = c.paths(p+".", out)
		}
	}
	return out
}

// camel turns "order-created_12" into "OrderCreated12".
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '-' || r == '_' || r == '.' {
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

func ident(s string) string { return strings.NewReplacer("-", "_", ".", "_").Replace(s) }

// ---- Avro ----

type avroField struct {
	Name    string `json:"name"`
	Type    any    `json:"type"`
	Doc     string `json:"doc,omitempty"`
	Default any    `json:"default,omitempty"`
	hasNull bool
}

// MarshalJSON writes "default": null for optional fields (omitempty would drop it).
func (f avroField) MarshalJSON() ([]byte, error) {
	type plain avroField
	b, err := json.Marshal(plain(f))
	if err != nil || !f.hasNull {
		return b, err
	}
	return append(b[:len(b)-1], []byte(`,"default":null}`)...), nil
}

type avroRecord struct {
	Type      string      `json:"type"`
	Name      string      `json:"name"`
	Namespace string      `json:"namespace,omitempty"`
	Doc       string      `json:"doc,omitempty"`
	Fields    []avroField `json:"fields"`
}

func avroType(f field, typePrefix string) any {
	switch f.kind {
	case kString:
		return "string"
	case kInt:
		return "int"
	case kLong:
		return "long"
	case kDouble:
		return "double"
	case kBool:
		return "boolean"
	case kTimestamp:
		return map[string]string{"type": "long", "logicalType": "timestamp-millis"}
	case kDecimal:
		return map[string]any{"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}
	case kEnum:
		return map[string]any{"type": "enum", "name": typePrefix + camel(f.name), "symbols": f.symbols}
	case kRecord:
		return avroRec(typePrefix+camel(f.name), "", f.doc, f.children, typePrefix+camel(f.name)+"_")
	case kArrayRecord:
		return map[string]any{"type": "array", "items": avroRec(typePrefix+camel(f.name)+"Item", "", "", f.children, typePrefix+camel(f.name)+"_")}
	case kOptString:
		return []string{"null", "string"}
	case kMapString:
		return map[string]string{"type": "map", "values": "string"}
	}
	panic("unknown kind")
}

func avroRec(name, namespace, doc string, fields []field, typePrefix string) avroRecord {
	r := avroRecord{Type: "record", Name: name, Namespace: namespace, Doc: doc, Fields: []avroField{}}
	for _, f := range fields {
		af := avroField{Name: f.name, Type: avroType(f, typePrefix), Doc: f.doc}
		if f.kind == kOptString {
			af.hasNull = true
		}
		r.Fields = append(r.Fields, af)
	}
	return r
}

func renderAvro(s *subject) []byte {
	rec := avroRec(camel(s.name), "acme."+ident(s.domain), s.docText(), s.allFields(), "")
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// ---- Protobuf ----

// CommonProtoPath is the shared proto every generated Protobuf subject imports (import
// paths are relative to contracts/).
const CommonProtoPath = "common/types/common.proto"

const commonProto = `syntax = "proto3";

package acme.common;

// Money is an amount in a currency (units + nanos, as google.type.Money).
message Money {
  // ISO 4217 currency code.
  string currency_code = 1;
  // Whole units of the amount.
  int64 units = 2;
  // Billionths of a unit.
  int32 nanos = 3;
}

// Address is a postal address.
message Address {
  string country = 1;
  string city = 2;
  string postal_code = 3;
}
`

func protoScalar(f field) string {
	switch f.kind {
	case kString:
		return "string"
	case kInt:
		return "int32"
	case kLong:
		return "int64"
	case kDouble:
		return "double"
	case kBool:
		return "bool"
	case kTimestamp:
		return "google.protobuf.Timestamp"
	case kDecimal:
		return "acme.common.Money"
	case kOptString:
		return "string"
	}
	return ""
}

func writeProtoMessage(b *strings.Builder, name, doc string, fields []field, indent string) {
	if doc != "" {
		fmt.Fprintf(b, "%s// %s\n", indent, doc)
	}
	fmt.Fprintf(b, "%smessage %s {\n", indent, name)
	in := indent + "  "
	for _, f := range fields {
		switch f.kind {
		case kEnum:
			en := camel(f.name)
			up := strings.ToUpper(ident(f.name))
			fmt.Fprintf(b, "%senum %s {\n%s  %s_UNSPECIFIED = 0;\n", in, en, in, up)
			for i, s := range f.symbols {
				fmt.Fprintf(b, "%s  %s_%s = %d;\n", in, up, s, i+1)
			}
			fmt.Fprintf(b, "%s}\n", in)
		case kRecord, kArrayRecord:
			writeProtoMessage(b, camel(f.name), f.doc, f.children, in)
		}
	}
	for i, f := range fields {
		n := i + 1
		if f.doc != "" {
			fmt.Fprintf(b, "%s// %s\n", in, f.doc)
		}
		switch f.kind {
		case kEnum:
			fmt.Fprintf(b, "%s%s %s = %d;\n", in, camel(f.name), f.name, n)
		case kRecord:
			fmt.Fprintf(b, "%s%s %s = %d;\n", in, camel(f.name), f.name, n)
		case kArrayRecord:
			fmt.Fprintf(b, "%srepeated %s %s = %d;\n", in, camel(f.name), f.name, n)
		case kMapString:
			fmt.Fprintf(b, "%smap<string, string> %s = %d;\n", in, f.name, n)
		case kOptString:
			fmt.Fprintf(b, "%soptional string %s = %d;\n", in, f.name, n)
		default:
			fmt.Fprintf(b, "%s%s %s = %d;\n", in, protoScalar(f), f.name, n)
		}
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

func renderProto(s *subject) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = \"proto3\";\n\npackage %s;\n\n", s.protoPackage())
	fmt.Fprintf(&b, "import %q;\nimport \"google/protobuf/timestamp.proto\";\n\n", CommonProtoPath)
	writeProtoMessage(&b, camel(s.name), s.docText(), s.allFields(), "")
	return []byte(b.String())
}
