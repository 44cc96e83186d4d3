package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestLintCacheOnAFullDisk: lint's caches on a file system that is full. lint
// answers as without them (the cache that cannot be written is said on stderr), the
// cache written before stays whole, and the next run on a freed disk reads it.
func TestLintCacheOnAFullDisk(t *testing.T) {
	want, _, wantCode := runCLI(t, "lint", "--repo", "../..", "--format", "json")
	cache := filepath.Join(testutil.FullFS(t, 1<<20), "cache")
	args := []string{"lint", "--repo", "../..", "--format", "json", "--cache-dir", cache}
	if got, errOut, code := runCLI(t, args...); got != want || code != wantCode {
		t.Fatalf("the run that fills the cache: exit %d\n%s", code, errOut)
	}
	before, err := os.ReadFile(filepath.Join(cache, "lint-parses"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(cache, "lint-parses")); err != nil { // parse everything again, and fail to save it
		t.Fatal(err)
	}
	filler := testutil.Fill(t, filepath.Dir(cache), 0)
	if got, errOut, code := runCLI(t, args...); got != want || code != wantCode || errOut == "" {
		t.Errorf("lint on a full disk: exit %d, stderr %q; want the same answer and a word about the cache", code, errOut)
	}
	if entries, _ := os.ReadDir(cache); len(entries) > 1 {
		t.Errorf("a failed save left files in the cache folder: %v", entries)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if got, errOut, code := runCLI(t, args...); got != want || code != wantCode || errOut != "" {
		t.Errorf("lint after space was freed: exit %d\n%s", code, errOut)
	}
	if after, err := os.ReadFile(filepath.Join(cache, "lint-parses")); err != nil || len(after) != len(before) {
		t.Errorf("the cache was not written again whole: %d bytes (%v), want %d", len(after), err, len(before))
	}
}
