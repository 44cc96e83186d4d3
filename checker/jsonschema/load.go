package jsonschema

import (
	"fmt"
	"hash/fnv"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// The keywords that make a schema without `type` an object, array, number or string
// schema (as the registry's loader sniffs them).
var (
	objectKeys = []string{"properties", "required", "additionalProperties", "patternProperties", "dependencies",
		"minProperties", "maxProperties", "propertyNames", "unevaluatedProperties", "dependentRequired", "dependentSchemas"}
	arrayKeys = []string{"items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains", "prefixItems",
		"unevaluatedItems", "minContains", "maxContains"}
	numberKeys = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
	stringKeys = []string{"minLength", "maxLength", "pattern", "format"}
)

// annotationKeys are keywords that do not constrain a value: beside a $ref in drafts
// 2019-09 and 2020-12 they do not turn the reference into a combination.
var annotationKeys = map[string]bool{
	"$ref": true, "$schema": true, "$id": true, "id": true, "$comment": true, "title": true, "description": true,
	"default": true, "definitions": true, "$defs": true, "examples": true, "$anchor": true, "deprecated": true,
	"readOnly": true, "writeOnly": true,
}

// nodeKey is a place in a document: nodes are built once per place.
type nodeKey struct {
	doc *document
	ptr string
}

// load returns the node for the schema v at ptr in doc, building it once.
func (b *builder) load(doc *document, v *jsontext.Node, ptr string) *node {
	key := nodeKey{doc, ptr}
	if n := b.nodes[key]; n != nil {
		return n
	}
	n := &node{doc: doc, ptr: ptr, src: v}
	b.nodes[key] = n
	if v == nil {
		n.kind = kEmpty
		return n
	}
	switch v.Kind {
	case jsontext.Bool:
		n.kind = kFalse
		if v.Str == "true" {
			n.kind = kTrue
		}
		return n
	case jsontext.Object:
	default:
		b.fail(doc, v.Off, "a schema is a JSON object or true or false, not %s; write {} to accept any value", describeKind(v.Kind))
		n.kind = kEmpty
		return n
	}
	b.fill(n, v)
	return n
}

// part builds a node for some keywords of the schema at n's place (not shared).
func (b *builder) part(n *node, k kind) *node {
	return &node{kind: k, doc: n.doc, ptr: n.ptr, src: n.src}
}

// fill reads a schema object into n: a reference, one kind, or an allOf of the kinds
// its keywords name (everit's synthetic allOf).
func (b *builder) fill(n *node, v *jsontext.Node) {
	doc, ptr := n.doc, n.ptr
	var parts []*node
	if r := v.Get("$ref"); r != nil && r.Kind == jsontext.String {
		ref := b.part(n, kRef)
		ref.ref = r.Str
		b.pending = append(b.pending, ref)
		if doc.draft < 2019 || !hasConstraints(v) {
			*n = *ref
			b.pending[len(b.pending)-1] = n
			b.meta(n, v)
			return
		}
		parts = append(parts, ref)
	}
	if e := v.Get("enum"); e != nil && e.Kind == jsontext.Array {
		p := b.part(n, kEnum)
		for _, el := range e.Elems {
			p.values = appendUnique(p.values, canonical(el))
		}
		parts = append(parts, p)
	}
	for _, crit := range []string{"allOf", "anyOf", "oneOf"} {
		if c := v.Get(crit); c != nil && c.Kind == jsontext.Array {
			p := b.part(n, kCombined)
			p.crit = crit
			for i, el := range c.Elems {
				p.subs = append(p.subs, b.load(doc, el, fmt.Sprintf("%s/%s/%d", ptr, crit, i)))
			}
			parts = append(parts, p)
		}
	}
	if x := v.Get("not"); x != nil {
		p := b.part(n, kNot)
		p.not = b.load(doc, x, ptr+"/not")
		parts = append(parts, p)
	}
	if c := v.Get("const"); c != nil && doc.draft >= 6 {
		p := b.part(n, kConst)
		p.constVal = canonical(c)
		parts = append(parts, p)
	}
	switch t := v.Get("type"); {
	case t != nil && t.Kind == jsontext.String:
		parts = append(parts, b.typed(n, v, t.Str))
	case t != nil && t.Kind == jsontext.Array:
		p := b.part(n, kCombined)
		p.crit = "anyOf"
		for _, el := range t.Elems {
			if el.Kind == jsontext.String {
				p.subs = append(p.subs, b.typed(n, v, el.Str))
			}
		}
		parts = append(parts, p)
	default:
		for _, g := range []struct {
			keys []string
			typ  string
		}{{objectKeys, "object"}, {arrayKeys, "array"}, {numberKeys, "number"}, {stringKeys, "string"}} {
			if hasAny(v, g.keys) {
				parts = append(parts, b.typed(n, v, g.typ))
			}
		}
	}
	if v.Get("if") != nil && doc.draft >= 7 {
		parts = append(parts, b.part(n, kCond))
	}
	switch len(parts) {
	case 0:
		n.kind = kEmpty
	case 1:
		*n = *parts[0]
	default:
		n.kind, n.crit, n.subs = kCombined, "allOf", parts
	}
	b.meta(n, v)
}

// meta reads the annotations the registry compares: id, title, description, default.
func (b *builder) meta(n *node, v *jsontext.Node) {
	idKey := "$id"
	if n.doc.draft == 4 {
		idKey = "id"
	}
	if x := v.Get(idKey); x != nil && x.Kind == jsontext.String {
		n.id, n.hasID = x.Str, true
	}
	if x := v.Get("title"); x != nil && x.Kind == jsontext.String {
		n.title, n.hasTitle = x.Str, true
	}
	if x := v.Get("description"); x != nil && x.Kind == jsontext.String {
		n.desc, n.hasDesc = x.Str, true
	}
	if x := v.Get("default"); x != nil {
		n.def, n.hasDef = canonical(x), true
	}
}

// typed builds the node of one type from the keywords of that type.
func (b *builder) typed(n *node, v *jsontext.Node, typ string) *node {
	doc, ptr := n.doc, n.ptr
	switch typ {
	case "string":
		p := b.part(n, kString)
		p.minLen = intKey(v, "minLength")
		p.maxLen = intKey(v, "maxLength")
		if x := v.Get("pattern"); x != nil && x.Kind == jsontext.String {
			s := x.Str
			p.pattern = &s
		}
		return p
	case "number", "integer":
		p := b.part(n, kNumber)
		p.integer = typ == "integer"
		p.max, p.min = numKey(v, "maximum"), numKey(v, "minimum")
		p.exMax, p.exMin = numKey(v, "exclusiveMaximum"), numKey(v, "exclusiveMinimum")
		p.multiple = numKey(v, "multipleOf")
		return p
	case "boolean":
		return b.part(n, kBoolean)
	case "null":
		return b.part(n, kNull)
	case "object":
		return b.object(n, v)
	case "array":
		p := b.part(n, kArray)
		items, prefix := v.Get("items"), v.Get("prefixItems")
		if prefix != nil && prefix.Kind == jsontext.Array && doc.draft >= 2020 {
			for i, el := range prefix.Elems {
				p.itemList = append(p.itemList, b.load(doc, el, fmt.Sprintf("%s/prefixItems/%d", ptr, i)))
			}
			b.additional(doc, items, ptr+"/items", &p.addlItemsClosed, &p.addlItems)
		} else if items != nil && items.Kind == jsontext.Array {
			for i, el := range items.Elems {
				p.itemList = append(p.itemList, b.load(doc, el, fmt.Sprintf("%s/items/%d", ptr, i)))
			}
		} else if items != nil {
			p.items = b.load(doc, items, ptr+"/items")
		}
		if doc.draft < 2020 {
			b.additional(doc, v.Get("additionalItems"), ptr+"/additionalItems", &p.addlItemsClosed, &p.addlItems)
		}
		if x := v.Get("unevaluatedItems"); x != nil {
			p.unevalItems = b.load(doc, x, ptr+"/unevaluatedItems")
		}
		p.maxItems, p.minItems = intKey(v, "maxItems"), intKey(v, "minItems")
		p.maxContains, p.minContains = intKey(v, "maxContains"), intKey(v, "minContains")
		if x := v.Get("uniqueItems"); x != nil && x.Kind == jsontext.Bool && x.Str == "true" {
			p.unique = true
		}
		return p
	}
	// An unknown type name: the meta-schema check reports it.
	return b.part(n, kEmpty)
}

// object builds an object node from the object keywords.
func (b *builder) object(n *node, v *jsontext.Node) *node {
	doc, ptr := n.doc, n.ptr
	p := b.part(n, kObject)
	if props := v.Get("properties"); props != nil && props.Kind == jsontext.Object {
		p.propIdx = make(map[string]int, len(props.Members))
		for _, m := range props.Members {
			p.propIdx[m.Key] = len(p.props)
			pn := b.load(doc, m.Val, ptr+"/properties/"+jsontext.EscapePointerToken(m.Key))
			p.props = append(p.props, prop{m.Key, pn, leafSig(pn)})
		}
	}
	if req := v.Get("required"); req != nil && req.Kind == jsontext.Array {
		p.required = map[string]bool{}
		for _, el := range req.Elems {
			if el.Kind == jsontext.String {
				p.required[el.Str] = true
			}
		}
	}
	if pp := v.Get("patternProperties"); pp != nil && pp.Kind == jsontext.Object {
		for _, m := range pp.Members {
			re, _ := regexp.Compile(m.Key) // ECMA-262 patterns Go cannot read match nothing
			p.patternProps = append(p.patternProps, patternProp{m.Key, re, b.load(doc, m.Val, ptr+"/patternProperties/"+jsontext.EscapePointerToken(m.Key))})
		}
	}
	b.additional(doc, v.Get("additionalProperties"), ptr+"/additionalProperties", &p.addlClosed, &p.addl)
	if x := v.Get("unevaluatedProperties"); x != nil {
		p.uneval = b.load(doc, x, ptr+"/unevaluatedProperties")
	}
	deps := func(key string) {
		d := v.Get(key)
		if d == nil || d.Kind != jsontext.Object {
			return
		}
		for _, m := range d.Members {
			if m.Val.Kind == jsontext.Array {
				if p.propDeps == nil {
					p.propDeps = map[string][]string{}
				}
				var names []string
				for _, el := range m.Val.Elems {
					names = appendUnique(names, el.Str)
				}
				p.propDeps[m.Key] = names
				continue
			}
			if p.schemaDeps == nil {
				p.schemaDeps = map[string]*node{}
			}
			p.schemaDeps[m.Key] = b.load(doc, m.Val, ptr+"/"+key+"/"+jsontext.EscapePointerToken(m.Key))
		}
	}
	deps("dependencies")
	deps("dependentRequired")
	deps("dependentSchemas")
	p.maxProps, p.minProps = intKey(v, "maxProperties"), intKey(v, "minProperties")
	return p
}

// additional reads additionalProperties or additionalItems: false closes, true (or
// absence) leaves open, a schema makes it partially open.
func (b *builder) additional(doc *document, x *jsontext.Node, ptr string, closed *bool, schema **node) {
	switch {
	case x == nil:
	case x.Kind == jsontext.Bool:
		*closed = x.Str == "false"
	default:
		*schema = b.load(doc, x, ptr)
	}
}

// leafSig hashes the canonical text of a leaf schema (FNV-1a, 64 bits); 0 for a
// schema that holds others, or one a $ref stands for.
func leafSig(n *node) uint64 {
	if n.src == nil || n.kind == kRef || !n.leaf() {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(canonical(n.src)))
	return h.Sum64() | 1
}

func hasAny(v *jsontext.Node, keys []string) bool {
	for _, k := range keys {
		if v.Get(k) != nil {
			return true
		}
	}
	return false
}

func hasConstraints(v *jsontext.Node) bool {
	for _, m := range v.Members {
		if !annotationKeys[m.Key] {
			return true
		}
	}
	return false
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func intKey(v *jsontext.Node, key string) optInt {
	x := v.Get(key)
	if x == nil || x.Kind != jsontext.Number {
		return optInt{}
	}
	r, ok := new(big.Rat).SetString(x.Str)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return optInt{}
	}
	return optInt{r.Num().Int64(), true}
}

func numKey(v *jsontext.Node, key string) optNum {
	x := v.Get(key)
	if x == nil || x.Kind != jsontext.Number {
		return optNum{}
	}
	r, ok := new(big.Rat).SetString(x.Str)
	if !ok {
		return optNum{}
	}
	return optNum{r, x.Str}
}

func describeKind(k jsontext.Kind) string {
	switch k {
	case jsontext.Array:
		return "an array"
	case jsontext.String:
		return "a string"
	case jsontext.Number:
		return "a number"
	case jsontext.Null:
		return "null"
	}
	return "a value"
}

// canonical renders a JSON value with sorted object keys and no space, so equal values
// have equal texts.
func canonical(v *jsontext.Node) string {
	var sb strings.Builder
	writeCanonical(&sb, v)
	return sb.String()
}

func writeCanonical(sb *strings.Builder, v *jsontext.Node) {
	if v == nil {
		sb.WriteString("null")
		return
	}
	switch v.Kind {
	case jsontext.Object:
		ms := slices.SortedFunc(slices.Values(v.Members), func(a, b jsontext.Member) int { return strings.Compare(a.Key, b.Key) })
		sb.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Quote(m.Key))
			sb.WriteByte(':')
			writeCanonical(sb, m.Val)
		}
		sb.WriteByte('}')
	case jsontext.Array:
		sb.WriteByte('[')
		for i, el := range v.Elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeCanonical(sb, el)
		}
		sb.WriteByte(']')
	case jsontext.String:
		sb.WriteString(strconv.Quote(v.Str))
	case jsontext.Number:
		if r, ok := new(big.Rat).SetString(v.Str); ok {
			sb.WriteString(r.RatString())
		} else {
			sb.WriteString(v.Str)
		}
	default:
		sb.WriteString(v.Str)
	}
}
