package protobuf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// rule is one of buf's breaking rules: an id that reads as a sentence, a one-sentence
// purpose, and a handler for one kind of paired element. Exactly one handler is set.
type rule struct {
	id      string
	purpose string

	file       func(r *report, prev, cur protoreflect.FileDescriptor)
	message    func(r *report, prev, cur protoreflect.MessageDescriptor)
	field      func(r *report, prev, cur protoreflect.FieldDescriptor)
	enum       func(r *report, prev, cur protoreflect.EnumDescriptor)
	enumValues func(r *report, prev, cur []protoreflect.EnumValueDescriptor)
	method     func(r *report, prev, cur protoreflect.MethodDescriptor)
}

// categorized is a rule and the buf categories it belongs to.
type categorized struct {
	rule       rule
	categories []string
}

// breakingRules is the rule table, with buf's (v2 configuration) WIRE and WIRE_JSON
// category assignments. Categories are assigned here, never inside a rule.
func breakingRules() []categorized {
	both := []string{RulesWire, RulesWireJSON}
	wire := []string{RulesWire}
	wireJSON := []string{RulesWireJSON}
	return []categorized{
		{fileSamePackage, both},
		{messageSameRequiredFields, both},
		{reservedMessageNoDelete, both},
		{fieldNoDeleteUnlessNumberReserved, both},
		{fieldNoDeleteUnlessNameReserved, wireJSON},
		{messageSameJSONFormat, wireJSON},
		{fieldSameDefault, both},
		{fieldSameOneof, both},
		{fieldWireCompatibleCardinality, wire},
		{fieldWireJSONCompatibleCardinality, wireJSON},
		{fieldWireCompatibleType, wire},
		{fieldWireJSONCompatibleType, wireJSON},
		{fieldSameName, wireJSON},
		{fieldSameJSONName, wireJSON},
		{reservedEnumNoDelete, both},
		{enumValueNoDeleteUnlessNumberReserved, both},
		{enumValueNoDeleteUnlessNameReserved, wireJSON},
		{enumSameJSONFormat, wireJSON},
		{enumValueSameName, wireJSON},
		{rpcSameClientStreaming, both},
		{rpcSameServerStreaming, both},
		{rpcSameRequestType, both},
		{rpcSameResponseType, both},
		{rpcSameIdempotencyLevel, both},
	}
}

// RuleIDs lists the ids of buf's breaking rules in a category (WIRE or WIRE_JSON),
// sorted.
func RuleIDs(category string) []string {
	var out []string
	for _, c := range breakingRules() {
		for _, cat := range c.categories {
			if cat == category {
				out = append(out, c.rule.id)
			}
		}
	}
	sort.Strings(out)
	return out
}

// RulePurpose returns the one-sentence purpose of a rule id, or "".
func RulePurpose(id string) string {
	for _, c := range breakingRules() {
		if c.rule.id == id {
			return c.rule.purpose
		}
	}
	return ""
}

// report collects the findings of one rule.
type report struct {
	rule       string
	prev, next *Schema
	out        []checker.Finding
}

// add reports at element cur of the new schema (at the sub-element named by the source
// path suffix when it has a location), falling back to prev in the old schema.
func (r *report) add(cur, prev protoreflect.Descriptor, suffix []int32, format string, args ...any) {
	var p pos
	if cur != nil {
		p = r.next.locateSub(cur, suffix)
	}
	if p.line == 0 && prev != nil {
		p = r.prev.locateSub(prev, suffix)
	}
	d := cur
	if d == nil {
		d = prev
	}
	r.out = append(r.out, checker.Finding{
		Rule: r.rule, Path: registryPath(d), Span: located.Span{File: p.file, Line: p.line, Column: p.col},
		Direction: checker.NewReadsOld, Message: fmt.Sprintf(format, args...),
	})
}

// runRules runs the rules of a category over every pair of elements of prev and next.
func runRules(category string, prev, next *Schema) []checker.Finding {
	ps := pairUp(prev, next)
	var out []checker.Finding
	for _, c := range breakingRules() {
		in := false
		for _, cat := range c.categories {
			in = in || cat == category
		}
		if !in {
			continue
		}
		r := &report{rule: c.rule.id, prev: prev, next: next}
		ps.run(c.rule, r)
		out = append(out, r.out...)
	}
	return out
}

// registryPath renders a descriptor's place the way the registry does: `#/Msg/3`,
// `#/Msg/oneof/3`, `#/Enum/1`, `#/` for the file.
func registryPath(d protoreflect.Descriptor) string {
	var parts []string
	for d != nil {
		switch t := d.(type) {
		case protoreflect.FileDescriptor:
			return "#/" + strings.Join(parts, "/")
		case protoreflect.FieldDescriptor:
			parts = append([]string{strconv.Itoa(int(t.Number()))}, parts...)
			if od := realOneof(t); od != nil {
				parts = append([]string{string(od.Name())}, parts...)
			}
		case protoreflect.EnumValueDescriptor:
			parts = append([]string{strconv.Itoa(int(t.Number()))}, parts...)
		default:
			parts = append([]string{string(d.Name())}, parts...)
		}
		d = d.Parent()
	}
	return "#/" + strings.Join(parts, "/")
}
