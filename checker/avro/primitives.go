package avro

import (
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// promotions lists, for each writer type, the other reader types that can read it
// (the specification's schema resolution rules).
var promotions = map[avro.Type][]avro.Type{
	avro.Int:    {avro.Long, avro.Float, avro.Double},
	avro.Long:   {avro.Float, avro.Double},
	avro.Float:  {avro.Double},
	avro.String: {avro.Bytes},
	avro.Bytes:  {avro.String},
}

// primCode numbers the primitive types (0: not primitive) for the fast path of field
// pairing, which compares many fields.
type primCode uint8

const (
	primNone primCode = iota
	primNull
	primBoolean
	primInt
	primLong
	primFloat
	primDouble
	primBytes
	primString
	primCount
)

func primCodeOf(t avro.Type) primCode {
	switch t {
	case avro.Null:
		return primNull
	case avro.Boolean:
		return primBoolean
	case avro.Int:
		return primInt
	case avro.Long:
		return primLong
	case avro.Float:
		return primFloat
	case avro.Double:
		return primDouble
	case avro.Bytes:
		return primBytes
	case avro.String:
		return primString
	}
	return primNone
}

// readable[w][r] says whether a reader of primitive r reads a writer value of primitive
// w: the same type or a promotion (derived from promotions).
var readable = func() (m [primCount][primCount]bool) {
	for c := primNull; c < primCount; c++ {
		m[c][c] = true
	}
	for w, rs := range promotions {
		for _, r := range rs {
			m[primCodeOf(w)][primCodeOf(r)] = true
		}
	}
	return m
}()

// promotes reports whether a reader of type r reads a writer value of type w.
func promotes(w, r avro.Type) bool {
	for _, t := range promotions[w] {
		if t == r {
			return true
		}
	}
	return false
}

// checkPromotion: elements of different types match only by a promotion.
func checkPromotion(_ *walker, p pair) []issue {
	rt, wt := kindOf(p.r.s), kindOf(p.w.s)
	if promotes(wt, rt) {
		return nil
	}
	return []issue{{
		rule: ruleTypeMismatch, loc: p.loc,
		detail: fmt.Sprintf("reader type: %s not compatible with writer type: %s", refType(p.r.s), refType(p.w.s)),
		r:      p.r, w: p.w,
	}}
}

func messageTypeMismatch(is *issue, dir checker.Direction, against int) string {
	if dir == checker.NewReadsOld {
		old, nw := label(is.w.s), label(is.r.s)
		if is.w.union != nil {
			return fmt.Sprintf("%s changed from %s to %s, which cannot read the %s values version %d wrote. Keep %s, or add a new field with a default and stop writing this one.",
				subjectOf(is.r), label(is.w.union), nw, old, against, label(is.w.union))
		}
		return fmt.Sprintf("%s changed from %s to %s, which cannot read the %s that version %d wrote. Keep %s%s, or add a new field with a default and stop writing this one.",
			subjectOf(is.r), old, nw, old, against, old, widenings(kindOf(is.w.s)))
	}
	old, nw := label(is.r.s), label(is.w.s)
	if is.w.union != nil {
		return fmt.Sprintf("%s changed from %s to %s, whose %s values consumers on version %d (reading %s) cannot read. Keep %s, or add a new field with a default and stop writing this one.",
			subjectOf(is.w), old, label(is.w.union), nw, against, old, old)
	}
	return fmt.Sprintf("%s changed from %s to %s, which consumers on version %d (reading %s) cannot read. Keep %s, or add a new field with a default and stop writing this one.",
		subjectOf(is.w), old, nw, against, old, old)
}

// widenings names the types a value of type t may be widened to, as a clause.
func widenings(t avro.Type) string {
	ps := promotions[t]
	if len(ps) == 0 {
		return ""
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return ", widen it to " + strings.Join(names, " or ")
}

// refType is the reference implementation's name of a schema's type ("INT", "RECORD").
func refType(s avro.Schema) string { return strings.ToUpper(string(kindOf(s))) }

// label is a short rendering of a type for messages: `long`, `long (timestamp-millis)`,
// `record "ns.Order"`, `array of string`, `union [null, string]`.
func label(s avro.Schema) string {
	return labelDepth(deref(s), 0)
}

func labelDepth(s avro.Schema, depth int) string {
	if depth > 4 {
		return "..."
	}
	switch t := s.(type) {
	case avro.NamedSchema:
		return fmt.Sprintf("%s %q", kindOf(s), t.FullName())
	case *avro.ArraySchema:
		return "array of " + labelDepth(deref(t.Items()), depth+1)
	case *avro.MapSchema:
		return "map of " + labelDepth(deref(t.Values()), depth+1)
	case *avro.UnionSchema:
		parts := make([]string, len(t.Types()))
		for i, b := range t.Types() {
			parts[i] = labelDepth(deref(b), depth+1)
		}
		return "union [" + strings.Join(parts, ", ") + "]"
	case avro.LogicalTypeSchema:
		if l := t.Logical(); l != nil {
			return fmt.Sprintf("%s (%s)", s.Type(), logicalString(l))
		}
	}
	return string(s.Type())
}

func logicalString(l avro.LogicalSchema) string {
	if d, ok := l.(*avro.DecimalLogicalSchema); ok {
		return fmt.Sprintf("decimal(%d,%d)", d.Precision(), d.Scale())
	}
	return string(l.Type())
}

// subject names the place of a finding in a sentence.
func subject(path string) string {
	if path == "" {
		return "the top-level type"
	}
	return fmt.Sprintf("field %q", path)
}

// subjectOf names an element in a sentence: a field, or the items or values of one
// (arrays and maps are transparent in field paths, so the pointer tells).
func subjectOf(sd side) string {
	if _, named := sd.s.(avro.NamedSchema); named {
		return subject(sd.path) // its pointer is its definition, maybe elsewhere
	}
	ptr := sd.ptr
	if sd.union != nil {
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
	switch {
	case strings.HasSuffix(ptr, "/items"):
		return "the items of " + subject(sd.path)
	case strings.HasSuffix(ptr, "/values"):
		return "the values of " + subject(sd.path)
	}
	return subject(sd.path)
}
