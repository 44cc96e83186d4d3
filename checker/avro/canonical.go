package avro

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// Canonical returns the text the Confluent Schema Registry stores for an Avro schema
// (AvroSchema.canonicalString: Avro Java's Schema.toString of the parsed schema):
// compact JSON with every attribute in the order Avro Java prints it, named types
// printed once and referred to by the shortest name that resolves, namespaces that
// repeat the enclosing one left out, primitive types without attributes written as a
// bare name, doc, defaults, aliases and custom attributes kept. It is not the Avro
// specification's Parsing Canonical Form, which drops docs, defaults and aliases (two
// schemas that differ in a default would share an id).
func (Engine) Canonical(text []byte) ([]byte, error) {
	if len(text) > MaxSchemaBytes {
		return nil, fmt.Errorf("avro: schema is %d bytes; the limit is %d", len(text), MaxSchemaBytes)
	}
	if n, _ := countValues(text, 0); n > MaxValues {
		return nil, fmt.Errorf("avro: the schema has %d JSON values, over the limit of %d (MaxValues)", n, MaxValues)
	}
	root, err := parseJSON(text)
	if err != nil {
		return nil, fmt.Errorf("avro: invalid JSON: %w", err)
	}
	if ptr, msg := checkShape(root, ""); msg != "" {
		return nil, fmt.Errorf("avro: at %s: %s", orRoot(ptr), msg)
	}
	p := &canonPrinter{defined: map[string]bool{}}
	if err := p.schema(root, ""); err != nil {
		return nil, err
	}
	return []byte(p.b.String()), nil
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}

// canonPrinter prints one schema as Avro Java does. defined holds the full names of
// the named types printed so far (a later use is a reference).
type canonPrinter struct {
	b       strings.Builder
	defined map[string]bool
}

var primitiveNames = map[string]bool{"null": true, "boolean": true, "int": true, "long": true,
	"float": true, "double": true, "bytes": true, "string": true}

// Attributes Avro Java reads itself; every other attribute is a property, printed
// after them in the order of the source.
var (
	schemaReserved = map[string]bool{"doc": true, "fields": true, "items": true, "name": true, "namespace": true,
		"size": true, "symbols": true, "values": true, "type": true, "aliases": true}
	enumReserved  = map[string]bool{"default": true}
	fieldReserved = map[string]bool{"default": true, "doc": true, "name": true, "order": true, "type": true, "aliases": true}
)

// fullName splits a name as Avro does: a dotted name carries its namespace; otherwise
// the namespace attribute, else the enclosing one.
func fullName(name, nsAttr string, hasNS bool, enclosing string) (space, short string) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i], name[i+1:]
	}
	if hasNS {
		return nsAttr, name
	}
	return enclosing, name
}

func join(space, name string) string {
	if space == "" {
		return name
	}
	return space + "." + name
}

// qualified is how Avro Java writes a name inside namespace current: the short name
// when the spaces match (or the name has none), else the full name.
func qualified(space, name, current string) string {
	if space == "" || space == current {
		return name
	}
	return space + "." + name
}

func (p *canonPrinter) schema(n *jsontext.Node, space string) error {
	switch n.Kind {
	case jsontext.String:
		return p.ref(n.Str, space)
	case jsontext.Array:
		p.b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				p.b.WriteByte(',')
			}
			if err := p.schema(e, space); err != nil {
				return err
			}
		}
		p.b.WriteByte(']')
		return nil
	case jsontext.Object:
		return p.object(n, space)
	}
	return fmt.Errorf("avro: a schema is a type name, an object or an array of schemas, not %s", n.Str)
}

// ref prints a type named by a string: a primitive, or a named type printed before.
func (p *canonPrinter) ref(name, space string) error {
	if primitiveNames[name] {
		writeJSONString(&p.b, name)
		return nil
	}
	var candidates []string
	if strings.Contains(name, ".") {
		candidates = []string{name}
	} else {
		candidates = []string{join(space, name), name}
	}
	for _, full := range candidates {
		if p.defined[full] {
			s, short := fullName(full, "", false, "")
			writeJSONString(&p.b, qualified(s, short, space))
			return nil
		}
	}
	return fmt.Errorf("avro: type %q is not defined before its use", name)
}

