package versions

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/gitrepo"
)

func TestPathHistory(t *testing.T) {
	r := newTestRepo(t)
	v1, v2 := avsc("a"), avsc("a", "b")
	c1 := r.commit(subjectFiles(nil, "o/x", "x", v1))
	c2 := r.commit(subjectFiles(nil, "o/x", "x", v2), c1)
	c3 := r.commit(subjectFiles(subjectFiles(nil, "o/x", "x", v2), "o/y", "y", v1), c2) // unrelated
	side := r.commit(subjectFiles(nil, "o/x", "x", avsc("side")), c3)                   // second parent only
	c4 := r.commit(subjectFiles(nil, "o/x", "x", v1), c3, side)                         // revert, as a merge
	got, err := PathHistory(r.repo, c4, []string{"contracts/o/x/s.avsc", "contracts/o/y/s.avsc", "contracts/o/z/s.avsc"})
	if err != nil {
		t.Fatal(err)
	}
	h := func(s string) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, []byte(s)) }
	if x := got["contracts/o/x/s.avsc"]; len(x) != 2 || x[0] != h(v1) || x[1] != h(v2) {
		t.Errorf("x: %v, want v1 then v2 (the revert is not a new content; the side branch is not followed)", x)
	}
	if y := got["contracts/o/y/s.avsc"]; len(y) != 1 {
		t.Errorf("y: %v", y)
	}
	if _, ok := got["contracts/o/z/s.avsc"]; ok {
		t.Error("a path that never existed has a history")
	}
	data, err := gitrepo.ReadBlob(r.repo.Storer, h(v2), 1<<10)
	if err != nil || string(data) != v2 {
		t.Errorf("ReadBlob: %q %v", data, err)
	}
}
