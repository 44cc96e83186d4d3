package calendar

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// The classes of a change, as the verdict names them.
const (
	Safe       = "SAFE"
	Compatible = "COMPATIBLE"
	Breaking   = "BREAKING"
)

// EntryRequired reports whether a change of class needs a calendar entry: a BREAKING
// change always does, a COMPATIBLE change when the subject's tier is core, a SAFE one
// never. class is one of "SAFE", "COMPATIBLE", "BREAKING" (case-insensitive, so the
// verdict can pass its own string type converted with string()); tier is the
// subject's tier ("core" or "standard").
func EntryRequired(class, tier string) bool {
	switch strings.ToUpper(strings.TrimSpace(class)) {
	case Breaking:
		return true
	case Compatible:
		return tier == "core"
	}
	return false
}

// Problem codes: why an entry that names a subject does not count.
const (
	// ProblemEnded: the entry's window ended at or before now.
	ProblemEnded = "ended"
	// ProblemFreeze: the entry's window overlaps a freeze in scope of the subject.
	ProblemFreeze = "freeze"
)

// Problem says why one calendar entry cannot carry a change.
type Problem struct {
	// File is the entry's file, e.g. calendar/2026-12-08-split-order-amount.yaml.
	File string `json:"file"`
	// Code is ProblemEnded or ProblemFreeze.
	Code string `json:"code"`
	// Freeze is the overlapping freeze occurrence, for ProblemFreeze.
	Freeze *Window `json:"freeze,omitempty"`
	// Message is a sentence for a person: what is wrong and what to do.
	Message string `json:"message"`
}

// FindEntry returns the calendar entry that may carry a change to subject at now: one
// that names the subject, whose window has not ended at now (a window under way
// counts), that overlaps no freeze in scope of the subject and that is not a
// dual-write window. Of several, the one that starts first wins. When entries name the subject but none is valid, it returns
// nil and one problem per entry and reason, in entry order. When no entry names the
// subject it returns nil, nil: the caller asks for one (Suggest writes it).
func FindEntry(tree *contract.Tree, subject string, now time.Time) (*contract.Entry, []Problem) {
	freezes := freezesFor(tree, []string{subject})
	var problems []Problem
	for _, e := range tree.Entries {
		if !slices.Contains(e.Subjects, subject) || e.Kind == contract.KindDualWrite {
			continue // a dual-version period plans no change of its own (DualWrite)
		}
		ps := entryProblems(e, freezes, now)
		if len(ps) == 0 {
			return e, nil
		}
		problems = append(problems, ps...)
	}
	return nil, problems
}

// entryProblems lists why e cannot carry a change at now, given the freezes in scope.
func entryProblems(e *contract.Entry, freezes []*contract.Freeze, now time.Time) []Problem {
	var ps []Problem
	loc := Location(e.Timezone)
	if !e.End.After(now) {
		ps = append(ps, Problem{File: e.File, Code: ProblemEnded, Message: fmt.Sprintf(
			"%s: the window ended %s; move it to a time ahead, or add a new entry.",
			e.File, e.End.In(loc).Format(stampLayout))})
	}
	for _, w := range freezeWindows(freezes, e.Start, e.End) {
		w := w
		ps = append(ps, Problem{File: e.File, Code: ProblemFreeze, Freeze: &w, Message: fmt.Sprintf(
			"%s: the window (%s to %s) overlaps freeze %q (%s to %s); move it outside the freeze.",
			e.File, e.Start.In(loc).Format(stampLayout), e.End.In(loc).Format(stampLayout),
			w.Name, w.Start.In(loc).Format(stampLayout), w.End.In(loc).Format(stampLayout))})
	}
	return ps
}

// stampLayout is how a time appears in messages: local time with its zone.
const stampLayout = "Mon 2006-01-02 15:04 MST"

// MergeBlocked returns the freeze window in scope of subject that is active at now, or
// nil when merging is allowed. When several are active it returns the one that ends
// last (merging is blocked until then), the first in start order among equals.
func MergeBlocked(tree *contract.Tree, subject string, now time.Time) *Window {
	var best *Window
	for _, w := range freezeWindows(freezesFor(tree, []string{subject}), now, now.Add(time.Nanosecond)) {
		if best == nil || w.End.After(best.End) {
			w := w
			best = &w
		}
	}
	return best
}

func join(ss []string) string { return strings.Join(ss, ", ") }
