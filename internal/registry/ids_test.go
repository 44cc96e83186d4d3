package registry

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// idTable lists every subject version the registry serves with its id and
// references, one line each, in subject and version order.
func idTable(t *testing.T, repo *git.Repository) string {
	t.Helper()
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	snap := srv.snap.Load()
	var b strings.Builder
	for _, s := range srv.ix.Subjects() {
		for _, ve := range snap.subjects[s].versions {
			fmt.Fprintf(&b, "%s %d id %d", s, ve.v.Version, ve.v.ID)
			for _, r := range ve.refs {
				fmt.Fprintf(&b, " %s=%s@%d", r.Name, r.Subject, r.Version)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got, *update)
}

// In a repository where no canonical form is served with two sets of references,
// every id is the one it had when ids belonged to canonical forms alone: the goldens
// were written by that registry (before ids took references in) and must not change.
func TestIDsWithoutReferencePairsDoNotMove(t *testing.T) {
	_, repo := testRepo(t)
	golden(t, "ids-example.golden", idTable(t, repo))

	dir := filepath.Join(t.TempDir(), "synth")
	srepo, err := synth.Generate(dir, synth.Options{Subjects: 60, Commits: 80, Seed: 11, Domains: 5, ProtobufShare: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	table := idTable(t, srepo)
	if !strings.Contains(table, "=") {
		t.Fatal("the synthetic repository has no references")
	}
	golden(t, "ids-synth.golden", table)
}
