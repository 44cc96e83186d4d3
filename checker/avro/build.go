package avro

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/checker/jsontext"
	"github.com/hamba/avro/v2"
)

// errSlowPath tells buildHamba's caller to let hamba/avro parse the text itself.
var errSlowPath = errors.New("avro: schema left to hamba/avro's parser")

// buildHamba builds hamba/avro's model of a schema from the JSON text already parsed
// (with positions) by Parse, through hamba's own constructors, which validate names,
// defaults, orders and unions as its parser does. It follows hamba's ParseBytesWithCache
// (schema_parse.go, v2.31) step by step but skips its second JSON decoding and its
// mapstructure pass over every record and field, about a third of lint's time.
//
// It only takes the path every ordinary schema takes: whenever hamba's parser would
// fail, or the text holds what its mapstructure decoding treats in its own way (a member
// of an unexpected JSON kind, a member spelled in other letter case), it returns
// errSlowPath and the caller parses with hamba, so errors and unusual texts get exactly
// hamba's result. TestBuildMatchesHamba compares the two on every schema of the tests.
func buildHamba(root *jsontext.Node) (avro.Schema, error) {
	b := &builder{cache: map[string]avro.Schema{}, seen: map[string]bool{}}
	return b.typ("", root)
}

type builder struct {
	cache map[string]avro.Schema // full names and aliases -> schema, as hamba's SchemaCache
	seen  map[string]bool        // full names defined, as hamba's seenCache
}

// typ is hamba's parseType.
func (b *builder) typ(space string, n *jsontext.Node) (avro.Schema, error) {
	if n == nil {
		return nil, errSlowPath
	}
	switch n.Kind {
	case jsontext.Null:
		return &avro.NullSchema{}, nil
	case jsontext.String:
		return b.named(space, n.Str)
	case jsontext.Object:
		return b.complex(space, n)
	case jsontext.Array:
		return b.union(space, n)
	}
	return nil, errSlowPath
}

// named is hamba's parsePrimitiveType: a primitive, or a named type defined earlier.
func (b *builder) named(space, s string) (avro.Schema, error) {
	switch t := avro.Type(s); t {
	case avro.Null:
		return &avro.NullSchema{}, nil
	case avro.String, avro.Bytes, avro.Int, avro.Long, avro.Float, avro.Double, avro.Boolean:
		return avro.NewPrimitiveSchema(t, nil), nil
	}
	sch, ok := b.cache[hambaFullName(space, s)]
	if !ok {
		return nil, errSlowPath
	}
	if ns, isNamed := sch.(avro.NamedSchema); isNamed {
		// An enum or fixed reached by an alias: hamba's cache holds the type itself
		// there, and its final pass turns the second sighting into a reference.
		return avro.NewRefSchema(ns), nil
	}
	return sch, nil
}

// complex is hamba's parseComplexType.
func (b *builder) complex(space string, n *jsontext.Node) (avro.Schema, error) {
	t := n.Get("type")
	if t != nil && t.Kind == jsontext.Array {
		return b.union(space, t)
	}
	if t == nil || t.Kind != jsontext.String {
		return nil, errSlowPath
	}
	switch typ := avro.Type(t.Str); typ {
	case avro.String, avro.Bytes, avro.Int, avro.Long, avro.Float, avro.Double, avro.Boolean, avro.Null:
		return b.primitive(typ, n)
	case avro.Record, avro.Error:
		return b.record(typ, space, n)
	case avro.Enum:
		return b.enum(space, n)
	case avro.Array:
		return b.container(space, n, "items", func(t avro.Schema, o avro.SchemaOption) avro.Schema { return avro.NewArraySchema(t, o) })
	case avro.Map:
		return b.container(space, n, "values", func(t avro.Schema, o avro.SchemaOption) avro.Schema { return avro.NewMapSchema(t, o) })
	case avro.Fixed:
		return b.fixed(space, n)
	default:
		return b.named(space, t.Str)
	}
}

