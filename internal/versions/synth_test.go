package versions

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/go-git/go-git/v5/plumbing"
)

// On a generated repository every schema edit named in a commit message is one new
// version (the generator never reverts), and Extend one commit at a time equals Build.
func TestSyntheticRepository(t *testing.T) {
	o := synth.Options{Subjects: 120, Commits: 150, Seed: 5, Domains: 7, ProtobufShare: 0.25}
	dir := filepath.Join(t.TempDir(), "repo")
	_, st, err := synth.GenerateStats(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	ix, err := Build(repo.Repository, st.Head)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Warnings) != 0 {
		t.Fatalf("warnings: %v", ix.Warnings)
	}
	if got := len(ix.Subjects()); got != o.Subjects {
		t.Fatalf("%d subjects, want %d", got, o.Subjects)
	}
	// expected versions from the commit messages
	want := map[string]int{}
	for _, s := range ix.Subjects() {
		want[s] = 1
	}
	var chain []plumbing.Hash
	for h := st.Head; !h.IsZero(); {
		c, err := repo.CommitObject(h)
		if err != nil {
			t.Fatal(err)
		}
		chain = append([]plumbing.Hash{h}, chain...)
		seen := map[string]bool{}
		for _, line := range strings.Split(c.Message, "\n") {
			subj, what, ok := strings.Cut(line, ": ")
			// A Protobuf record's doc is a comment: rewording it changes the layout
			// only, which is no version (the canonical form has no comments).
			docIsSchema := len(ix.Versions(subj)) > 0 && ix.Versions(subj)[0].Format != "protobuf"
			if ok && (strings.HasPrefix(what, "add optional field") || docIsSchema && strings.HasPrefix(what, "reword the record doc")) && !seen[subj] {
				seen[subj] = true
				want[subj]++
			}
		}
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	ids := map[int]bool{}
	for s, n := range want {
		vs := ix.Versions(s)
		if len(vs) != n {
			t.Errorf("%s: %d versions, want %d", s, len(vs), n)
		}
		cur, ok := ix.Current(s)
		lat, _ := ix.Latest(s)
		if !ok || cur.Version != lat.Version {
			t.Errorf("%s: current %d, latest %d", s, cur.Version, lat.Version)
		}
		for _, v := range vs {
			ids[v.ID] = true
			if s != "common.types-value" && (v.Format == "protobuf") != (len(v.Imports) > 0) {
				t.Errorf("%s v%d: format %s, imports %v", s, v.Version, v.Format, v.Imports)
			}
		}
	}
	if len(ids) != len(ix.Schemas) {
		t.Errorf("%d ids used, %d schemas", len(ids), len(ix.Schemas))
	}
	// one commit at a time through the JSON cache equals Build
	inc := New()
	for i, h := range chain {
		if i%10 == 0 {
			data, _ := json.Marshal(inc)
			inc = &Index{}
			if err := json.Unmarshal(data, inc); err != nil {
				t.Fatal(err)
			}
		}
		if err := inc.Extend(repo.Repository, h); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := json.Marshal(ix)
	b, _ := json.Marshal(inc)
	if string(a) != string(b) {
		t.Fatal("Extend one commit at a time differs from Build")
	}
}
