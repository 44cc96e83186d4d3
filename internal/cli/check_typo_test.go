package cli

import (
	"path/filepath"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
)

// TestCheckTypoIsALintErrorOnly: `compatability:` for `compatibility:` is one lint
// error (the unknown key, with "did you mean"), and nothing is judged on top of it: no
// loosened level, no sign-off, no calendar entry demanded.
func TestCheckTypoIsALintErrorOnly(t *testing.T) {
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "\ncompatibility:", "\ncompatability:")
	commit(t, repo, "a typo")
	r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	if code != 1 {
		t.Errorf("exit %d, want 1 (a lint error)", code)
	}
	if len(r.Lint) != 1 || r.Lint[0].Code != contract.CodeUnknownKey {
		t.Errorf("lint: %v, want the one unknown key", r.Lint)
	}
	if len(r.SignOffs) != 0 || len(r.Calendar) != 0 {
		t.Errorf("a typo asks for sign-offs %v and calendar %v", r.SignOffs, r.Calendar)
	}
	for _, s := range r.Subjects {
		if len(s.Governance) > 0 || len(s.Affected) > 0 || s.Error == "" {
			t.Errorf("%s judged despite the error in its contract.yaml: governance %v, affected %d, error %q", s.Subject, s.Governance, len(s.Affected), s.Error)
		}
	}
}
