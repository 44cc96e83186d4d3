package jsonschema

import (
	"math/big"
	"regexp"
	"slices"
	"strconv"

	"github.com/contractbot/contractbot/checker/jsontext"
)

// kind is the kind of a schema node, one per class of the model the Confluent Schema
// Registry compares (everit's schema classes): a node of one kind compares only with a
// node of the same kind.
type kind uint8

const (
	kEmpty    kind = iota + 1 // {} or a schema with no keyword that constrains
	kTrue                     // true
	kFalse                    // false
	kBoolean                  // type boolean
	kNull                     // type null
	kString                   // type string, or string keywords
	kNumber                   // type number or integer, or number keywords
	kObject                   // type object, or object keywords
	kArray                    // type array, or array keywords
	kEnum                     // enum
	kConst                    // const
	kCombined                 // allOf, anyOf, oneOf, a type list, or several of the above at once
	kNot                      // not
	kRef                      // $ref
	kCond                     // if/then/else
)

var kindNames = map[kind]string{
	kEmpty: "any value", kTrue: "any value", kFalse: "no value", kBoolean: "boolean", kNull: "null",
	kString: "string", kNumber: "number", kObject: "object", kArray: "array", kEnum: "enum",
	kConst: "const", kCombined: "combined", kNot: "not", kRef: "$ref", kCond: "if/then/else",
}

// optInt is an integer keyword that may be absent.
type optInt struct {
	v  int64
	ok bool
}

// optNum is a number keyword that may be absent, kept exactly.
type optNum struct {
	v    *big.Rat
	text string
}

func (n optNum) ok() bool { return n.v != nil }

// node is one schema of the model: what a JSON schema object means, grouped as the
// registry groups it. Nodes built from the same place of a document are shared, so
// recursive schemas are graphs; nothing changes a node once the document is loaded.
type node struct {
	kind kind
	doc  *document
	// ptr is the JSON pointer of the schema object (or boolean) this node stands for.
	ptr string
	// src is the JSON text of the schema, for its canonical form.
	src *jsontext.Node

	id, title, desc, def             string
	hasID, hasTitle, hasDesc, hasDef bool

	// string
	minLen, maxLen optInt
	pattern        *string
	// number
	integer                          bool
	max, min, exMax, exMin, multiple optNum
	// object
	props        []prop
	propIdx      map[string]int
	required     map[string]bool
	patternProps []patternProp
	addlClosed   bool  // additionalProperties: false
	addl         *node // additionalProperties as a schema
	uneval       *node // unevaluatedProperties
	propDeps     map[string][]string
	schemaDeps   map[string]*node
	maxProps     optInt
	minProps     optInt
	// array
	items           *node   // one schema for every item
	itemList        []*node // a schema per position
	addlItemsClosed bool
	addlItems       *node
	unevalItems     *node
	maxItems        optInt
	minItems        optInt
	unique          bool
	maxContains     optInt
	minContains     optInt
	// enum and const: canonical texts of the values
	values   []string
	constVal string
	// combined
	crit string // allOf, anyOf or oneOf
	subs []*node
	// not
	not *node
	// ref
	ref    string
	target *node
}

// prop is one entry of properties. sig is a hash of the canonical text of a leaf
// schema (0 for any other): two leaf properties with the same sig compare equal
// without being read, which keeps a check of thousands of unchanged properties fast.
type prop struct {
	name string
	n    *node
	sig  uint64
}

// patternProp is one entry of patternProperties.
type patternProp struct {
	src string
	re  *regexp.Regexp
	n   *node
}

// propertyAt returns a named property, trying position i first (two versions of an
// object usually list their properties in the same order); nil when there is none.
func (n *node) propertyAt(i int, name string) *prop {
	if i < len(n.props) && n.props[i].name == name {
		return &n.props[i]
	}
	if j, ok := n.propIdx[name]; ok {
		return &n.props[j]
	}
	return nil
}

// leaf reports whether a node holds no other schema (so comparing it cannot recurse).
func (n *node) leaf() bool {
	switch n.kind {
	case kObject, kArray, kCombined, kNot, kRef:
		return false
	}
	return true
}

