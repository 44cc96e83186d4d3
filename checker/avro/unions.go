package avro

import (
	"fmt"

	"github.com/contractbot/contractbot/checker"
)

// checkUnionBranch: the walker found a writer type (a union branch or the writer's one
// type) that no branch of the reader can read; this reports it.
func checkUnionBranch(_ *walker, p pair) []issue {
	return []issue{{
		rule: ruleMissingUnionBranch, loc: p.loc,
		detail: fmt.Sprintf("reader union lacking writer type: %s", refType(p.w.s)),
		r:      p.r, w: p.w,
	}}
}

func messageUnionBranch(is *issue, dir checker.Direction, against int) string {
	if dir == checker.NewReadsOld {
		return fmt.Sprintf("%s is %s, which cannot read the %s that version %d wrote. Add %s to the union (or a type it promotes to).",
			subjectOf(is.r), label(is.r.s), label(is.w.s), against, label(is.w.s))
	}
	return fmt.Sprintf("%s can now hold %s, which consumers on version %d (reading %s) cannot read. Drop that type, or add it first in a version those consumers run.",
		subjectOf(is.w), label(is.w.s), against, label(is.r.s))
}