// container is hamba's parseArray and parseMap: a type object holding one type under
// key (items, values).
func (b *builder) container(space string, n *jsontext.Node, key string, build func(avro.Schema, avro.SchemaOption) avro.Schema) (avro.Schema, error) {
	m := members(n, "type", key)
	props := m.props()
	if m.odd || m.get(key) == nil {
		return nil, errSlowPath
	}
	inner, err := b.typ(space, m.get(key))
	if err != nil {
		return nil, err
	}
	return build(inner, avro.WithProps(props)), nil
}

// primitive is hamba's parsePrimitive for a type object.
func (b *builder) primitive(typ avro.Type, n *jsontext.Node) (avro.Schema, error) {
	m := members(n, "type")
	props := m.props()
	if m.odd {
		return nil, errSlowPath
	}
	var logical avro.LogicalSchema
	if lt, ok := props["logicalType"].(string); ok && lt != "" {
		var known bool
		if logical, known = primitiveLogical(typ, avro.LogicalType(lt), props); !known {
			return nil, errSlowPath
		}
		if logical != nil {
			delete(props, "logicalType")
		}
	}
	if typ == avro.Null {
		return avro.NewNullSchema(avro.WithProps(props)), nil
	}
	return avro.NewPrimitiveSchema(typ, logical, avro.WithProps(props)), nil
}

// primitiveLogical is hamba's parsePrimitiveLogicalType; known is false when the
// decimal's precision or scale are not what this builder decodes as hamba does.
func primitiveLogical(typ avro.Type, lt avro.LogicalType, props map[string]any) (avro.LogicalSchema, bool) {
	switch {
	case typ == avro.String && lt == avro.UUID,
		typ == avro.Int && (lt == avro.Date || lt == avro.TimeMillis),
		typ == avro.Long && (lt == avro.TimeMicros || lt == avro.TimestampMillis || lt == avro.TimestampMicros ||
			lt == avro.LocalTimestampMillis || lt == avro.LocalTimestampMicros):
		return avro.NewPrimitiveLogicalSchema(lt), true
	case typ == avro.Bytes && lt == avro.Decimal:
		return decimal(-1, props)
	}
	return nil, true
}

// decimal is hamba's parseDecimalLogicalType.
func decimal(size int, props map[string]any) (avro.LogicalSchema, bool) {
	var prec, scale int
	for k, v := range props {
		var dst *int
		switch {
		case k == "precision":
			dst = &prec
		case k == "scale":
			dst = &scale
		case strings.EqualFold(k, "precision") || strings.EqualFold(k, "scale"):
			return nil, false
		default:
			continue
		}
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return nil, false
		}
		*dst = int(f)
	}
	if prec <= 0 || scale < 0 || scale > prec {
		return nil, true
	}
	if size > 0 && prec > int(math.Floor(math.Log10(math.Pow(2, 8*float64(size))-1))) {
		return nil, true
	}
	delete(props, "precision")
	delete(props, "scale")
	return avro.NewDecimalLogicalSchema(prec, scale), true
}

// record is hamba's parseRecord.
func (b *builder) record(typ avro.Type, space string, n *jsontext.Node) (avro.Schema, error) {
	m := members(n, "type", "name", "namespace", "aliases", "doc", "fields")
	name, ns, aliases := m.name(space)
	doc, props := m.str("doc"), m.props()
	fs := m.get("fields")
	if m.odd || fs == nil || fs.Kind != jsontext.Array {
		return nil, errSlowPath
	}
	fields := make([]*avro.Field, len(fs.Elems))
	opts := []avro.SchemaOption{avro.WithAliases(aliases), avro.WithDoc(doc), avro.WithProps(props)}
	var rec *avro.RecordSchema
	var err error
	if typ == avro.Error {
		rec, err = avro.NewErrorRecordSchema(name, ns, fields, opts...)
	} else {
		rec, err = avro.NewRecordSchema(name, ns, fields, opts...)
	}
	if err != nil || b.seen[rec.FullName()] {
		return nil, errSlowPath
	}
	b.seen[rec.FullName()] = true
	ref := avro.NewRefSchema(rec)
	b.cache[rec.FullName()] = ref
	for _, a := range rec.Aliases() {
		b.cache[a] = ref
	}
	names := make(map[string]bool, len(fs.Elems))
	for i, fn := range fs.Elems {
		f, err := b.field(rec.Namespace(), fn)
		if err != nil {
			return nil, err
		}
		if names[f.Name()] {
			return nil, errSlowPath
		}
		names[f.Name()] = true
		fields[i] = f
	}
	return rec, nil
}

