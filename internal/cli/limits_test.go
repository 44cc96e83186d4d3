package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A consumer file far over the YAML limit, committed as a loose object that compresses
// well (issue 13: 200 MB in 1 MB cost 959 MB and 41 s), is refused from its object
// header: lint --rev and check --rev report it on that file, and what they allocate
// does not grow with the file. docs/performance.md has the full-size figures.
func TestOversizeBlobAtARevision(t *testing.T) {
	const size = 48 << 20
	r := testutil.ExampleRepo(t)
	r.Branch("big")
	const big = "contracts/orders/order-created/consumers/big.yaml"
	line := "  - field_0001\n"
	r.Write(big, "name: big\nowner: data-warehouse\nkind: flink-job\nreads:\n"+strings.Repeat(line, size/len(line)))
	r.Commit("a big consumer file")
	if err := os.Remove(filepath.Join(r.Dir, big)); err != nil { // only the blob is read
		t.Fatal(err)
	}
	want := big + ":1:1: error: " + big + " is larger than the limit of 1 MiB"
	for _, args := range [][]string{
		{"lint", "--repo", r.Dir, "--rev", "big"},
		{"check", "--repo", r.Dir, "--rev", "big", "--against", "master", "--now", "2026-12-01T09:00:00Z"},
	} {
		var out, errOut string
		var code int
		n := allocated(func() { out, errOut, code = runCLI(t, args...) })
		t.Logf("%s: %d KiB allocated for a %d MiB blob", args[0], n>>10, size>>20)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s%s", args[0], code, out, errOut)
		}
		if args[0] == "lint" && !strings.Contains(out, want) {
			t.Errorf("lint does not locate the refusal:\n%s", out)
		}
		if args[0] == "check" && !strings.Contains(out, big+":1:1: file-too-large") {
			t.Errorf("check does not locate the refusal:\n%s", out)
		}
		if n > size/2 {
			t.Errorf("%s allocated %d MiB for a %d MiB blob: it was read", args[0], n>>20, size>>20)
		}
	}
}

// A contract.yaml that cannot be read or decoded is a lint error on that file; it never
// turns its subject, or the subjects its lineage reaches, into deletions (issue 13: an
// oversize contract.yaml made check report three present subjects as deleted, BREAKING).
func TestUnreadableContractIsNotADeletion(t *testing.T) {
	const contract = "contracts/orders/order-created/contract.yaml"
	cases := map[string]struct {
		change func(r *testutil.Repo)
		code   string
	}{
		"over the size limit": {func(r *testutil.Repo) {
			data, err := os.ReadFile(filepath.Join(r.Dir, contract))
			if err != nil {
				t.Fatal(err)
			}
			r.Write(contract, string(data)+strings.Repeat("# padding\n", 120_000))
		}, "file-too-large"},
		"a symbolic link": {func(r *testutil.Repo) {
			p := filepath.Join(r.Dir, contract)
			if err := os.Rename(p, p+".real"); err != nil {
				t.Fatal(err)
			}
			r.Write("contracts/orders/order-created/README.md", "moved\n")
			if err := os.Symlink("contract.yaml.real", p); err != nil {
				t.Fatal(err)
			}
		}, "symlink"},
		"not YAML": {func(r *testutil.Repo) { r.Write(contract, "subject: [unclosed\n") }, "yaml-syntax"},
		"no valid subject": {func(r *testutil.Repo) {
			r.Edit(contract, "subject: orders.order-created-value", "subject: orders order-created")
		}, "invalid-value"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := testutil.ExampleRepo(t)
			tc.change(r)
			r.Commit("break contract.yaml")
			rep, code := checkJSON(t, "--repo", r.Dir, "--rev", "HEAD", "--against", "HEAD~1")
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, s := range rep.Subjects {
				if s.Kind == verdict.Deleted {
					t.Errorf("%s is reported deleted", s.Subject)
				}
			}
			if rep.Class == verdict.Breaking {
				t.Errorf("class %s", rep.Class)
			}
			found := false
			for _, d := range rep.Lint {
				found = found || d.File == contract && d.Code == tc.code
				if d.File != contract {
					t.Errorf("a knock-on error: %s", d)
				}
			}
			if !found {
				t.Errorf("no %s error on %s: %v", tc.code, contract, rep.Lint)
			}
		})
	}
}
