package report

import (
	"testing"
	"time"
)

// TestAutomate: merges through pull requests split by verdict and override, pushes
// straight to the branch counted apart, the sign-off latency over approved sign-offs
// by nearest rank, and sign-offs without a request time counted as unknown.
func TestAutomate(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	var merges []Merge
	for i := 1; i <= 10; i++ { // latencies 1 h ... 10 h
		merges = append(merges, Merge{Commit: "c", PullRequest: i, SignOffs: []SignOffTimes{{Team: "a", Requested: t0, ApprovedAt: t0.Add(time.Duration(i) * time.Hour)}}})
	}
	merges = append(merges,
		Merge{PullRequest: 11, Override: true, SignOffs: []SignOffTimes{{Team: "a", Requested: t0}}}, // never approved
		Merge{PullRequest: 12, SignOffs: []SignOffTimes{{Team: "b", ApprovedAt: t0}}},                // no request time
		Merge{Commit: "direct"})
	a := Automate("change events", merges, true)
	if a.Merges != 13 || a.PullRequests != 12 || a.Direct != 1 || *a.Verdict != 11 || *a.Override != 1 {
		t.Errorf("counts %+v", a)
	}
	if *a.Rate != 11.0/12 {
		t.Errorf("rate %v", *a.Rate)
	}
	if l := a.Latency; l.SignOffs != 10 || l.Median != 5*time.Hour || l.P90 != 9*time.Hour || l.Unknown != 1 {
		t.Errorf("latency %+v", l)
	}
	if a := Automate("Git history", merges, false); a.Verdict != nil || a.Latency != nil || a.Direct != 1 {
		t.Errorf("the Git history knows no verdicts: %+v", a)
	}
	if got := nearestRank([]time.Duration{7}, 90); got != 7 {
		t.Errorf("one value: %v", got)
	}
}
