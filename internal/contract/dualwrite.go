package contract

import (
	"fmt"
	"slices"

	"github.com/contractbot/contractbot/checker/located"
)

// KindDualWrite is the calendar entry kind of a dual-version period: within its
// window the producer writes a field and its replacement side by side (which
// replaces which is the field's `deprecated: {replacement:}` in contract.yaml), its
// readers move to the replacement, and after it the old field is removed as any
// deprecated field is.
const KindDualWrite = "dual-write"

// CodeDualWriteReader is the warning on a consumer that still reads a field a
// dual-write window is replacing.
const CodeDualWriteReader = "dual-write-reader"

// Replaced lists the deprecated fields of a subject that name a replacement, sorted:
// what a dual-write window writes side by side.
func (s *Subject) Replaced() []string {
	var out []string
	for name, m := range s.Fields {
		if m.Deprecated != nil && m.Deprecated.Replacement != "" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// checkDualWrite checks the dual-write entries of a loaded tree: each subject they
// name deprecates a field with a replacement (else the window has nothing to say
// which field replaces which), a deprecation's remove_after does not come before
// the window's end (the old field would be removable while still written for its
// readers), and every consumer that still reads a replaced field is warned with the
// window's end.
func (l *loader) checkDualWrite(t *Tree) {
	for _, e := range t.Entries {
		if e.Kind != KindDualWrite {
			continue
		}
		f := &file{path: e.File, diags: &l.diags}
		for _, name := range e.Subjects {
			s := t.Subject(name)
			if s == nil {
				continue // not in the tree, or not loaded: reported elsewhere
			}
			replaced := s.Replaced()
			if len(replaced) == 0 {
				f.report(e.Pos, CodeInvalidValue, "this dual-write entry names %s, whose contract.yaml deprecates no field with a replacement; say which field replaces which there (fields: <old>: deprecated: {since, remove_after, replacement: <new>}), or use another kind.", name)
				continue
			}
			cf := &file{path: s.ContractPath(), diags: &l.diags}
			for _, old := range replaced {
				d := s.Fields[old].Deprecated
				if !d.RemoveAfter.IsZero() && d.RemoveAfter.Before(e.End) {
					cf.report(d.Pos, CodeInvalidValue, "remove_after (%s) of field %q comes before the end of the dual-write window %s (%s); keep the field at least until the window ends.", d.RemoveAfter.Format(dateLayout), old, e.File, e.End.UTC().Format("2006-01-02 15:04 UTC"))
				}
			}
			for _, c := range s.Consumers {
				for i, r := range c.Reads {
					field, d := s.DeprecationOf(r)
					if d == nil || d.Replacement == "" || i >= len(c.ReadPos) {
						continue
					}
					l.diags = append(l.diags, Diagnostic{Span: located.Span{File: c.File, Line: c.ReadPos[i].Line, Column: c.ReadPos[i].Column}, Severity: Warning, Code: CodeDualWriteReader,
						Message: fmt.Sprintf("%s reads %s of %s, which is written next to its replacement %s only during the dual-write window %s (until %s); read %s before then, and tell its owner when you have.",
							c.Name, field, s.Subject, d.Replacement, e.File, e.End.UTC().Format("2006-01-02 15:04 UTC"), d.Replacement)})
				}
			}
		}
	}
}
