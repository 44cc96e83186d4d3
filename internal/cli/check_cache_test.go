package cli

import (
	"os"
	"path/filepath"
	"strings"
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

// Without --cache-dir, check keeps its cache in the repository's Git folder, where the
// working tree's comparison with the index does not see it; --cache-dir= keeps none.
func TestCheckCachesInGitFolder(t *testing.T) {
	dir, _ := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"), `"name": "amount"`, `"name": "amount_total", "aliases": ["amount"]`)
	cache := filepath.Join(dir, ".git", "contractbot", "subject-folders")
	none, _, _ := runCLI(t, "check", "--repo", dir, "--now", "2026-12-01T09:00:00Z", "--cache-dir=")
	if _, err := os.Stat(cache); err == nil {
		t.Fatal("--cache-dir= wrote a cache")
	}
	for run := 1; run <= 2; run++ {
		got, errOut, _ := runCLI(t, "check", "--repo", dir, "--now", "2026-12-01T09:00:00Z")
		if got != none || errOut != "" {
			t.Fatalf("run %d with the cache in .git:\n%s%s\nwithout:\n%s", run, got, errOut, none)
		}
		if _, err := os.Stat(cache); err != nil {
			t.Fatalf("run %d wrote no cache in the Git folder: %v", run, err)
		}
	}
}

// With core.fsmonitor naming a hook, check keeps a baseline beside its other caches
// and, at the next run, asks the hook what changed since that baseline's token: the
// report is the one check prints with no cache (and no hook) at all.
func TestCheckUsesFSMonitorHook(t *testing.T) {
	dir, repo := exampleRepo(t)
	avsc := "contracts/orders/order-created/order_created.avsc"
	edit(t, filepath.Join(dir, avsc), `"name": "amount"`, `"name": "amount_total", "aliases": ["amount"]`)
	hookDir := t.TempDir()
	hook := filepath.Join(hookDir, "query-fsmonitor")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>\"$(dirname \"$0\")/args\"\ncat \"$(dirname \"$0\")/answer\"\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	answer := func(s string) {
		if err := os.WriteFile(filepath.Join(hookDir, "answer"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := repo.Config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Raw.Section("core").SetOption("fsmonitor", hook)
	if err := repo.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--repo", dir, "--now", "2026-12-01T09:00:00Z"}
	lastArgs := func() string {
		data, _ := os.ReadFile(filepath.Join(hookDir, "args"))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		return lines[len(lines)-1]
	}
	for run, step := range []struct {
		edit           func()
		answer, called string
	}{
		{func() {}, "t1\x00", "2 1"}, // no baseline: a token of the time
		{func() {}, "t2\x00", "2 t1"},
		{func() {
			edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "orders", "orders ")
		}, "t3\x00contracts/orders/order-created/contract.yaml\x00", "2 t2"},
	} {
		step.edit()
		want, _, wantCode := runCLI(t, append(args, "--cache-dir=")...)
		answer(step.answer)
		got, errOut, code := runCLI(t, args...)
		if got != want || code != wantCode || errOut != "" {
			t.Fatalf("run %d with the hook: exit %d (want %d)\n%s%s\nwant:\n%s", run, code, wantCode, got, errOut, want)
		}
		if a := lastArgs(); !strings.HasPrefix(a, step.called) {
			t.Errorf("run %d: the hook ran with %q, want %q", run, a, step.called)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git", "contractbot", "fsmonitor-baseline")); err != nil {
			t.Errorf("run %d kept no baseline: %v", run, err)
		}
	}
}