// field is hamba's parseField.
func (b *builder) field(space string, n *jsontext.Node) (*avro.Field, error) {
	if n.Kind != jsontext.Object {
		return nil, errSlowPath
	}
	m := members(n, "name", "aliases", "type", "doc", "default", "order")
	name, aliases, doc, order, props := m.str("name"), m.strs("aliases"), m.str("doc"), m.str("order"), m.props()
	tn := m.get("type")
	if m.odd || name == "" || tn == nil {
		return nil, errSlowPath
	}
	typ, err := b.typ(space, tn)
	if err != nil {
		return nil, err
	}
	def := any(avro.NoDefault)
	if d := m.get("default"); d != nil {
		var ok bool
		if def, ok = value(d); !ok {
			return nil, errSlowPath
		}
	}
	f, err := avro.NewField(name, typ, avro.WithDefault(def), avro.WithAliases(aliases), avro.WithDoc(doc),
		avro.WithOrder(avro.Order(order)), avro.WithProps(props))
	if err != nil {
		return nil, errSlowPath
	}
	return f, nil
}

// enum is hamba's parseEnum.
func (b *builder) enum(space string, n *jsontext.Node) (avro.Schema, error) {
	m := members(n, "name", "namespace", "aliases", "type", "doc", "symbols", "default")
	name, ns, aliases := m.name(space)
	doc, symbols, def, props := m.str("doc"), m.strs("symbols"), m.str("default"), m.props()
	if m.odd {
		return nil, errSlowPath
	}
	e, err := avro.NewEnumSchema(name, ns, symbols, avro.WithDefault(def), avro.WithAliases(aliases), avro.WithDoc(doc), avro.WithProps(props))
	if err != nil || b.seen[e.FullName()] {
		return nil, errSlowPath
	}
	b.define(e)
	return e, nil
}

// fixed is hamba's parseFixed.
func (b *builder) fixed(space string, n *jsontext.Node) (avro.Schema, error) {
	m := members(n, "name", "namespace", "aliases", "type", "size")
	name, ns, aliases := m.name(space)
	props := m.props()
	sn := m.get("size")
	if m.odd || sn == nil || sn.Kind != jsontext.Number {
		return nil, errSlowPath
	}
	size, err := strconv.Atoi(sn.Str)
	if err != nil || !strictNumber(sn.Str) {
		return nil, errSlowPath
	}
	var logical avro.LogicalSchema
	if lt, ok := props["logicalType"].(string); ok && lt != "" {
		switch avro.LogicalType(lt) {
		case avro.Duration:
			if size == 12 {
				logical = avro.NewPrimitiveLogicalSchema(avro.Duration)
			}
		case avro.Decimal:
			var known bool
			if logical, known = decimal(size, props); !known {
				return nil, errSlowPath
			}
		}
		if logical != nil {
			delete(props, "logicalType")
		}
	}
	f, err := avro.NewFixedSchema(name, ns, size, logical, avro.WithAliases(aliases), avro.WithProps(props))
	if err != nil || b.seen[f.FullName()] {
		return nil, errSlowPath
	}
	b.define(f)
	return f, nil
}

// define records an enum or fixed as hamba does: a reference under its full name,
// the type itself under each alias.
func (b *builder) define(t avro.NamedSchema) {
	b.seen[t.FullName()] = true
	b.cache[t.FullName()] = avro.NewRefSchema(t)
	for _, a := range t.Aliases() {
		b.cache[a] = t
	}
}

// union is hamba's parseUnion.
func (b *builder) union(space string, n *jsontext.Node) (avro.Schema, error) {
	types := make([]avro.Schema, len(n.Elems))
	for i, e := range n.Elems {
		t, err := b.typ(space, e)
		if err != nil {
			return nil, err
		}
		types[i] = t
	}
	u, err := avro.NewUnionSchema(types)
	if err != nil {
		return nil, errSlowPath
	}
	return u, nil
}

// hambaFullName is hamba's fullName.
func hambaFullName(space, name string) string {
	if space == "" || strings.ContainsRune(name, '.') {
		return name
	}
	return space + "." + name
}
