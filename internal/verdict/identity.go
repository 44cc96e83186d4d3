package verdict

import (
	"bytes"
	"fmt"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// identity is what a registry will make of a modified schema: registries identify a
// schema by its canonical form (checker.Canonical), not its text.
type identity struct {
	file string
	// layoutOnly: the text changed, its canonical form did not.
	layoutOnly bool
	// base is the number of the earlier version whose form the base has (0: unknown);
	// returnsTo that of the earlier version, not the latest, whose form the head has
	// again (0: none); latest the highest version number.
	base, returnsTo, latest int
}

// identify compares the canonical forms of the base, the head and the earlier
// versions (history: one per canonical form, oldest first, numbered from 1).
func identify(eng checker.Engine, b, h *contract.Subject, history []contract.Earlier) identity {
	id := identity{file: h.SchemaFile, latest: len(history)}
	form := func(text []byte) []byte {
		c, err := checker.Canonical(eng, text)
		if err != nil {
			return nil
		}
		return c
	}
	baseForm, headForm := form(b.SchemaText), form(h.SchemaText)
	id.layoutOnly = headForm != nil && bytes.Equal(baseForm, headForm) &&
		!bytes.Equal(b.SchemaText, h.SchemaText)
	for i, hi := range history {
		f := hi.Canonical
		if f == nil {
			f = form(hi.Data)
		}
		if bytes.Equal(hi.Data, b.SchemaText) || baseForm != nil && bytes.Equal(f, baseForm) {
			id.base = i + 1
		}
		if headForm != nil && !bytes.Equal(headForm, baseForm) && bytes.Equal(f, headForm) && i+1 < len(history) {
			id.returnsTo = i + 1
		}
	}
	return id
}

// note tells what publishing will do when that is not the usual new version.
func (id identity) note(sr *SubjectReport) {
	if id.layoutOnly {
		sr.Notes = append(sr.Notes, fmt.Sprintf("only the layout of %s changes (white space, comments or the order of keys): its canonical form, by which a schema registry identifies a schema, stays the same, so publishing registers no new version and sends no change event", id.file))
	}
	if id.returnsTo > 0 {
		sr.Warnings = append(sr.Warnings, fmt.Sprintf(
			"%s returns to version %d of %s (the same canonical form). A schema registry answers with version %d and keeps version %d as the latest, so producers that write the latest version (use.latest.version=true) keep writing version %d. Change the schema so that it differs from version %d (its doc, for example), or, once this is merged, have version %d deleted from the registry (a soft delete) so that version %d is the latest again.",
			id.file, id.returnsTo, sr.Subject, id.returnsTo, id.latest, id.latest, id.returnsTo, id.latest, id.returnsTo))
	}
}
