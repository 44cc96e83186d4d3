package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// check --cache-dir prints what check prints without it, on the first run (which
// writes the cache) and on the next (which reads it), for a change that renames a
// subject: the base's index comes from the cache, the head's from the change.
func TestCheckCacheDir(t *testing.T) {
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "subject: orders.order-created-value", "subject: orders.order-made-value")
	commit(t, repo, "Rename a subject")
	args := []string{"check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z"}
	want, errOut, wantCode := runCLI(t, args...)
	if wantCode == 2 {
		t.Fatalf("check without a cache: exit 2: %s%s", want, errOut)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	for run := 1; run <= 2; run++ {
		got, errOut, code := runCLI(t, append(args, "--cache-dir", cache)...)
		if got != want || code != wantCode || errOut != "" {
			t.Fatalf("run %d with --cache-dir: exit %d (want %d)\n%s%s\nwant:\n%s", run, code, wantCode, got, errOut, want)
		}
		if _, err := os.Stat(filepath.Join(cache, "subject-folders")); err != nil {
			t.Fatalf("run %d wrote no cache: %v", run, err)
		}
	}
}