func (p *canonPrinter) object(n *jsontext.Node, space string) error {
	t := n.Get("type")
	if t == nil {
		return fmt.Errorf("avro: an object schema needs a \"type\"")
	}
	if t.Kind != jsontext.String {
		// {"type": {...}} or {"type": [...]}: the inner schema.
		return p.schema(t, space)
	}
	switch typ := t.Str; {
	case primitiveNames[typ]:
		props := properties(n, schemaReserved, nil)
		if len(props) == 0 {
			writeJSONString(&p.b, typ)
			return nil
		}
		p.b.WriteString(`{"type":`)
		writeJSONString(&p.b, typ)
		p.props(props)
		p.b.WriteByte('}')
		return nil
	case typ == "record" || typ == "error":
		return p.record(n, typ, space)
	case typ == "enum":
		return p.enum(n, space)
	case typ == "fixed":
		return p.fixed(n, space)
	case typ == "array" || typ == "map":
		key := "items"
		if typ == "map" {
			key = "values"
		}
		p.b.WriteString(`{"type":"` + typ + `","` + key + `":`)
		inner := n.Get(key)
		if inner == nil {
			return fmt.Errorf("avro: an %s needs %q", typ, key)
		}
		if err := p.schema(inner, space); err != nil {
			return err
		}
		p.props(properties(n, schemaReserved, nil))
		p.b.WriteByte('}')
		return nil
	default:
		// A named type referred to in object form.
		return p.ref(typ, space)
	}
}

// name prints "name" and, when it differs from the enclosing one, "namespace", and
// records the type as defined; it returns the type's namespace.
func (p *canonPrinter) name(n *jsontext.Node, space string) (string, error) {
	nm := n.Get("name")
	if nm == nil || nm.Kind != jsontext.String {
		return "", fmt.Errorf("avro: a named type needs a \"name\"")
	}
	nsNode := n.Get("namespace")
	ns := ""
	if nsNode != nil && nsNode.Kind == jsontext.String {
		ns = nsNode.Str
	}
	s, short := fullName(nm.Str, ns, nsNode != nil && nsNode.Kind == jsontext.String, space)
	full := join(s, short)
	if p.defined[full] {
		return "", fmt.Errorf("avro: type %q is defined twice", full)
	}
	p.defined[full] = true
	p.b.WriteString(`,"name":`)
	writeJSONString(&p.b, short)
	if s != space {
		p.b.WriteString(`,"namespace":`)
		writeJSONString(&p.b, s)
	}
	return s, nil
}

func (p *canonPrinter) doc(n *jsontext.Node) {
	if d := n.Get("doc"); d != nil && d.Kind == jsontext.String {
		p.b.WriteString(`,"doc":`)
		writeJSONString(&p.b, d.Str)
	}
}

// aliases prints a named type's aliases, each as short as its namespace allows.
func (p *canonPrinter) aliases(n *jsontext.Node, space string) {
	a := n.Get("aliases")
	if a == nil || a.Kind != jsontext.Array || len(a.Elems) == 0 {
		return
	}
	p.b.WriteString(`,"aliases":[`)
	for i, e := range a.Elems {
		if i > 0 {
			p.b.WriteByte(',')
		}
		s, short := fullName(e.Str, "", false, space)
		writeJSONString(&p.b, qualified(s, short, space))
	}
	p.b.WriteByte(']')
}

func (p *canonPrinter) record(n *jsontext.Node, typ, space string) error {
	p.b.WriteString(`{"type":"` + typ + `"`)
	s, err := p.name(n, space)
	if err != nil {
		return err
	}
	p.doc(n)
	if fs := n.Get("fields"); fs != nil && fs.Kind == jsontext.Array {
		p.b.WriteString(`,"fields":[`)
		for i, f := range fs.Elems {
			if i > 0 {
				p.b.WriteByte(',')
			}
			if err := p.field(f, s); err != nil {
				return err
			}
		}
		p.b.WriteByte(']')
	}
	p.props(properties(n, schemaReserved, nil))
	p.aliases(n, s)
	p.b.WriteByte('}')
	return nil
}

