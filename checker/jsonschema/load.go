package jsonschema

import (
	"fmt"
	"hash/fnv"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
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
func (b *builder) load(doc *document, v *jnode, ptr string) *node {
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
	switch v.kind {
	case jBool:
		n.kind = kFalse
		if v.str == "true" {
			n.kind = kTrue
		}
		return n
	case jObject:
	default:
		b.fail(doc, v.off, "a schema is a JSON object or true or false, not %s; write {} to accept any value", describeKind(v.kind))
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
func (b *builder) fill(n *node, v *jnode) {
	doc, ptr := n.doc, n.ptr
	var parts []*node
	if r := v.get("$ref"); r != nil && r.kind == jString {
		ref := b.part(n, kRef)
		ref.ref = r.str
		b.pending = append(b.pending, ref)
		if doc.draft < 2019 || !hasConstraints(v) {
			*n = *ref
			b.pending[len(b.pending)-1] = n
			b.meta(n, v)
			return
		}
		parts = append(parts, ref)
	}
	if e := v.get("enum"); e != nil && e.kind == jArray {
		p := b.part(n, kEnum)
		for _, el := range e.elems {
			p.values = appendUnique(p.values, canonical(el))
		}
		parts = append(parts, p)
	}
	for _, crit := range []string{"allOf", "anyOf", "oneOf"} {
		if c := v.get(crit); c != nil && c.kind == jArray {
			p := b.part(n, kCombined)
			p.crit = crit
			for i, el := range c.elems {
				p.subs = append(p.subs, b.load(doc, el, fmt.Sprintf("%s/%s/%d", ptr, crit, i)))
			}
			parts = append(parts, p)
		}
	}
	if x := v.get("not"); x != nil {
		p := b.part(n, kNot)
		p.not = b.load(doc, x, ptr+"/not")
		parts = append(parts, p)
	}
	if c := v.get("const"); c != nil && doc.draft >= 6 {
		p := b.part(n, kConst)
		p.constVal = canonical(c)
		parts = append(parts, p)
	}
	switch t := v.get("type"); {
	case t != nil && t.kind == jString:
		parts = append(parts, b.typed(n, v, t.str))
	case t != nil && t.kind == jArray:
		p := b.part(n, kCombined)
		p.crit = "anyOf"
		for _, el := range t.elems {
			if el.kind == jString {
				p.subs = append(p.subs, b.typed(n, v, el.str))
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
	if v.get("if") != nil && doc.draft >= 7 {
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
func (b *builder) meta(n *node, v *jnode) {
	idKey := "$id"
	if n.doc.draft == 4 {
		idKey = "id"
	}
	if x := v.get(idKey); x != nil && x.kind == jString {
		n.id, n.hasID = x.str, true
	}
	if x := v.get("title"); x != nil && x.kind == jString {
		n.title, n.hasTitle = x.str, true
	}
	if x := v.get("description"); x != nil && x.kind == jString {
		n.desc, n.hasDesc = x.str, true
	}
	if x := v.get("default"); x != nil {
		n.def, n.hasDef = canonical(x), true
	}
}

// typed builds the node of one type from the keywords of that type.
func (b *builder) typed(n *node, v *jnode, typ string) *node {
	doc, ptr := n.doc, n.ptr
	switch typ {
	case "string":
		p := b.part(n, kString)
		p.minLen = intKey(v, "minLength")
		p.maxLen = intKey(v, "maxLength")
		if x := v.get("pattern"); x != nil && x.kind == jString {
			s := x.str
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
		items, prefix := v.get("items"), v.get("prefixItems")
		if prefix != nil && prefix.kind == jArray && doc.draft >= 2020 {
			for i, el := range prefix.elems {
				p.itemList = append(p.itemList, b.load(doc, el, fmt.Sprintf("%s/prefixItems/%d", ptr, i)))
			}
			b.additional(doc, items, ptr+"/items", &p.addlItemsClosed, &p.addlItems)
		} else if items != nil && items.kind == jArray {
			for i, el := range items.elems {
				p.itemList = append(p.itemList, b.load(doc, el, fmt.Sprintf("%s/items/%d", ptr, i)))
			}
		} else if items != nil {
			p.items = b.load(doc, items, ptr+"/items")
		}
		if doc.draft < 2020 {
			b.additional(doc, v.get("additionalItems"), ptr+"/additionalItems", &p.addlItemsClosed, &p.addlItems)
		}
		if x := v.get("unevaluatedItems"); x != nil {
			p.unevalItems = b.load(doc, x, ptr+"/unevaluatedItems")
		}
		p.maxItems, p.minItems = intKey(v, "maxItems"), intKey(v, "minItems")
		p.maxContains, p.minContains = intKey(v, "maxContains"), intKey(v, "minContains")
		if x := v.get("uniqueItems"); x != nil && x.kind == jBool && x.str == "true" {
			p.unique = true
		}
		return p
	}
	// An unknown type name: the meta-schema check reports it.
	return b.part(n, kEmpty)
}

// object builds an object node from the object keywords.
func (b *builder) object(n *node, v *jnode) *node {
	doc, ptr := n.doc, n.ptr
	p := b.part(n, kObject)
	if props := v.get("properties"); props != nil && props.kind == jObject {
		p.propIdx = make(map[string]int, len(props.members))
		for _, m := range props.members {
			p.propIdx[m.key] = len(p.props)
			pn := b.load(doc, m.val, ptr+"/properties/"+escapePointerToken(m.key))
			p.props = append(p.props, prop{m.key, pn, leafSig(pn)})
		}
	}
	if req := v.get("required"); req != nil && req.kind == jArray {
		p.required = map[string]bool{}
		for _, el := range req.elems {
			if el.kind == jString {
				p.required[el.str] = true
			}
		}
	}
	if pp := v.get("patternProperties"); pp != nil && pp.kind == jObject {
		for _, m := range pp.members {
			re, _ := regexp.Compile(m.key) // ECMA-262 patterns Go cannot read match nothing
			p.patternProps = append(p.patternProps, patternProp{m.key, re, b.load(doc, m.val, ptr+"/patternProperties/"+escapePointerToken(m.key))})
		}
	}
	b.additional(doc, v.get("additionalProperties"), ptr+"/additionalProperties", &p.addlClosed, &p.addl)
	if x := v.get("unevaluatedProperties"); x != nil {
		p.uneval = b.load(doc, x, ptr+"/unevaluatedProperties")
	}
	deps := func(key string) {
		d := v.get(key)
		if d == nil || d.kind != jObject {
			return
		}
		for _, m := range d.members {
			if m.val.kind == jArray {
				if p.propDeps == nil {
					p.propDeps = map[string][]string{}
				}
				var names []string
				for _, el := range m.val.elems {
					names = appendUnique(names, el.str)
				}
				p.propDeps[m.key] = names
				continue
			}
			if p.schemaDeps == nil {
				p.schemaDeps = map[string]*node{}
			}
			p.schemaDeps[m.key] = b.load(doc, m.val, ptr+"/"+key+"/"+escapePointerToken(m.key))
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
func (b *builder) additional(doc *document, x *jnode, ptr string, closed *bool, schema **node) {
	switch {
	case x == nil:
	case x.kind == jBool:
		*closed = x.str == "false"
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

func hasAny(v *jnode, keys []string) bool {
	for _, k := range keys {
		if v.get(k) != nil {
			return true
		}
	}
	return false
}

func hasConstraints(v *jnode) bool {
	for _, m := range v.members {
		if !annotationKeys[m.key] {
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

func intKey(v *jnode, key string) optInt {
	x := v.get(key)
	if x == nil || x.kind != jNumber {
		return optInt{}
	}
	r, ok := new(big.Rat).SetString(x.str)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return optInt{}
	}
	return optInt{r.Num().Int64(), true}
}

func numKey(v *jnode, key string) optNum {
	x := v.get(key)
	if x == nil || x.kind != jNumber {
		return optNum{}
	}
	r, ok := new(big.Rat).SetString(x.str)
	if !ok {
		return optNum{}
	}
	return optNum{r, x.str}
}

func describeKind(k jkind) string {
	switch k {
	case jArray:
		return "an array"
	case jString:
		return "a string"
	case jNumber:
		return "a number"
	case jNull:
		return "null"
	}
	return "a value"
}

// canonical renders a JSON value with sorted object keys and no space, so equal values
// have equal texts.
func canonical(v *jnode) string {
	var sb strings.Builder
	writeCanonical(&sb, v)
	return sb.String()
}

func writeCanonical(sb *strings.Builder, v *jnode) {
	if v == nil {
		sb.WriteString("null")
		return
	}
	switch v.kind {
	case jObject:
		ms := slices.SortedFunc(slices.Values(v.members), func(a, b jmember) int { return strings.Compare(a.key, b.key) })
		sb.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Quote(m.key))
			sb.WriteByte(':')
			writeCanonical(sb, m.val)
		}
		sb.WriteByte('}')
	case jArray:
		sb.WriteByte('[')
		for i, el := range v.elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeCanonical(sb, el)
		}
		sb.WriteByte(']')
	case jString:
		sb.WriteString(strconv.Quote(v.str))
	case jNumber:
		if r, ok := new(big.Rat).SetString(v.str); ok {
			sb.WriteString(r.RatString())
		} else {
			sb.WriteString(v.str)
		}
	default:
		sb.WriteString(v.str)
	}
}
