package contract

import (
	"slices"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestSummariesAgreeWithLoad: on the example tree every subject's summary (read without
// parsing schemas or consumer files) says what the full load says of it.
func TestSummariesAgreeWithLoad(t *testing.T) {
	src := NewDirSource(testutil.RepoRoot(t))
	tree, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := Summaries(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != len(tree.Subjects) {
		t.Fatalf("%d summaries, %d subjects", len(sums), len(tree.Subjects))
	}
	for _, s := range sums {
		sub := tree.Subject(s.Subject)
		if sub == nil {
			t.Errorf("summary of %s: no such subject in the load", s.Subject)
			continue
		}
		pii := 0
		for _, m := range sub.Fields {
			if m.PII {
				pii++
			}
		}
		var names []string
		for _, c := range sub.Consumers {
			names = append(names, c.Name)
		}
		slices.Sort(names)
		got := []any{s.Dir, s.Domain, s.Format, s.Compatibility, s.Owner, s.Tier, s.Topic, s.Description, s.PII, slices.Sorted(slices.Values(s.Consumers))}
		want := []any{sub.Dir, sub.Domain, sub.Format, sub.Compatibility, sub.Owner, sub.Tier, sub.Topic, sub.Description, pii, names}
		for i := range got {
			if !equalAny(got[i], want[i]) {
				t.Errorf("%s: summary field %d is %v, the load says %v", s.Subject, i, got[i], want[i])
			}
		}
	}
}

func equalAny(a, b any) bool {
	as, aok := a.([]string)
	bs, bok := b.([]string)
	if aok || bok {
		return slices.Equal(as, bs)
	}
	return a == b
}
