package sample

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hamba/avro/v2"
	sv "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// judgeJSON judges a decoded JSON value against the schema: a JSON Schema with its
// validator, an Avro or Protobuf schema through its JSON mapping.
func (d *decoder) judgeJSON(doc any, p *problems) {
	switch {
	case d.avro != nil:
		d.walkAvro(d.avro, doc, "", p)
	case d.record != nil:
		d.walkProto(d.record, doc, "", p)
	default:
		d.validateJSON(doc, p)
		d.undeclared(doc, "", p)
	}
}

// validateJSON maps the JSON Schema validator's errors onto problem kinds.
func (d *decoder) validateJSON(doc any, p *problems) {
	err := d.json.Validate(doc)
	var ve *sv.ValidationError
	if !errors.As(err, &ve) {
		return
	}
	var visit func(e *sv.ValidationError)
	visit = func(e *sv.ValidationError) {
		if p.full() {
			return
		}
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				visit(c)
			}
			return
		}
		at := instancePath(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				p.add(MissingField, join(at, m), "the required field %q is absent.", join(at, m))
			}
		case *kind.AdditionalProperties:
			for _, f := range k.Properties {
				d.reportUndeclared(join(at, f), p)
			}
		case *kind.Type:
			p.add(TypeMismatch, at, "field %q is %s where the contract says %s.", fieldName(at), article(k.Got), strings.Join(k.Want, " or "))
		default:
			p.add(InvalidValue, at, "field %q breaks the schema: %s.", fieldName(at), e.ErrorKind.LocalizedString(printer))
		}
	}
	visit(ve)
}

// fieldName names the root as "(the message)".
func fieldName(path string) string {
	if path == "" {
		return "(the message)"
	}
	return path
}

// instancePath turns a validator's instance location into a dotted field path
// (array indexes are left out, as in field paths).
func instancePath(loc []string) string {
	var parts []string
	for _, s := range loc {
		if _, err := strconv.Atoi(s); err == nil {
			continue
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ".")
}

// undeclared reports the properties of JSON objects that the schema does not declare:
// an object whose schema declares properties (not a free-form map) with a key that
// is none of them, whatever additionalProperties allows.
func (d *decoder) undeclared(v any, path string, p *problems) {
	switch x := v.(type) {
	case map[string]any:
		if path != "" && !d.declaresChildren(path) {
			return // a map or a free-form object
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p.full() {
				return
			}
			f := join(path, k)
			if !d.has(f) {
				d.reportUndeclared(f, p)
				continue
			}
			d.undeclared(x[k], f, p)
		}
	case []any:
		for _, e := range x {
			d.undeclared(e, path, p)
		}
	}
}

// declaresChildren reports whether the schema declares fields under path.
func (d *decoder) declaresChildren(path string) bool {
	i := sort.SearchStrings(d.paths, path+".")
	return i < len(d.paths) && strings.HasPrefix(d.paths[i], path+".")
}

// reportUndeclared reports a field the schema lacks, with the closest declared name.
func (d *decoder) reportUndeclared(field string, p *problems) {
	parent := ""
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		parent = field[:i]
	}
	p.add(UndeclaredField, field, "%s", notDeclared(field, suggest(field, d.children(parent), d.paths)))
}

// children lists the names of the fields declared directly under parent ("" the root).
func (d *decoder) children(parent string) []string {
	prefix := ""
	if parent != "" {
		prefix = parent + "."
	}
	var out []string
	for i := sort.SearchStrings(d.paths, prefix); i < len(d.paths) && strings.HasPrefix(d.paths[i], prefix); i++ {
		rest := d.paths[i][len(prefix):]
		if !strings.Contains(rest, ".") {
			out = append(out, rest)
		}
	}
	return out
}

