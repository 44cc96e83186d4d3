package protobuf

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// Rule sets selectable beside the registry level: buf's breaking categories.
const (
	RulesWire     = "WIRE"
	RulesWireJSON = "WIRE_JSON"
)

// ParseRules reads a rule-set name ("" for none), case-insensitively.
func ParseRules(s string) (string, error) {
	switch u := strings.ToUpper(strings.TrimSpace(s)); u {
	case "", RulesWire, RulesWireJSON:
		return u, nil
	}
	return "", fmt.Errorf("unknown Protobuf rule set %q: use WIRE or WIRE_JSON, or leave it empty", s)
}

// Check checks next against the earlier versions (oldest first) with the registry's
// Protobuf semantics for level, plus buf's breaking rules of the category rules names
// ("", WIRE or WIRE_JSON; anything else counts as ""), through the shared level loop.
// Non-transitive levels compare with the latest version only. The result's Changes
// are the field changes from the latest version to next.
func Check(previous []*Schema, next *Schema, level checker.Level, rules string) *checker.Result {
	if next == nil {
		return &checker.Result{Compatible: true, Level: level}
	}
	vs := make([]checker.Version, len(previous))
	for i, s := range previous {
		if s != nil {
			vs[i].Schema = s
		}
	}
	res := Engine{}.Check(vs, next, level, rules)
	if len(previous) > 0 && previous[len(previous)-1] != nil {
		res.Changes = Diff(previous[len(previous)-1], next)
		res.Sort()
	}
	return res
}

// pairwise is the engine's step of the level loop: the registry's differences in one
// direction, and buf's rules of a category once per earlier version.
func pairwise(next *Schema, rules string) checker.Pairwise {
	p := checker.Pairwise{
		OnePerPlace: true,
		Compare: func(ps checker.Schema, dir checker.Direction, against int) []checker.Finding {
			prev, ok := ps.(*Schema)
			if !ok {
				return nil
			}
			forward := dir == checker.OldReadsNew
			orig, upd := prev.file, next.file
			if forward {
				orig, upd = next.file, prev.file
			}
			var out []checker.Finding
			for _, d := range confluentDiff(orig, upd) {
				if !compatibleDifferences[d.Kind] {
					out = append(out, levelFinding(d, prev, next, forward, against))
				}
			}
			return out
		},
	}
	if rules, _ = ParseRules(rules); rules != "" {
		p.Always = func(ps checker.Schema, _ int) []checker.Finding {
			prev, ok := ps.(*Schema)
			if !ok {
				return nil
			}
			return runRules(rules, prev, next)
		}
	}
	return p
}

// levelFinding turns a registry difference into a finding located in the new file
// when the element is there, in the old one otherwise. forward says the comparison
// ran with next as the original (earlier readers of new data).
func levelFinding(d difference, prev, next *Schema, forward bool, against int) checker.Finding {
	newSide, oldSide := d.upd, d.orig
	dir := checker.NewReadsOld
	if forward {
		newSide, oldSide = d.orig, d.upd
		dir = checker.OldReadsNew
	}
	var p pos
	if newSide != nil {
		p = next.locate(newSide)
	}
	if p.line == 0 && oldSide != nil {
		p = prev.locate(oldSide)
	}
	return checker.Finding{
		Rule: d.Kind, Path: d.Path, Span: located.Span{File: p.file, Line: p.line, Column: p.col},
		Against: against, Direction: dir, Message: levelMessage(d, forward),
	}
}

func describe(d protoreflect.Descriptor) string {
	if d == nil {
		return ""
	}
	if fd, ok := d.(protoreflect.FieldDescriptor); ok {
		return fmt.Sprintf("field %q (number %d)", fd.Name(), fd.Number())
	}
	if _, ok := d.(protoreflect.FileDescriptor); ok {
		return "the package"
	}
	return fmt.Sprintf("%q", d.FullName())
}

func levelMessage(d difference, forward bool) string {
	who := "consumers on the new schema cannot read data written with the earlier version"
	oldD, newD := d.orig, d.upd
	if forward {
		who = "consumers on the earlier version cannot read data written with the new schema"
		oldD, newD = d.upd, d.orig
	}
	el := describe(newD)
	if el == "" {
		el = describe(oldD)
	}
	oldF, _ := oldD.(protoreflect.FieldDescriptor)
	newF, _ := newD.(protoreflect.FieldDescriptor)
	types := func() string {
		if oldF == nil || newF == nil {
			return ""
		}
		return fmt.Sprintf(" from %s to %s", typeName(oldF), typeName(newF))
	}
	var what string
	switch d.Kind {
	case PackageChanged:
		what = "the package changed"
		if of, ok := oldD.(protoreflect.FileDescriptor); ok {
			if nf, ok := newD.(protoreflect.FileDescriptor); ok {
				what = fmt.Sprintf("the package changed from %q to %q", of.Package(), nf.Package())
			}
		}
	case MessageRemoved:
		// the message exists on the original side of the comparison only
		what = fmt.Sprintf("message %s was removed", describe(d.orig))
		if forward {
			what = fmt.Sprintf("message %s is new, and the registry's Protobuf check counts a message unknown to earlier readers as removed", describe(d.orig))
		}
	case FieldKindChanged:
		what = fmt.Sprintf("%s changed between scalar, message and map%s", el, types())
	case FieldScalarKindChanged:
		what = fmt.Sprintf("%s changed type%s, which encode differently on the wire", el, types())
	case FieldNamedTypeChanged:
		if oldF != nil && newF != nil && typeName(oldF) != typeName(newF) && localName(valueMessage(oldF)) != localName(valueMessage(newF)) {
			what = fmt.Sprintf("%s changed its message type%s", el, types())
		} else {
			what = fmt.Sprintf("the message type of %s changed incompatibly (see the findings inside it)", el)
		}
	case FieldNumericLabelChanged:
		what = fmt.Sprintf("%s changed between optional, repeated and required on a numeric type", el)
	case RequiredFieldAdded:
		what = fmt.Sprintf("required %s was added", el)
	case RequiredFieldRemoved:
		what = fmt.Sprintf("required %s was removed", el)
	case OneofFieldRemoved:
		what = fmt.Sprintf("%s was removed from its oneof", describe(d.orig))
	case MultipleFieldsMovedToOneof:
		what = fmt.Sprintf("several existing fields were moved into oneof %s, so they can no longer be set together", el)
	case FieldMovedToExistingOneof:
		what = fmt.Sprintf("oneof %s now holds fields that could be set together before", el)
	default:
		what = strings.ToLower(strings.ReplaceAll(d.Kind, "_", " "))
	}
	return fmt.Sprintf("%s (at %s); %s. Undo the change, or choose a looser compatibility level and plan the change with the consumers.", what, d.Path, who)
}
