package verdict

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// What a field means is declared twice: in the schema (its doc) and in contract.yaml's
// fields: (unit, doc, pii). A change to the second is judged like the same change to
// the first (docs/verdict.md, "Meaning in contract.yaml").

// fieldMetaDiffers reports whether the unit or doc contract.yaml declares for a field
// differs between two versions of a subject (pii is part of the data contract).
func fieldMetaDiffers(b, h *contract.Subject) bool {
	for _, p := range metaPaths(b, h) {
		bm, hm := b.Fields[p], h.Fields[p]
		if bm.Unit != hm.Unit || bm.Doc != hm.Doc || !sameDeprecation(bm.Deprecated, hm.Deprecated) {
			return true
		}
	}
	return false
}

// sameDeprecation compares two deprecated: mappings by what they say (not where).
func sameDeprecation(b, h *contract.Deprecation) bool {
	if b == nil || h == nil {
		return b == h
	}
	return b.Since.Equal(h.Since) && b.RemoveAfter.Equal(h.RemoveAfter) && b.Replacement == h.Replacement
}

func metaPaths(b, h *contract.Subject) []string {
	set := map[string]bool{}
	for p := range b.Fields {
		set[p] = true
	}
	for p := range h.Fields {
		set[p] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// renamedFrom maps each field the change renamed or moved (its new path) to its old
// path.
func renamedFrom(changes []checker.Change) map[string]string {
	out := map[string]string{}
	for _, c := range changes {
		if (c.Kind == checker.FieldRenamed || c.Kind == checker.FieldMoved) && c.OldPath != "" {
			out[c.Path] = c.OldPath
		}
	}
	return out
}

// fieldMetaChanges adds to sr.Changes what contract.yaml's fields: says differently
// about a field both versions of the schema have (under its old name for a renamed
// field): another unit (unit:, or the units its doc: names, checker.DocUnits) is
// UnitChanged, a change of meaning for its readers, as the same change in the
// schema's doc is; another doc naming the same units is DocChanged, harmless. A
// field the change adds or removes is judged by that change.
func fieldMetaChanges(b, h *contract.Subject, sr *SubjectReport) {
	from := renamedFrom(sr.Changes)
	for _, p := range slices.Sorted(maps.Keys(h.Fields)) {
		old := p
		if o, ok := from[p]; ok {
			old = o
		}
		if !h.HasFieldPath(p) || !b.HasFieldPath(old) {
			continue
		}
		bm, hm := b.Fields[old], h.Fields[p]
		pos := h.FieldPos[p]
		c := checker.Change{Path: p, File: h.ContractPath(), Line: pos.Line, Column: pos.Column}
		switch {
		case bm.Unit != hm.Unit:
			c.Kind, c.Old, c.New, c.Effect = checker.UnitChanged, bm.Unit, hm.Unit, checker.ChangesMeaning
			c.Message = fmt.Sprintf("%s declares another unit for field %q (%s before, %s now): check that readers scale the value.", h.ContractPath(), p, orNone(bm.Unit), orNone(hm.Unit))
		case !slices.Equal(checker.DocUnits(bm.Doc), checker.DocUnits(hm.Doc)):
			ou, nu := checker.DocUnits(bm.Doc), checker.DocUnits(hm.Doc)
			c.Kind, c.Old, c.New, c.Effect = checker.UnitChanged, strings.Join(ou, ","), strings.Join(nu, ","), checker.ChangesMeaning
			c.Message = fmt.Sprintf("the doc %s gives field %q names another unit (%s before, %s now): check that readers scale the value.", h.ContractPath(), p, orNone(strings.Join(ou, ", ")), orNone(strings.Join(nu, ", ")))
		case bm.Doc != hm.Doc:
			c.Kind, c.Old, c.New, c.Effect = checker.DocChanged, bm.Doc, hm.Doc, checker.Harmless
			c.Message = fmt.Sprintf("the doc %s gives field %q changed.", h.ContractPath(), p)
		default:
			continue
		}
		sr.Changes = append(sr.Changes, c)
	}
	// A field whose entry the change deletes, while the schema keeps it: its declared
	// unit is gone (a doc gone with it is not worth a line).
	renamed := slices.Collect(maps.Values(from))
	for _, p := range slices.Sorted(maps.Keys(b.Fields)) {
		bm := b.Fields[p]
		if _, kept := h.Fields[p]; kept || slices.Contains(renamed, p) || !h.HasFieldPath(p) || !b.HasFieldPath(p) {
			continue
		}
		units := slices.DeleteFunc([]string{bm.Unit, strings.Join(checker.DocUnits(bm.Doc), ",")}, func(s string) bool { return s == "" })
		if len(units) == 0 {
			continue
		}
		pos, ok := h.KeyPos["fields"]
		if !ok {
			pos = contract.Pos{Line: 1, Column: 1}
		}
		sr.Changes = append(sr.Changes, checker.Change{Kind: checker.UnitChanged, Path: p, Old: strings.Join(units, "; "), Effect: checker.ChangesMeaning,
			File: h.ContractPath(), Line: pos.Line, Column: pos.Column,
			Message: fmt.Sprintf("%s no longer declares the unit of field %q (%s before): check that readers scale the value.", h.ContractPath(), p, strings.Join(units, "; "))})
	}
}

// piiDropped lists the fields the change no longer marks pii, leaving out a field
// renamed or moved whose new path keeps the mark and a field the schema no longer
// has: the registry drops their PII tag
// and the rules scoped to PII stop applying to them.
func piiDropped(b, h *contract.Subject, changes []checker.Change) []string {
	carried := map[string]bool{}
	for to, from := range renamedFrom(changes) {
		if h.Fields[to].PII {
			carried[from] = true
		}
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(b.Fields)) {
		if b.Fields[p].PII && !h.Fields[p].PII && !carried[p] && h.HasFieldPath(p) {
			out = append(out, p)
		}
	}
	return out
}
