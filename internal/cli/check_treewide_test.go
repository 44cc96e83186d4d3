package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/verdict"
)

// lintAt runs the full lint on a revision and returns its diagnostics with code.
func lintAt(t *testing.T, dir, rev, code string) contract.Diagnostics {
	t.Helper()
	out, errOut, exit := runCLI(t, "lint", "--repo", dir, "--rev", rev, "--format", "json")
	if exit != 1 {
		t.Fatalf("lint exit %d, want 1: %s", exit, errOut)
	}
	var r struct {
		Diagnostics contract.Diagnostics `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("lint output: %v\n%s", err, out)
	}
	return slices.DeleteFunc(r.Diagnostics, func(d contract.Diagnostic) bool { return d.Code != code })
}

// withCode returns a report's lint errors of one code.
func withCode(r *verdict.Report, code string) contract.Diagnostics {
	return slices.DeleteFunc(slices.Clone(r.Lint), func(d contract.Diagnostic) bool { return d.Code != code })
}

// TestCheckHijackedSubject: a new folder that claims an existing subject is a
// duplicate subject for check as for lint, not a new subject ready to merge (the
// folder sorts first, so lint reports the duplicate on the existing folder).
func TestCheckHijackedSubject(t *testing.T) {
	dir, repo := exampleRepo(t)
	hijack := filepath.Join(dir, "contracts/aaa/hijack")
	if err := os.MkdirAll(hijack, 0o755); err != nil {
		t.Fatal(err)
	}
	yml, err := os.ReadFile(filepath.Join(dir, "contracts/orders/order-created/contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	schema := `{"type": "record", "name": "Hijack", "namespace": "evil", "fields": [{"name": "payload", "type": "string"}]}`
	for name, data := range map[string][]byte{"contract.yaml": yml, "order_created.avsc": []byte(schema)} {
		if err := os.WriteFile(filepath.Join(hijack, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, repo, "hijack orders.order-created-value")

	r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	got := withCode(r, contract.CodeDuplicateSubject)
	if code != 1 || len(got) != 1 {
		t.Fatalf("exit %d, duplicate-subject errors %v: want exit 1 and one", code, got)
	}
	want := lintAt(t, dir, "HEAD", contract.CodeDuplicateSubject)
	if !slices.Equal(got, want) {
		t.Errorf("check reports %v, lint %v", got, want)
	}
	if d := got[0]; d.File != "contracts/orders/order-created/contract.yaml" || d.Line != 2 {
		t.Errorf("at %s:%d, want the later folder's subject line contracts/orders/order-created/contract.yaml:2", d.File, d.Line)
	}
	// The subject is not judged: not "added, SAFE" above the blocking error.
	if r.Class != verdict.Breaking || len(r.Subjects) != 1 {
		t.Fatalf("class %s with %d subject(s), want BREAKING with one", r.Class, len(r.Subjects))
	}
	s := r.Subjects[0]
	if s.Class != verdict.Breaking || !strings.Contains(s.Error, "claimed by 2 folders (contracts/aaa/hijack, contracts/orders/order-created)") {
		t.Errorf("subject %s: class %s, error %q; want BREAKING, not evaluated, naming both folders", s.Subject, s.Class, s.Error)
	}
}

// TestCheckSymlinkedFolder: a domain folder that is a link fails lint, and check.
func TestCheckSymlinkedFolder(t *testing.T) {
	dir, repo := exampleRepo(t)
	if err := os.Symlink("orders", filepath.Join(dir, "contracts/etc")); err != nil {
		t.Fatal(err)
	}
	commit(t, repo, "link a domain")

	r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	got := withCode(r, contract.CodeSymlink)
	if code != 1 || len(got) != 1 || got[0].File != "contracts/etc" {
		t.Fatalf("exit %d, symlink errors %v: want exit 1 and one on contracts/etc", code, got)
	}
	if want := lintAt(t, dir, "HEAD", contract.CodeSymlink); !slices.Equal(got, want) {
		t.Errorf("check reports %v, lint %v", got, want)
	}
}

// TestCheckRemovedTeam: removing a team from teams.yaml that a subject no change
// touches still owns fails check with lint's unknown-team error on that subject.
func TestCheckRemovedTeam(t *testing.T) {
	dir, repo := exampleRepo(t)
	teams := filepath.Join(dir, "contracts/teams.yaml")
	data, err := os.ReadFile(teams)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "\n  payments:\n")
	end := strings.Index(text[start+1:], "\n\n  ")
	if start < 0 || end < 0 {
		t.Fatal("the example teams.yaml has no payments team followed by another")
	}
	if err := os.WriteFile(teams, []byte(text[:start]+text[start+1+end:]), 0o644); err != nil {
		t.Fatal(err)
	}
	commit(t, repo, "remove the payments team")

	r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	got := withCode(r, contract.CodeUnknownTeam)
	want := lintAt(t, dir, "HEAD", contract.CodeUnknownTeam)
	if code != 1 || len(got) == 0 || !slices.Equal(got, want) {
		t.Fatalf("exit %d, unknown-team errors %v; want exit 1 and lint's %v", code, got, want)
	}
}

// TestCheckProducerOutputGone: a field removed from a subject that an upstream job
// produces (dws-gmv-1min, a consumer of dw.order-detail-value, maps window_end) and a
// subject deleted while a job still produces it fail check with lint's errors on that
// job's file, which the change does not touch and lineage (downstream) does not reach.
func TestCheckProducerOutputGone(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		change     func(dir string)
	}{
		{"field", contract.CodeUnknownOutput, func(dir string) {
			edit(t, filepath.Join(dir, "contracts/dws/gmv-1min/gmv_1min.avsc"), `    {"name": "window_end", "type": {"type": "long", "logicalType": "timestamp-millis"}, "doc": "Window end, exclusive (UTC); window_start + 60 s."},`+"\n", "")
		}},
		{"subject", contract.CodeUnknownSubject, func(dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "contracts/dws/gmv-1min")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, repo := exampleRepo(t)
			tc.change(dir)
			commit(t, repo, "remove "+tc.name)
			r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
			got := slices.DeleteFunc(withCode(r, tc.code), func(d contract.Diagnostic) bool { return !strings.HasPrefix(d.File, "contracts/") })
			want := slices.DeleteFunc(lintAt(t, dir, "HEAD", tc.code), func(d contract.Diagnostic) bool { return !strings.HasPrefix(d.File, "contracts/") })
			if code != 1 || len(got) == 0 || !slices.Equal(got, want) || got[0].File != "contracts/dw/order-detail/consumers/dws-gmv-1min.yaml" {
				t.Fatalf("exit %d, %s errors %v; want exit 1 and lint's %v on dws-gmv-1min.yaml", code, tc.code, got, want)
			}
		})
	}
}
