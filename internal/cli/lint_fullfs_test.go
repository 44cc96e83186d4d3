package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestLintCacheOnAFullDisk: lint's caches on a file system that is full. A schema
// changed since the cache was written, so lint parses it and saves the cache again:
// the save fails, lint answers as without the cache (saying so on stderr), the cache
// written before stays whole, byte for byte (a save that truncated it first would
// leave it torn), and the next run on a freed disk writes it again.
func TestLintCacheOnAFullDisk(t *testing.T) {
	r := testutil.ExampleRepo(t)
	want, _, wantCode := runCLI(t, "lint", "--repo", r.Dir, "--format", "json")
	cache := filepath.Join(testutil.FullFS(t, 1<<20), "cache")
	args := []string{"lint", "--repo", r.Dir, "--format", "json", "--cache-dir", cache}
	if got, errOut, code := runCLI(t, args...); got != want || code != wantCode {
		t.Fatalf("the run that fills the cache: exit %d\n%s", code, errOut)
	}
	file := filepath.Join(cache, "lint-parses")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r.Edit("contracts/orders/order-created/order_created.avsc", `"doc": "Order total`, `"doc": "Order TOTAL`)
	want, _, wantCode = runCLI(t, "lint", "--repo", r.Dir, "--format", "json")
	filler := testutil.Fill(t, filepath.Dir(cache), 0)
	if got, errOut, code := runCLI(t, args...); got != want || code != wantCode || errOut == "" {
		t.Errorf("lint on a full disk: exit %d, stderr %q; want the same answer and a word about the cache", code, errOut)
	}
	if now, err := os.ReadFile(file); err != nil || !bytes.Equal(now, before) {
		t.Errorf("after a failed save the cache holds %d bytes (%v), want the %d it held before, unchanged", len(now), err, len(before))
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
	if after, err := os.ReadFile(file); err != nil || bytes.Equal(after, before) {
		t.Errorf("the cache was not written again after space was freed (%v)", err)
	}
}
