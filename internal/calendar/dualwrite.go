package calendar

import (
	"slices"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// DualWrite returns the dual-write entry (a dual-version period) of subject whose
// window has not ended at now, under way or ahead; of several, the one that ends
// first. nil when there is none.
func DualWrite(tree *contract.Tree, subject string, now time.Time) *contract.Entry {
	var out *contract.Entry
	for _, e := range tree.Entries {
		if e.Kind != contract.KindDualWrite || !slices.Contains(e.Subjects, subject) || !e.End.After(now) {
			continue
		}
		if out == nil || e.End.Before(out.End) {
			out = e
		}
	}
	return out
}
