package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestQuietAndVerbose: -q drops what a script does not need and -v adds what a
// person may want, per command; errors print either way; -q and -v exclude each
// other.
func TestQuietAndVerbose(t *testing.T) {
	golden := func(name, got string) {
		t.Helper()
		goldenFile(t, filepath.Join("testdata", "verbosity", name), got)
	}

	// lint -q: the errors only, no warnings and no summary line; nothing when clean.
	out, _, code := runCLI(t, "lint", "-q", badTree)
	if code != 1 {
		t.Errorf("lint -q on the bad tree: exit %d, want 1", code)
	}
	golden("lint-q-bad.txt", out)
	if out, errOut, code := runCLI(t, "lint", "-q", "../.."); code != 0 || out != "" || errOut != "" {
		t.Errorf("lint -q on the example tree: exit %d, %q, %q", code, out, errOut)
	}
	// lint -v: every subject read, then what lint prints anyway.
	out, _, code = runCLI(t, "lint", "-v", "../..")
	if code != 0 {
		t.Errorf("lint -v: exit %d", code)
	}
	golden("lint-v.txt", out)

	// check -q: the verdict's first line.
	out, _, code = runCLI(t, "check", "-q", "--repo", "../..", "--now", "2026-12-01T09:00:00Z",
		"--overlay", "../../examples/changes/amount-to-decimal")
	if code != 1 {
		t.Errorf("check -q: exit %d, want 1", code)
	}
	golden("check-q.txt", out)

	// init -q: nothing on success, the files written all the same.
	dir := filepath.Join(t.TempDir(), "r")
	if out, errOut, code := runCLI(t, "init", "-q", dir); code != 0 || out != "" || errOut != "" {
		t.Errorf("init -q: exit %d, %q, %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "contracts", "teams.yaml")); err != nil {
		t.Errorf("init -q wrote nothing: %v", err)
	}

	// publish -q: nothing on success.
	repoDir, _ := exampleRepo(t)
	events := filepath.Join(t.TempDir(), "events.jsonl")
	if out, errOut, code := runCLI(t, "publish", "-q", "--repo", repoDir, "--events", "file:"+events); code != 0 || out != "" || errOut != "" {
		t.Errorf("publish -q: exit %d, %q, %q", code, out, errOut)
	}
	if fi, err := os.Stat(events); err != nil || fi.Size() == 0 {
		t.Errorf("publish -q sent no events: %v", err)
	}

	// report -v: what the cache did, on stderr; without -v nothing there.
	cache := t.TempDir()
	if _, errOut, code := runCLI(t, "report", "--repo", repoDir, "--cache-dir", cache); code != 0 || errOut != "" {
		t.Errorf("report: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "report", "-v", "--repo", repoDir, "--cache-dir", t.TempDir()); code != 0 || !strings.Contains(errOut, "saved the index") {
		t.Errorf("report -v: exit %d, stderr %q", code, errOut)
	}

	_, errOut, code := runCLI(t, "lint", "-q", "-v", "../..")
	if code != 2 {
		t.Errorf("lint -q -v: exit %d, want 2", code)
	}
	golden("lint-q-v.txt", errOut)
}

// TestLineageSyncQuiet: sync -q writes the files and prints nothing; with --check it
// still prints the drift, which is its result.
func TestLineageSyncQuiet(t *testing.T) {
	dir := t.TempDir()
	testutil.CopyExample(t, dir)
	src, err := os.ReadFile("../../jobs/flink/dws-gmv-1min.sql")
	if err != nil {
		t.Fatal(err)
	}
	sql := strings.Replace(string(src), "GROUP BY", "WHERE coupon_code IS NOT NULL\nGROUP BY", 1)
	script := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"lineage", "sync", "-q", "--repo", dir, "--job", "dws-gmv-1min", "--owner", "data-warehouse"}
	loud, _, _ := runCLI(t, append(append(args[:2:2], args[3:]...), "--check", script)...)
	out, _, code := runCLI(t, append(args, "--check", script)...)
	if code != 1 || out == "" || !strings.Contains(loud, out) {
		t.Errorf("sync -q --check: exit %d:\n%s\nwithout -q:\n%s", code, out, loud)
	}
	if out, errOut, code := runCLI(t, append(args, script)...); code != 0 || out != "" || errOut != "" {
		t.Errorf("sync -q: exit %d, %q, %q", code, out, errOut)
	}
	if out, _, code := runCLI(t, append(args, "--check", script)...); code != 0 {
		t.Errorf("--check after sync -q: exit %d\n%s", code, out)
	}
}
