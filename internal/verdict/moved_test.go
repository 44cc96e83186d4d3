package verdict

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A subject whose folder moves is judged on everything else that changed in the same
// pull request exactly as if it had not moved (issue 25: a move hid every
// contract.yaml change), plus a note naming the move.
func TestMovedSubjectJudgedOnItsChanges(t *testing.T) {
	const (
		oldDir = "contracts/orders/order-created"
		newDir = "contracts/orders/oc2"
	)
	for _, tc := range []struct{ name, old, new string }{
		{"rule", "fields:\n", "rules:\n  - {name: refuse, kind: CONDITION, type: CEL, mode: WRITE, expr: \"false\", on_failure: ERROR}\nfields:\n"},
		{"unit", "    unit: cents\n", "    unit: CNY\n"},
		{"policy", "signoff_hours: 24\n", "signoff_hours: 24\npolicy: {removal: \"off\"}\n"},
		{"tier", "tier: core\n", "tier: standard\n"},
		{"deprecated", "    unit: cents\n", "    unit: cents\n    deprecated: {since: \"2026-12-01\", remove_after: \"2027-03-01\", replacement: items}\n"},
		{"signoff-hours", "signoff_hours: 24\n", "signoff_hours: 48\n"},
		{"pii", "  user_id:\n    pii: true\n", "  user_id:\n"},
		{"topic", "topic: ods_order_events\n", "topic: ods_order_events_v2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stay := newScenarioRepo(t)
			stay.replace(orderCreatedContract, tc.old, tc.new)
			stay.commit(tc.name)
			want := Assess(stay.input())

			moved := newScenarioRepo(t)
			must(t, os.Rename(moved.path(oldDir), moved.path(newDir)))
			moved.replace(newDir+"/contract.yaml", tc.old, tc.new)
			moved.commit(tc.name + ", moved")
			got := Assess(moved.input())

			equal(t, "class", got.Class, want.Class)
			equal(t, "sign-offs", statuses(got), statuses(want))
			if len(want.Subjects) == 0 && len(got.Subjects) == 1 && got.Subjects[0].Kind == Moved {
				return // a deprecation alone is no change of the subject: only the move is
			}
			if len(want.Subjects) != 1 || len(got.Subjects) != 1 {
				t.Fatalf("subjects: not moved %d, moved %d, want 1 each", len(want.Subjects), len(got.Subjects))
			}
			s, w := got.Subjects[0], want.Subjects[0]
			equal(t, "class of the subject", s.Class, w.Class)
			equal(t, "change kinds", changeKinds(s), changeKinds(w))
			equal(t, "governance", len(s.Governance), len(w.Governance))
			equal(t, "old folder", s.OldDir, oldDir)
			if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.HasPrefix(n, "the folder moved from "+oldDir+" to "+newDir) }) {
				t.Errorf("no move note: %q", s.Notes)
			}
		})
	}
}

func changeKinds(s *SubjectReport) []string {
	out := []string{}
	for _, c := range s.Changes {
		out = append(out, string(c.Kind))
	}
	return out
}
