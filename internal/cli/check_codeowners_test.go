package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/contract"
)

// The gate lists codeowners' error among its blockers, so it holds when the
// workflow's codeowners step failed before it (or was skipped): a change that gives a
// consumer file to another team without regenerating CODEOWNERS, that deletes a
// subject's folder and leaves its lines, or that edits CODEOWNERS by hand is not ready.
// A repository without CODEOWNERS is held to nothing.
func TestCheckCodeownersStale(t *testing.T) {
	stale := func(t *testing.T, dir string) bool {
		t.Helper()
		r, _ := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
		for _, d := range r.Lint {
			if d.Code == contract.CodeCodeownersStale {
				return !r.Ready && strings.Contains(strings.Join(r.Blockers, "\n"), "contract files have")
			}
		}
		return false
	}
	setup := func(t *testing.T) (string, *git.Repository) {
		dir, repo := exampleRepo(t)
		if out, errOut, code := runCLI(t, "codeowners", "--repo", dir); code != 0 {
			t.Fatalf("codeowners: %s%s", out, errOut)
		}
		commit(t, repo, "CODEOWNERS")
		return dir, repo
	}
	reown := func(dir string) {
		edit(t, filepath.Join(dir, "contracts/orders/order-created/consumers/ods-order-archive.yaml"), "owner: platform\n", "owner: analytics\n")
	}

	t.Run("reowned", func(t *testing.T) {
		dir, repo := setup(t)
		reown(dir)
		commit(t, repo, "ods-order-archive belongs to analytics")
		if !stale(t, dir) {
			t.Error("a consumer file given to another team without regenerating CODEOWNERS is not a blocker")
		}
		if out, errOut, code := runCLI(t, "codeowners", "--repo", dir); code != 0 {
			t.Fatalf("codeowners: %s%s", out, errOut)
		}
		commit(t, repo, "CODEOWNERS again")
		if r, _ := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~2"); len(r.Lint) != 0 {
			t.Errorf("regenerated, still: %+v", r.Lint)
		}
	})
	t.Run("deleted", func(t *testing.T) {
		dir, repo := setup(t)
		if err := os.RemoveAll(filepath.Join(dir, "contracts/users/user-profile")); err != nil {
			t.Fatal(err)
		}
		commit(t, repo, "no user profiles")
		if !stale(t, dir) {
			t.Error("a deleted subject whose CODEOWNERS lines stay is not a blocker")
		}
	})
	t.Run("edited", func(t *testing.T) {
		dir, repo := setup(t)
		edit(t, filepath.Join(dir, "CODEOWNERS"), "/contracts/teams.yaml @acme/data-platform", "/contracts/teams.yaml @mallory")
		commit(t, repo, "mallory owns teams.yaml")
		if !stale(t, dir) {
			t.Error("a hand-edited CODEOWNERS is not a blocker")
		}
	})
	t.Run("none", func(t *testing.T) {
		dir, repo := exampleRepo(t)
		reown(dir)
		commit(t, repo, "no CODEOWNERS kept")
		if stale(t, dir) {
			t.Error("a repository without CODEOWNERS is held to one")
		}
	})
}