// jsonType names the JSON type of a value as JSON Schema does.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// article puts "a" or "an" before a JSON type name.
func article(t string) string {
	if strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

// mismatch reports a value of the wrong JSON type.
func mismatch(p *problems, path string, v any, want string) {
	p.add(TypeMismatch, path, "field %q is %s where the contract says %s.", fieldName(path), article(jsonType(v)), want)
}

// walkAvro judges a JSON value against an Avro schema's JSON mapping: records as
// objects (every field without a default present, no other property), unions as a
// value of one branch or Avro's {"type": value} form, bytes and fixed as strings,
// decimals also as numbers.
func (d *decoder) walkAvro(s avro.Schema, v any, path string, p *problems) {
	if p.full() {
		return
	}
	switch t := s.(type) {
	case *avro.RefSchema:
		d.walkAvro(t.Schema(), v, path, p)
	case *avro.RecordSchema:
		obj, ok := v.(map[string]any)
		if !ok {
			mismatch(p, path, v, "a record (an object)")
			return
		}
		names := make([]string, 0, len(t.Fields()))
		for _, f := range t.Fields() {
			names = append(names, f.Name())
			fv, present := obj[f.Name()]
			if !present {
				if !f.HasDefault() && !nullable(f.Type()) {
					p.add(MissingField, join(path, f.Name()), "the required field %q is absent.", join(path, f.Name()))
				}
				continue
			}
			d.walkAvro(f.Type(), fv, join(path, f.Name()), p)
		}
		for _, k := range sortedKeys(obj) {
			if !slices.Contains(names, k) {
				f := join(path, k)
				p.add(UndeclaredField, f, "%s", notDeclared(f, suggest(f, names, d.paths)))
			}
		}
	case *avro.UnionSchema:
		d.walkUnion(t, v, path, p)
	case *avro.ArraySchema:
		arr, ok := v.([]any)
		if !ok {
			mismatch(p, path, v, "an array")
			return
		}
		for _, e := range arr {
			d.walkAvro(t.Items(), e, path, p)
		}
	case *avro.MapSchema:
		obj, ok := v.(map[string]any)
		if !ok {
			mismatch(p, path, v, "a map (an object)")
			return
		}
		for _, k := range sortedKeys(obj) {
			d.walkAvro(t.Values(), obj[k], path, p)
		}
	case *avro.EnumSchema:
		str, ok := v.(string)
		if !ok {
			mismatch(p, path, v, "a symbol of "+t.Name()+" (a string)")
			return
		}
		if !slices.Contains(t.Symbols(), str) {
			p.add(InvalidValue, path, "field %q is %q, which is no symbol of %s (%s).", fieldName(path), str, t.Name(), strings.Join(t.Symbols(), ", "))
		}
	default:
		if !avroPrimitiveOK(s, v) {
			mismatch(p, path, v, avroWant(s))
		}
	}
}

// walkUnion accepts null for a union with null, Avro's {"branch": value} form, or a
// plain value that one branch accepts.
func (d *decoder) walkUnion(t *avro.UnionSchema, v any, path string, p *problems) {
	if v == nil {
		if !nullable(t) {
			mismatch(p, path, v, avroWant(t))
		}
		return
	}
	var branches []avro.Schema
	for _, b := range t.Types() {
		if b.Type() != avro.Null {
			branches = append(branches, b)
		}
	}
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		for k, inner := range obj {
			for _, b := range branches {
				if branchName(b) == k {
					d.walkAvro(b, inner, path, p)
					return
				}
			}
		}
	}
	for _, b := range branches {
		probe := &problems{}
		d.walkAvro(b, v, path, probe)
		if len(probe.list) == 0 {
			return
		}
	}
	if len(branches) == 1 {
		d.walkAvro(branches[0], v, path, p)
		return
	}
	mismatch(p, path, v, avroWant(t))
}

// branchName is how Avro's JSON encoding names a union branch.
func branchName(s avro.Schema) string {
	switch t := s.(type) {
	case avro.NamedSchema:
		return t.FullName()
	case *avro.RefSchema:
		return t.Schema().FullName()
	}
	return string(s.Type())
}

// nullable reports whether a schema accepts null.
func nullable(s avro.Schema) bool {
	if s.Type() == avro.Null {
		return true
	}
	if u, ok := s.(*avro.UnionSchema); ok {
		return u.Nullable() || slices.ContainsFunc(u.Types(), func(b avro.Schema) bool { return b.Type() == avro.Null })
	}
	return false
}

// avroPrimitiveOK reports whether a JSON value fits a primitive or fixed schema.
func avroPrimitiveOK(s avro.Schema, v any) bool {
	decimal := false
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil && l.Logical().Type() == avro.Decimal {
		decimal = true
	}
	switch s.Type() {
	case avro.Null:
		return v == nil
	case avro.Boolean:
		_, ok := v.(bool)
		return ok
	case avro.Int, avro.Long:
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case avro.Float, avro.Double:
		_, ok := v.(json.Number)
		return ok
	case avro.String:
		_, ok := v.(string)
		return ok
	case avro.Bytes, avro.Fixed:
		switch v.(type) {
		case string:
			return true
		case json.Number:
			return decimal
		}
	}
	return false
}

