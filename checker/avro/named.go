package avro

import (
	"fmt"
	"slices"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// checkNames: the reader's named type has the writer's unqualified name, or lists the
// writer's full name among its aliases. Like the reference implementation, the
// namespace is not compared.
func checkNames(_ *walker, p pair) []issue {
	rn, wn := p.r.s.(avro.NamedSchema), p.w.s.(avro.NamedSchema)
	if rn.Name() == wn.Name() || slices.Contains(rn.Aliases(), wn.FullName()) {
		return nil
	}
	return []issue{{
		rule: ruleNameMismatch, loc: p.loc + "/name", detail: "expected: " + wn.FullName(),
		r: p.r, w: p.w, suffix: "/name",
	}}
}

func messageNames(is *issue, dir checker.Direction, against int) string {
	rn, wn := is.r.s.(avro.NamedSchema), is.w.s.(avro.NamedSchema)
	kind := kindOf(is.r.s)
	if dir == checker.NewReadsOld {
		return fmt.Sprintf("%s %q at %s is named %q in version %d; the renamed type cannot read the old one. Name it %q again, or add %q to its \"aliases\".",
			kind, rn.FullName(), subject(is.r.path), wn.FullName(), against, wn.Name(), wn.FullName())
	}
	return fmt.Sprintf("%s at %s was renamed from %q to %q; consumers on version %d look for %q and cannot see aliases written in the new schema. Keep the name %q.",
		kind, subject(is.w.path), rn.FullName(), wn.FullName(), against, rn.FullName(), rn.Name())
}

// checkFixedSize: a fixed type is read by a fixed type of the same size.
func checkFixedSize(_ *walker, p pair) []issue {
	rs, ws := p.r.s.(*avro.FixedSchema).Size(), p.w.s.(*avro.FixedSchema).Size()
	if rs == ws {
		return nil
	}
	return []issue{{
		rule: ruleFixedSizeMismatch, loc: p.loc + "/size", detail: fmt.Sprintf("expected: %d, found: %d", ws, rs),
		r: p.r, w: p.w, suffix: "/size",
	}}
}

func messageFixedSize(is *issue, dir checker.Direction, against int) string {
	rf, wf := is.r.s.(*avro.FixedSchema), is.w.s.(*avro.FixedSchema)
	oldSize, newSize, path := wf.Size(), rf.Size(), is.r.path
	if dir == checker.OldReadsNew {
		oldSize, newSize, path = rf.Size(), wf.Size(), is.w.path
	}
	return fmt.Sprintf("fixed type %q at %s changed size from %d to %d bytes (version %d has %d); a fixed size cannot change. Keep %d bytes, or add a new field of a new fixed type.",
		rf.FullName(), subject(path), oldSize, newSize, against, oldSize, oldSize)
}
