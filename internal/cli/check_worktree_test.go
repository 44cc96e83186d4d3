package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

// check reads the working tree as HEAD with what Git's index says differs from it
// (contract.WorkTree). Each case edits the working tree, then compares check's
// report, as text and JSON, with the report of the same change read from the folder
// file by file (a DirSource, as check read it before): they must be byte-identical.
func TestCheckWorkTreeMatchesFolder(t *testing.T) {
	avsc := "contracts/orders/order-created/order_created.avsc"
	cases := []struct {
		name string
		edit func(t *testing.T, r *testutil.Repo)
	}{
		{"unchanged", func(*testing.T, *testutil.Repo) {}},
		{"same bytes, new stat data", func(t *testing.T, r *testutil.Repo) {
			data := readFile(t, filepath.Join(r.Dir, avsc))
			if err := os.Remove(filepath.Join(r.Dir, avsc)); err != nil {
				t.Fatal(err)
			}
			r.Write(avsc, data)
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(r.Dir, avsc), later, later); err != nil {
				t.Fatal(err)
			}
		}},
		{"edited schema", func(_ *testing.T, r *testutil.Repo) {
			r.Edit(avsc, `"name": "amount"`, `"name": "amount_total", "aliases": ["amount"]`)
		}},
		{"untracked new subject", func(t *testing.T, r *testutil.Repo) {
			from := filepath.Join(r.Dir, "contracts/orders/order-created")
			to := filepath.Join(r.Dir, "contracts/orders/order-created-v2")
			testutil.CopyTree(t, from, to)
			r.Edit("contracts/orders/order-created-v2/contract.yaml", "subject: orders.order-created-value", "subject: orders.order-created-v2-value")
		}},
		{"untracked subject claiming a name", func(t *testing.T, r *testutil.Repo) {
			testutil.CopyTree(t, filepath.Join(r.Dir, "contracts/orders/order-created"), filepath.Join(r.Dir, "contracts/orders/order-copy"))
		}},
		{"deleted consumer file", func(t *testing.T, r *testutil.Repo) {
			remove(t, r, "contracts/orders/order-created/consumers/dwd-order-detail.yaml")
		}},
		{"deleted subject folder", func(t *testing.T, r *testutil.Repo) {
			remove(t, r, "contracts/orders/order-status-changed")
		}},
		{"staged edit", func(t *testing.T, r *testutil.Repo) {
			r.Edit(avsc, `"name": "amount"`, `"name": "amount_total", "aliases": ["amount"]`)
			stage(t, r, avsc)
		}},
		{"staged edit, working tree restored", func(t *testing.T, r *testutil.Repo) {
			before := readFile(t, filepath.Join(r.Dir, avsc))
			r.Edit(avsc, `"name": "amount"`, `"name": "amount_total", "aliases": ["amount"]`)
			stage(t, r, avsc)
			r.Write(avsc, before)
		}},
		{"racy edit", func(t *testing.T, r *testutil.Repo) {
			racyEdit(t, r, avsc, `"name": "amount"`, `"name": "amoun7"`)
		}},
		{"layout: stray file, link, empty folder", func(t *testing.T, r *testutil.Repo) {
			r.Write("contracts/orders/notes.txt", "x\n")
			if err := os.Symlink("order_created.avsc", filepath.Join(r.Dir, "contracts/orders/order-created/link.avsc")); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(r.Dir, "contracts/orders/empty"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"domain folder replaced by a link", func(t *testing.T, r *testutil.Repo) {
			remove(t, r, "contracts/risk")
			if err := os.Symlink("orders", filepath.Join(r.Dir, "contracts/risk")); err != nil {
				t.Fatal(err)
			}
		}},
		{"teams and calendar", func(t *testing.T, r *testutil.Repo) {
			r.Edit("contracts/teams.yaml", `slack: "#orders"`, `slack: "#orders-eng"`)
			remove(t, r, "calendar/2026-12-08-split-order-amount.yaml")
		}},
		{"branch ahead of main, one file edited back", func(t *testing.T, r *testutil.Repo) {
			r.Branch("feature")
			before := readFile(t, filepath.Join(r.Dir, avsc))
			r.Edit(avsc, `"name": "amount"`, `"name": "amount_total", "aliases": ["amount"]`)
			r.Edit("contracts/orders/order-snapshot/contract.yaml", "owner: orders", "owner: payments")
			r.Commit("feature")
			r.Write(avsc, before)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := testutil.ExampleRepo(t)
			c.edit(t, r)
			at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			want := folderReport(t, r.Dir, at)
			// Without a cache, then with the folder listings cached: first empty, then
			// as the first run left it.
			cache := t.TempDir()
			for _, cacheDir := range []string{"", cache, cache} {
				got, err := evaluateChange(r.Dir, "", "", "", cacheDir, at, "")
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range []func(*verdict.Report) string{verdict.Text, jsonText(t)} {
					if g, w := f(got), f(want); g != w {
						t.Fatalf("check of the working tree (cache %q):\n%s\nread from the folder:\n%s", cacheDir, g, w)
					}
				}
			}
		})
	}
}

// The working tree is read through Git's index, not as a folder.
func TestCheckReadsWorkTreeThroughIndex(t *testing.T) {
	r := testutil.ExampleRepo(t)
	repo, err := gitrepo.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	_, head, err := gitSources(repo, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := head.(*contract.WorkTree); !ok {
		t.Fatalf("the working tree is read as %T", head)
	}
}

// folderReport is check's report of the working tree read file by file.
func folderReport(t *testing.T, dir string, at time.Time) *verdict.Report {
	t.Helper()
	repo, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	base, _, err := gitSources(repo, "", "")
	if err != nil {
		t.Fatal(err)
	}
	l, err := change.Load(change.Change{Base: base, Head: contract.NewDirSource(repo.Root), Repo: repo.Repository, HistoryAt: base.Commit().Hash})
	if err != nil {
		t.Fatal(err)
	}
	return assessLoaded(l, at, "")
}

func jsonText(t *testing.T) func(*verdict.Report) string {
	return func(r *verdict.Report) string {
		data, err := verdict.JSON(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
}

func remove(t *testing.T, r *testutil.Repo, name string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(r.Dir, name)); err != nil {
		t.Fatal(err)
	}
}

func stage(t *testing.T, r *testutil.Repo, name string) {
	t.Helper()
	wt, err := r.Git.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(name); err != nil {
		t.Fatal(err)
	}
}

// racyEdit replaces old with new (of the same length) in a file and makes the index
// hold the file's new stat data with its old hash, written in the same instant as the
// file: Git's racy case, where only hashing the file finds the edit.
func racyEdit(t *testing.T, r *testutil.Repo, name, old, new string) {
	t.Helper()
	if len(old) != len(new) {
		t.Fatal("a racy edit keeps the size")
	}
	r.Edit(name, old, new)
	abs := filepath.Join(r.Dir, name)
	fi, err := os.Lstat(abs)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := r.Git.Storer.Index()
	if err != nil {
		t.Fatal(err)
	}
	e, err := idx.Entry(name)
	if err != nil {
		t.Fatal(err)
	}
	e.ModifiedAt, e.CreatedAt, e.Inode = fi.ModTime(), time.Time{}, 0
	if err := r.Git.Storer.SetIndex(idx); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(r.Dir, ".git", "index"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readFile(t, filepath.Join(r.Dir, name)), old) {
		t.Fatal("the edit did not happen")
	}
}
