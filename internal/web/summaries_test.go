package web

import (
	"bytes"
	"encoding/gob"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestSummaryCache: the catalog's summaries kept in Pages.SummaryCache are those read
// from the repository, after a start with no cache, a start with one, a commit that
// changes one subject and moves another's folder, and a corrupt cache file (ignored
// with a warning).
func TestSummaryCache(t *testing.T) {
	r := testutil.ExampleRepo(t)
	cache := filepath.Join(t.TempDir(), "versions", "x.summaries")
	var log bytes.Buffer
	summaries := func() ([]contract.Summary, []contract.Summary) {
		t.Helper()
		head, err := gitrepo.ResolveBranch(r.Git, "")
		if err != nil {
			t.Fatal(err)
		}
		p := &Pages{Tree: &Tree{Repo: r.Git}, SummaryCache: cache, Log: slog.New(slog.NewTextHandler(&log, nil))}
		got, err := p.summaries(head)
		if err != nil {
			t.Fatal(err)
		}
		return sorted(got), sorted(uncached(t, r, head))
	}
	check := func(step string) {
		t.Helper()
		got, want := summaries()
		if !slices.EqualFunc(got, want, func(a, b contract.Summary) bool { return a.Dir == b.Dir && summaryText(a) == summaryText(b) }) {
			t.Errorf("%s: summaries differ from the repository's:\n%v\nwant\n%v", step, got, want)
		}
	}
	check("no cache")
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("no cache file written: %v", err)
	}
	check("cached")
	// The cache is what is read: an entry changed in the file shows.
	var f summaryFile
	if err := gob.NewDecoder(bytes.NewReader(readAll(t, cache))).Decode(&f); err != nil {
		t.Fatal(err)
	}
	for h, s := range f.ByTree {
		s.Description = "from the cache"
		f.ByTree[h] = s
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := summaries(); len(got) == 0 || got[0].Description != "from the cache" {
		t.Fatalf("the cached summaries are not used: %+v", got)
	}
	if err := os.Remove(cache); err != nil {
		t.Fatal(err)
	}
	check("cache removed")
	edit := func(path, old, new string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(r.Dir, path))
		if err != nil || !strings.Contains(string(data), old) {
			t.Fatalf("%s lacks %q (%v)", path, old, err)
		}
		if err := os.WriteFile(filepath.Join(r.Dir, path), []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("contracts/orders/order-created/contract.yaml", "owner: orders", "owner: payments")
	if err := os.Rename(filepath.Join(r.Dir, "contracts/users/user-profile"), filepath.Join(r.Dir, "contracts/users/profile")); err != nil {
		t.Fatal(err)
	}
	r.Commit("an owner changed, a folder moved")
	check("after a commit")
	if err := os.WriteFile(cache, []byte("not a cache"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	check("corrupt cache")
	if !strings.Contains(log.String(), "ignoring the cached summaries") {
		t.Errorf("a corrupt cache is not reported:\n%s", log.String())
	}
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func uncached(t *testing.T, r *testutil.Repo, head plumbing.Hash) []contract.Summary {
	t.Helper()
	src, err := contract.NewGitSource(r.Git, head.String())
	if err != nil {
		t.Fatal(err)
	}
	sums, err := contract.Summaries(src)
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func sorted(s []contract.Summary) []contract.Summary {
	slices.SortFunc(s, func(a, b contract.Summary) int { return strings.Compare(a.Dir, b.Dir) })
	return s
}

func summaryText(s contract.Summary) string {
	return strings.Join(append([]string{s.Dir, s.Domain, s.Name, s.Subject, s.Format, s.Compatibility, s.Owner, s.Tier, s.Topic, s.Description,
		strconv.Itoa(s.PII)}, s.Consumers...), "|")
}
