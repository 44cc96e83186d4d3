package gitrepo

import "testing"

func TestMergedPullRequest(t *testing.T) {
	for msg, want := range map[string]int{
		"Merge pull request #42 from acme/x\n\nbody": 42,
		"Add a field (#7)":                           7,
		"Add a field (#7)\n\n* detail":               7,
		"Fix #3 in text":                             0,
		"Merge pull request #0 from acme/x":          0,
		"Add a field (#99999999999999999999)":        0,
	} {
		if got := MergedPullRequest(msg); got != want {
			t.Errorf("%q: %d, want %d", msg, got, want)
		}
	}
}
