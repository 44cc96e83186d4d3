package avro

import (
	"fmt"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// checkFieldDefault: a reader field the writer does not have has a default value. As in
// the reference implementation, a field of an enum type with an enum default (and no
// field default) is instead read from the writer record itself, which fails as a type
// mismatch.
func checkFieldDefault(w *walker, p pair) []issue {
	rf := p.r.s.(*avro.RecordSchema).Fields()[p.fieldIndex]
	if rf.HasDefault() {
		return nil
	}
	if e, ok := deref(rf.Type()).(*avro.EnumSchema); ok && e.HasDefault() {
		r := side{doc: p.r.doc, s: e, ptr: p.r.doc.pointerOf(e, p.r.ptr+"/type"), path: p.r.path}
		wr := p.w
		return w.compat(pair{r: r, w: wr, loc: p.loc + "/type"})
	}
	return []issue{{
		rule: ruleReaderFieldNoDefault, loc: p.loc, detail: rf.Name(),
		r: p.r, w: p.w, readerOnly: true, field: rf.Name(),
	}}
}

func messageFieldDefault(is *issue, dir checker.Direction, against int) string {
	if dir == checker.NewReadsOld {
		return fmt.Sprintf("field %q is new and has no default, so the new schema cannot read records written with version %d, which lack it. Add a default to field %q (for an optional field: type [\"null\", ...] with \"default\": null), or remove it.",
			is.r.path, against, is.r.path)
	}
	return fmt.Sprintf("field %q was removed (or renamed), but version %d reads it and gives it no default, so consumers on version %d cannot read records written with the new schema. Keep field %q, or first publish a version in which it has a default.",
		is.r.path, against, against, is.r.path)
}
