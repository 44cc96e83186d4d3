package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// packedRepo commits 3 x 40 files to a new repository, packs the objects and returns
// its directory.
func packedRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "a", Email: "a@example.com", When: time.Unix(1_700_000_000, 0)}
	for c := range 3 {
		for i := range 40 {
			name := fmt.Sprintf("f%02d.txt", i)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("file %d, commit %d\n", i, c)), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(name); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := wt.Commit(fmt.Sprintf("commit %d", c), &git.CommitOptions{Author: sig}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.RepackObjects(&git.RepackConfig{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOpenReadsConcurrently reads every blob, commit and tree of one opened repository
// from 8 goroutines at once, as serve's pages and registry do with the repository they
// share. Run under -race it pins that Open's storage is locked: go-git fills its pack
// caches (plain maps) on first use.
func TestOpenReadsConcurrently(t *testing.T) {
	dir := packedRepo(t)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var blobs, commits []plumbing.Hash
	bi, err := r.BlobObjects()
	if err != nil {
		t.Fatal(err)
	}
	if err := bi.ForEach(func(b *object.Blob) error { blobs = append(blobs, b.Hash); return nil }); err != nil {
		t.Fatal(err)
	}
	ci, err := r.CommitObjects()
	if err != nil {
		t.Fatal(err)
	}
	if err := ci.ForEach(func(c *object.Commit) error { commits = append(commits, c.Hash); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 120 || len(commits) != 3 {
		t.Fatalf("%d blobs and %d commits, want 120 and 3", len(blobs), len(commits))
	}
	r.Close() // reopen: the caches start empty, and the goroutines fill them
	if r, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range blobs {
				h := blobs[(k+g*15)%len(blobs)]
				if _, err := ReadBlob(r.Storer, h, 1<<10); err != nil {
					errs <- err
					return
				}
				if _, err := BlobSize(r.Storer, h); err != nil {
					errs <- err
					return
				}
			}
			for _, h := range commits {
				c, err := r.CommitObject(h)
				if err == nil {
					_, err = c.Tree()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
