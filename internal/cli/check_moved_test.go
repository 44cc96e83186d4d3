package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/verdict"
)

// A subject folder moved in the same pull request as a data rule that refuses every
// write is judged on the rule, as without the move (issue 25: check said "SAFE: ready
// to merge"): COMPATIBLE, and on a core subject not ready without a calendar entry. The
// move is a note.
func TestCheckMovedSubjectKeepsItsChanges(t *testing.T) {
	dir, repo := exampleRepo(t)
	if err := os.Rename(filepath.Join(dir, "contracts/payments/payment-authorized"), filepath.Join(dir, "contracts/payments/pa2")); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(dir, "contracts/payments/pa2/contract.yaml"), "fields:\n",
		"rules: [{name: refuse, kind: CONDITION, type: CEL, mode: WRITE, expr: \"false\", on_failure: ERROR}]\nfields:\n")
	if _, errOut, code := runCLI(t, "codeowners", "--repo", dir); code != 0 {
		t.Fatalf("codeowners: exit %d: %s", code, errOut)
	}
	commit(t, repo, "move payment-authorized and refuse every write")
	check := []string{"check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-02T09:00:00Z"}
	out, errOut, code := runCLI(t, check...)
	if code == 2 || strings.Contains(out, "SAFE: ready to merge") || !strings.Contains(out, "payments.payment-authorized-value: COMPATIBLE") ||
		!strings.Contains(out, `data rule "refuse" (CONDITION, mode WRITE, on_failure ERROR) is added`) ||
		!strings.Contains(out, "the folder moved from contracts/payments/payment-authorized to contracts/payments/pa2") {
		t.Fatalf("a move with a refuse-all rule: exit %d:\n%s%s", code, out, errOut)
	}
	r, _ := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	if r.Class != verdict.Compatible || !strings.Contains(out, "COMPATIBLE: not ready to merge") {
		t.Errorf("class %s: want COMPATIBLE and not ready to merge (a core subject's rule needs a calendar entry):\n%s", r.Class, out)
	}
}