// avroWant says what JSON an Avro schema wants.
func avroWant(s avro.Schema) string {
	switch s.Type() {
	case avro.Boolean:
		return "a boolean"
	case avro.Int, avro.Long:
		return "an integer (" + string(s.Type()) + ")"
	case avro.Float, avro.Double:
		return "a number (" + string(s.Type()) + ")"
	case avro.String:
		return "a string"
	case avro.Bytes, avro.Fixed:
		return "a string (" + string(s.Type()) + ")"
	case avro.Null:
		return "null"
	case avro.Union:
		var names []string
		for _, b := range s.(*avro.UnionSchema).Types() {
			names = append(names, branchName(b))
		}
		return "one of the union's types (" + strings.Join(names, ", ") + ")"
	}
	return string(s.Type())
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// walkProto judges a JSON value against a Protobuf message's JSON mapping (protojson):
// fields by JSON name or proto name, 64-bit integers also as strings, enums as names
// or numbers, bytes as base64 strings; the well-known types are not looked into.
func (d *decoder) walkProto(md protoreflect.MessageDescriptor, v any, path string, p *problems) {
	if p.full() || strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		mismatch(p, path, v, "a "+string(md.Name())+" message (an object)")
		return
	}
	fields := md.Fields()
	var names []string
	for i := range fields.Len() {
		names = append(names, string(fields.Get(i).Name()))
	}
	for _, k := range sortedKeys(obj) {
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByName(protoreflect.Name(k))
		}
		if fd == nil {
			f := join(path, k)
			p.add(UndeclaredField, f, "%s", notDeclared(f, suggest(f, names, d.paths)))
			continue
		}
		fv, f := obj[k], join(path, string(fd.Name()))
		switch {
		case fv == nil:
		case fd.IsMap():
			m, ok := fv.(map[string]any)
			if !ok {
				mismatch(p, f, fv, "a map (an object)")
				continue
			}
			for _, mk := range sortedKeys(m) {
				d.walkProtoValue(fd.MapValue(), m[mk], f, p)
			}
		case fd.IsList():
			arr, ok := fv.([]any)
			if !ok {
				mismatch(p, f, fv, "a list (an array)")
				continue
			}
			for _, e := range arr {
				d.walkProtoValue(fd, e, f, p)
			}
		default:
			d.walkProtoValue(fd, fv, f, p)
		}
	}
	for i := range fields.Len() {
		if fd := fields.Get(i); fd.Cardinality() == protoreflect.Required {
			if _, ok := obj[fd.JSONName()]; !ok {
				if _, ok := obj[string(fd.Name())]; !ok {
					f := join(path, string(fd.Name()))
					p.add(MissingField, f, "the required field %q is absent.", f)
				}
			}
		}
	}
}

// walkProtoValue judges one value of a field's kind.
func (d *decoder) walkProtoValue(fd protoreflect.FieldDescriptor, v any, path string, p *problems) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if v != nil {
			d.walkProto(fd.Message(), v, path, p)
		}
	case protoreflect.EnumKind:
		switch x := v.(type) {
		case string:
			if fd.Enum().Values().ByName(protoreflect.Name(x)) == nil {
				p.add(InvalidValue, path, "field %q is %q, which is no value of %s.", path, x, fd.Enum().FullName())
			}
		case json.Number:
		default:
			mismatch(p, path, v, "a value of "+string(fd.Enum().Name())+" (a string or an integer)")
		}
	case protoreflect.BoolKind:
		if _, ok := v.(bool); !ok {
			mismatch(p, path, v, "a boolean")
		}
	case protoreflect.StringKind, protoreflect.BytesKind:
		if _, ok := v.(string); !ok {
			mismatch(p, path, v, "a string ("+fd.Kind().String()+")")
		}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		switch x := v.(type) {
		case json.Number:
		case string:
			if x != "NaN" && x != "Infinity" && x != "-Infinity" {
				if _, err := strconv.ParseFloat(x, 64); err != nil {
					mismatch(p, path, v, "a number ("+fd.Kind().String()+")")
				}
			}
		default:
			mismatch(p, path, v, "a number ("+fd.Kind().String()+")")
		}
	default: // the integer kinds
		var s string
		switch x := v.(type) {
		case json.Number:
			s = x.String()
		case string:
			s = x
		default:
			mismatch(p, path, v, "an integer ("+fd.Kind().String()+")")
			return
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			if _, err := strconv.ParseUint(s, 10, 64); err != nil {
				mismatch(p, path, v, "an integer ("+fd.Kind().String()+")")
			}
		}
	}
}

// notDeclared is the sentence of an undeclared field, with its suggestion.
func notDeclared(field, suggestion string) string {
	if suggestion == "" {
		return fmt.Sprintf("field %q is not in the contract.", field)
	}
	return fmt.Sprintf("field %q is not in the contract%s", field, suggestion)
}
