package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// lint --cache-dir prints what lint prints without it, on the run that fills the
// cache and on the one that reads it, for the example tree and the bad tree.
func TestLintCacheDir(t *testing.T) {
	for _, repo := range []string{"../..", badTree} {
		want, errOut, wantCode := runCLI(t, "lint", "--repo", repo, "--format", "json")
		if wantCode == 2 {
			t.Fatalf("lint %s: exit 2: %s", repo, errOut)
		}
		cache := filepath.Join(t.TempDir(), "cache")
		for run := 1; run <= 2; run++ {
			got, errOut, code := runCLI(t, "lint", "--repo", repo, "--format", "json", "--cache-dir", cache)
			if got != want || code != wantCode || errOut != "" {
				t.Fatalf("lint %s, run %d with --cache-dir: exit %d (want %d)\n%s%s\nwant:\n%s", repo, run, code, wantCode, got, errOut, want)
			}
		}
		if _, err := os.Stat(filepath.Join(cache, "lint-parses")); err != nil {
			t.Errorf("lint %s wrote no cache: %v", repo, err)
		}
	}
}