func (p *canonPrinter) field(f *jsontext.Node, space string) error {
	nm := f.Get("name")
	t := f.Get("type")
	if nm == nil || t == nil {
		return fmt.Errorf("avro: a record field needs \"name\" and \"type\"")
	}
	p.b.WriteString(`{"name":`)
	writeJSONString(&p.b, nm.Str)
	p.b.WriteString(`,"type":`)
	if err := p.schema(t, space); err != nil {
		return err
	}
	p.doc(f)
	if d := f.Get("default"); d != nil {
		p.b.WriteString(`,"default":`)
		writeJSONValue(&p.b, d)
	}
	if o := f.Get("order"); o != nil && o.Kind == jsontext.String && !strings.EqualFold(o.Str, "ascending") {
		p.b.WriteString(`,"order":`)
		writeJSONString(&p.b, strings.ToLower(o.Str))
	}
	if a := f.Get("aliases"); a != nil && a.Kind == jsontext.Array && len(a.Elems) > 0 {
		p.b.WriteString(`,"aliases":`)
		writeJSONValue(&p.b, a)
	}
	p.props(properties(f, fieldReserved, nil))
	p.b.WriteByte('}')
	return nil
}

func (p *canonPrinter) enum(n *jsontext.Node, space string) error {
	p.b.WriteString(`{"type":"enum"`)
	s, err := p.name(n, space)
	if err != nil {
		return err
	}
	p.doc(n)
	p.b.WriteString(`,"symbols":`)
	if sy := n.Get("symbols"); sy != nil {
		writeJSONValue(&p.b, sy)
	} else {
		p.b.WriteString("[]")
	}
	if d := n.Get("default"); d != nil && d.Kind == jsontext.String {
		p.b.WriteString(`,"default":`)
		writeJSONString(&p.b, d.Str)
	}
	p.props(properties(n, schemaReserved, enumReserved))
	p.aliases(n, s)
	p.b.WriteByte('}')
	return nil
}

func (p *canonPrinter) fixed(n *jsontext.Node, space string) error {
	p.b.WriteString(`{"type":"fixed"`)
	s, err := p.name(n, space)
	if err != nil {
		return err
	}
	p.doc(n)
	p.b.WriteString(`,"size":`)
	if sz := n.Get("size"); sz != nil && sz.Kind == jsontext.Number {
		writeJSONValue(&p.b, sz)
	} else {
		return fmt.Errorf("avro: a fixed type needs a numeric \"size\"")
	}
	p.props(properties(n, schemaReserved, nil))
	p.aliases(n, s)
	p.b.WriteByte('}')
	return nil
}

// properties lists an object's members that are neither reserved set's, in source order.
func properties(n *jsontext.Node, reserved, also map[string]bool) []jsontext.Member {
	var out []jsontext.Member
	for _, m := range n.Members {
		if !reserved[m.Key] && !also[m.Key] {
			out = append(out, m)
		}
	}
	return out
}

func (p *canonPrinter) props(ms []jsontext.Member) {
	for _, m := range ms {
		p.b.WriteByte(',')
		writeJSONString(&p.b, m.Key)
		p.b.WriteByte(':')
		writeJSONValue(&p.b, m.Val)
	}
}

// writeJSONValue prints a JSON value compactly as Jackson does: members in source
// order, integers as written, other numbers as Java prints a double.
func writeJSONValue(b *strings.Builder, n *jsontext.Node) {
	switch n.Kind {
	case jsontext.Object:
		b.WriteByte('{')
		for i, m := range n.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, m.Key)
			b.WriteByte(':')
			writeJSONValue(b, m.Val)
		}
		b.WriteByte('}')
	case jsontext.Array:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONValue(b, e)
		}
		b.WriteByte(']')
	case jsontext.String:
		writeJSONString(b, n.Str)
	case jsontext.Number:
		b.WriteString(javaNumber(n.Str))
	default:
		b.WriteString(n.Str)
	}
}

// javaNumber prints a JSON number as Jackson's tree model does: an integer as an
// integer (without "-0"), anything with a fraction or exponent as Java's
// Double.toString.
func javaNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return "0"
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return javaDouble(f)
}

// javaDouble is Java's Double.toString: plain notation with at least one fractional
// digit between 10^-3 and 10^7, else d.dddE±n; the shortest digits that read back.
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if f >= 1e-3 && f < 1e7 {
		point := exp + 1
		switch {
		case point <= 0:
			return sign + "0." + strings.Repeat("0", -point) + digits
		case point >= len(digits):
			return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
		default:
			return sign + digits[:point] + "." + digits[point:]
		}
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// writeJSONString quotes s as Jackson does: '"' and '\\' escaped, the control
// characters with a short escape (\b \t \n \f \r) or \u00XX, everything else as is.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xF])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
