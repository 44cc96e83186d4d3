package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/testutil"
)

var reCommit = regexp.MustCompile(`\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b`)

// The report over the example tree, with the example's own history (gmv order_count
// long, then int at BACKWARD): the subjects no one reads, the lineage coverage and its
// black boxes, the deprecated reads, the commit that broke its level. A golden per
// format; the commit hashes follow the example tree's content and are not pinned.
func TestReportExampleTree(t *testing.T) {
	r, head := reportRepo(t)
	for _, f := range []struct{ format, golden string }{{"text", "example.txt"}, {"markdown", "example.md"}, {"json", "example.json"}} {
		out, errOut, code := runCLI(t, "report", "--repo", r.Dir, "--now", "2026-12-01T09:00:00Z", "--format", f.format)
		if code != 0 {
			t.Fatalf("report --format %s: exit %d\n%s%s", f.format, code, out, errOut)
		}
		for _, want := range []string{"orders.order-cancelled-value", "dws.gmv-1min-value", "user_id"} {
			if !strings.Contains(out, want) {
				t.Errorf("report --format %s does not name %s:\n%s", f.format, want, out)
			}
		}
		out = strings.ReplaceAll(out, head.String(), "<head>")
		out = strings.ReplaceAll(out, head.String()[:12], "<head>")
		for _, b := range reCommit.FindAllString(out, -1) {
			out = strings.ReplaceAll(out, b, "<commit>")
		}
		checkGolden(t, "../report/"+f.golden, out)
	}
}

// reportRepo is the example tree with its own history (gmv order_count long, then int
// at BACKWARD), a new subject nobody reads and a deprecated field a job still reads.
func reportRepo(t *testing.T) (*testutil.Repo, plumbing.Hash) {
	t.Helper()
	return testutil.HealthExample(t)
}

// With --cache-dir the report is the same, whether the versions index and the audit
// are made, restored, or restored and extended by a commit that broke its level; the
// cache is one file of each.
func TestReportCacheDir(t *testing.T) {
	r, _ := reportRepo(t)
	cache := t.TempDir()
	report := func(args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"report", "--repo", r.Dir, "--now", "2026-12-01T09:00:00Z", "--format", "json"}, args...)...)
		if code != 0 || errOut != "" {
			t.Fatalf("report %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out
	}
	want := report()
	for _, run := range []string{"cold", "warm"} {
		if got := report("--cache-dir", cache); got != want {
			t.Errorf("%s report with --cache-dir differs:\n%s\nwant\n%s", run, got, want)
		}
	}
	r.Edit("contracts/risk/fraud-score/fraud_score.proto", "double score = 4;", "string score = 4;")
	r.Commit("fraud score as text")
	want = report()
	if !strings.Contains(want, `"subject": "risk.fraud-score-value"`) {
		t.Fatalf("the fraud score break is not reported:\n%s", want)
	}
	if got := report("--cache-dir", cache); got != want {
		t.Errorf("report extended from the cache differs:\n%s\nwant\n%s", got, want)
	}
	for _, sub := range []string{"versions", "audit"} {
		if entries, err := os.ReadDir(filepath.Join(cache, sub)); err != nil || len(entries) != 1 {
			t.Errorf("the cache folder %s/ holds %v (%v), want one file", sub, entries, err)
		}
	}
}

// gmvHistory is the example tree committed with dws.gmv-1min-value's order_count a
// long, and the working tree making it an int again at BACKWARD (the example's own
// break, issue 18), not committed.
func gmvHistory(t *testing.T) *testutil.Repo {
	t.Helper()
	r := testutil.NewRepo(t)
	testutil.CopyExample(t, r.Dir)
	gmv := "contracts/dws/gmv-1min/gmv_1min.avsc"
	r.Edit(gmv, `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
	r.Commit("example tree")
	r.Edit(gmv, `"name": "order_count", "type": "long"`, `"name": "order_count", "type": "int"`)
	return r
}

// The tree a report loads does not keep the Git source it was read from: the source
// holds every tree it read and the repository's pack index and object cache (about
// 250 MB at 100,000 subjects), and nothing reads it after the load.
func TestReportTreeLetsGoOfTheRepository(t *testing.T) {
	r, head := reportRepo(t)
	repo, err := gitrepo.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	src, err := contract.NewGitSource(repo.Repository, head.String())
	if err != nil {
		t.Fatal(err)
	}
	kept := weak.Make(src)
	tree, err := loadForReport(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Subjects) == 0 {
		t.Fatal("the example tree loaded no subject")
	}
	for range 3 { // src is not used past the load: only the tree can keep it
		runtime.GC()
	}
	if kept.Value() != nil {
		t.Error("the loaded tree still holds its Git source")
	}
	runtime.KeepAlive(tree)
}

// The monthly digest's report of the served branch is the one `contractbot report`
// prints for that branch: both build it from the audited index, then the tree.
func TestDigestHealthIsTheReport(t *testing.T) {
	r, head := reportRepo(t)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	want, err := buildReport(r.Dir, nil, at)
	if err != nil {
		t.Fatal(err)
	}
	_, branch, _, err := openDefaultBranch(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	got, tree, err := servedBranch{dir: r.Dir, branch: branch}.Health(context.Background(), at)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Subjects) != want.Subjects || got.Commit != head.String() {
		t.Errorf("digest's tree has %d subjects at %s; want %d at %s", len(tree.Subjects), got.Commit, want.Subjects, head)
	}
	if g, w := report.JSON(got), report.JSON(want); g != w {
		t.Errorf("the digest's report differs from report's:\n--- report\n%s\n--- digest\n%s", w, g)
	}
}
