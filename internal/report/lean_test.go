package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestReportOfALeanTree builds the report of the example tree, with each proposed
// change of examples/changes laid over it (one deprecates a field its readers still
// read), and of the loader's tree of mistakes, from contract.LoadForReport and from
// contract.LoadWithoutSchemas: the two reports are the same.
func TestReportOfALeanTree(t *testing.T) {
	root := testutil.RepoRoot(t)
	trees := map[string]contract.Source{
		"example": contract.NewDirSource(root),
		"bad":     contract.NewDirSource(filepath.Join(root, "internal", "contract", "testdata", "bad")),
	}
	changes, err := os.ReadDir(filepath.Join(root, "examples", "changes"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.IsDir() {
			trees["example+"+c.Name()] = &contract.Overlay{Base: contract.NewDirSource(root), Files: testutil.ReadFiles(t, filepath.Join(root, "examples", "changes", c.Name()))}
		}
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	deprecated := 0
	for name, src := range trees {
		full, err := contract.LoadWithoutSchemas(src)
		if err != nil {
			t.Fatal(err)
		}
		lean, err := contract.LoadForReport(src)
		if err != nil {
			t.Fatal(err)
		}
		want, got := Build(full, nil, nil, at), Build(lean, nil, nil, at)
		deprecated += len(want.DeprecatedReads)
		if JSON(got) != JSON(want) {
			t.Errorf("%s: the report of the lean tree differs:\n--- LoadWithoutSchemas\n%s\n--- LoadForReport\n%s", name, JSON(want), JSON(got))
		}
	}
	if deprecated == 0 {
		t.Error("no tree has a deprecated read: the test compares nothing that LoadForReport could drop")
	}
}