// isEmptyLike reports whether a node accepts every value (everit's EmptySchema and
// TrueSchema).
func (n *node) isEmptyLike() bool { return n.kind == kEmpty || n.kind == kTrue }

// deref follows $ref nodes to the schema they name (bounded: cycles of bare
// references are refused when the document loads).
func deref(n *node) *node {
	for i := 0; n != nil && n.kind == kRef && i < 64; i++ {
		n = n.target
	}
	return n
}

// openObject reports whether an object accepts any further property (no
// additionalProperties or patternProperties restricting them, unevaluatedProperties
// absent or true).
func (n *node) openObject() bool {
	if n.addlClosed || n.addl != nil || len(n.patternProps) > 0 {
		return false
	}
	return n.uneval == nil || n.uneval.isEmptyLike()
}

// partialObject returns the schema further properties named name must match when the
// object is partially open: a matching pattern property, additionalProperties, or
// unevaluatedProperties; nil when there is none.
func (n *node) partialObject(name string) *node {
	for _, pp := range n.patternProps {
		if pp.re != nil && pp.re.MatchString(name) {
			return pp.n
		}
	}
	if n.addl != nil {
		return n.addl
	}
	if !n.addlClosed && n.uneval != nil && n.uneval.kind != kFalse && !n.uneval.isEmptyLike() {
		return n.uneval
	}
	return nil
}

// openArray reports whether an array accepts any further item.
func (n *node) openArray() bool {
	if n.addlItemsClosed || n.addlItems != nil {
		return false
	}
	return n.unevalItems == nil || n.unevalItems.isEmptyLike()
}

// partialArray returns the schema further items must match, or nil.
func (n *node) partialArray() *node {
	if n.addlItems != nil {
		return n.addlItems
	}
	if !n.addlItemsClosed && n.unevalItems != nil && n.unevalItems.kind != kFalse && !n.unevalItems.isEmptyLike() {
		return n.unevalItems
	}
	return nil
}

// label is a short rendering of a node's type for messages and field changes:
// "string", "integer", "object", "string|null", "enum [a, b]".
func label(n *node) string { return labelDepth(n, 0) }

func labelDepth(n *node, depth int) string {
	n = deref(n)
	if n == nil {
		return "any value"
	}
	if depth > 4 {
		return "..."
	}
	switch n.kind {
	case kNumber:
		if n.integer {
			return "integer"
		}
		return "number"
	case kEnum:
		return "enum [" + joinShort(n.values) + "]"
	case kConst:
		return "const " + n.constVal
	case kCombined:
		var parts []string
		enum := ""
		for _, s := range n.subs {
			if d := deref(s); n.crit == "allOf" && d != nil && (d.kind == kEnum || d.kind == kConst) {
				enum = labelDepth(d, depth+1)
				continue
			}
			parts = append(parts, labelDepth(s, depth+1))
		}
		sep := "|"
		if n.crit == "allOf" {
			sep = "&"
		}
		if enum != "" {
			if len(parts) == 0 {
				return enum
			}
			return joinWith(parts, sep) + " " + enum
		}
		return joinWith(parts, sep)
	}
	return kindNames[n.kind]
}

func joinWith(parts []string, sep string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += sep
		}
		out += p
	}
	return out
}

func joinShort(vs []string) string {
	if len(vs) > 6 {
		return joinWith(vs[:6], ", ") + ", ... (" + strconv.Itoa(len(vs)) + " values)"
	}
	return joinWith(vs, ", ")
}

// typeKey is the identity of a field's type for pairing a removed field with an added
// one (a rename or a move): its label without enum values and constraints.
func typeKey(n *node) string {
	n = deref(n)
	if n == nil {
		return ""
	}
	if n.kind == kCombined {
		var parts []string
		for _, s := range n.subs {
			parts = append(parts, typeKey(s))
		}
		slices.Sort(parts)
		return n.crit + "(" + joinWith(parts, ",") + ")"
	}
	if n.kind == kEnum || n.kind == kConst {
		return "enum"
	}
	return label(n)
}
