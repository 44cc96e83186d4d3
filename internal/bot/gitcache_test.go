package bot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/testutil"
)

func commitFile(t *testing.T, repo *git.Repository, dir, name, content string) plumbing.Hash {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(name); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit("edit "+name, &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestGitCacheFetchesIncrementally(t *testing.T) {
	remoteDir := t.TempDir()
	remote, err := git.PlainInit(remoteDir, false)
	if err != nil {
		t.Fatal(err)
	}
	c1 := commitFile(t, remote, remoteDir, "a.txt", "one")
	cache := &GitCache{Dir: t.TempDir()}
	ctx := context.Background()
	r, err := cache.Fetch(ctx, "acme", "contracts", remoteDir, nil, c1)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	c2 := commitFile(t, remote, remoteDir, "a.txt", "two")
	r, err = cache.Fetch(ctx, "acme", "contracts", remoteDir, nil, c1, c2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitObject(c2); err != nil {
		t.Errorf("the new commit was not fetched: %v", err)
	}
	r.Close()
	// Already there: no fetch at all (the remote may be gone).
	if err := os.RemoveAll(remoteDir); err != nil {
		t.Fatal(err)
	}
	if r, err = cache.Fetch(ctx, "acme", "contracts", remoteDir, nil, c2); err != nil {
		t.Errorf("a commit in the cache needed the remote: %v", err)
	} else {
		r.Close()
	}
	if _, err := cache.Fetch(ctx, "acme", "contracts", remoteDir, nil, plumbing.NewHash(strings.Repeat("ab", 20))); err == nil {
		t.Error("a commit that exists nowhere was reported fetched")
	}
}

// TestGitFetchTimesOut: a Git remote that never answers fails the fetch after the
// cache's timeout, naming the fetch (with the URL's password hidden).
func TestGitFetchTimesOut(t *testing.T) {
	srv := testutil.Stalled(t, nil)
	c := &GitCache{Dir: t.TempDir(), FetchTimeout: 200 * time.Millisecond}
	u := strings.Replace(srv.URL, "http://", "http://x:hunter2@", 1) + "/acme/contracts.git"
	start := time.Now()
	_, err := c.Fetch(context.Background(), "acme", "contracts", u, nil, plumbing.NewHash("1111111111111111111111111111111111111111"))
	if took := time.Since(start); err == nil || took > 10*time.Second {
		t.Fatalf("fetch from a stalled remote: %v after %s", err, took)
	}
	if !strings.Contains(err.Error(), "git fetch acme/contracts from http://x:xxxxx@") || !strings.Contains(err.Error(), "no answer in time") {
		t.Errorf("the error does not name the fetch: %v", err)
	}
}
