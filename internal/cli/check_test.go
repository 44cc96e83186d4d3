package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/verdict"
)

// exampleRepo makes a Git repository holding the example tree as its first commit.
func exampleRepo(t *testing.T) (string, *git.Repository) {
	t.Helper()
	r := testutil.ExampleRepo(t)
	return r.Dir, r.Git
}

func commit(t *testing.T, repo *git.Repository, msg string) {
	t.Helper()
	testutil.CommitAll(t, repo, msg, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	testutil.EditFile(t, path, old, new)
}

func checkJSON(t *testing.T, args ...string) (*verdict.Report, int) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"check", "--format", "json", "--now", "2026-12-01T09:00:00Z"}, args...)...)
	if code == 2 {
		t.Fatalf("check: %s", errOut)
	}
	var r verdict.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check output is not a report: %v\n%s", err, out)
	}
	return &r, code
}

// TestCheckImportedProtoChange: a field removed from an imported proto reaches the
// importing subject and the consumers that read the field through it.
func TestCheckImportedProtoChange(t *testing.T) {
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/common/money/money.proto"), "  int32 nanos = 3;\n", "  reserved 3;\n")
	commit(t, repo, "drop nanos")
	r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	if code != 1 || r.Class != verdict.Breaking {
		t.Fatalf("exit %d class %s, want 1 BREAKING", code, r.Class)
	}
	var subjects []string
	consumers := map[string]bool{}
	for _, s := range r.Subjects {
		subjects = append(subjects, s.Subject)
		for _, a := range s.Affected {
			consumers[a.Name] = true
		}
	}
	if strings.Join(subjects, ",") != "common.money-value,payments.payment-authorized-value" {
		t.Errorf("subjects %v: the importer must be evaluated too", subjects)
	}
	for _, c := range []string{"fraud-detector", "dwd-payment-detail"} {
		if !consumers[c] {
			t.Errorf("%s reads amount.nanos and is not named: %v", c, consumers)
		}
	}
}

// TestCheckWorkingTree compares uncommitted edits with the merge base of main.
func TestCheckWorkingTree(t *testing.T) {
	dir, _ := exampleRepo(t)
	r, code := checkJSON(t, "--repo", dir)
	if code != 0 || r.Class != verdict.Safe || len(r.Subjects) != 0 {
		t.Fatalf("no change: exit %d class %s subjects %d", code, r.Class, len(r.Subjects))
	}
	edit(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"), `"name": "amount"`, `"name": "amount_total", "aliases": ["amount"]`)
	r, code = checkJSON(t, "--repo", dir)
	if r.Class != verdict.Breaking || code != 1 {
		t.Fatalf("rename: exit %d class %s", code, r.Class)
	}
	if len(r.SignOffs) == 0 {
		t.Error("a rename read by consumers needs sign-offs")
	}
}

// TestCheckOverlayExample runs the README's command and keeps the README's copy of
// its output true.
func TestCheckOverlayExample(t *testing.T) {
	out, errOut, code := runCLI(t, "check", "--repo", "../..", "--overlay", "../../examples/changes/amount-to-decimal", "--now", "2026-12-01T09:00:00Z")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (BREAKING without sign-offs): %s", code, errOut)
	}
	checkGolden(t, filepath.Join("..", "check", "amount-to-decimal.txt"), out)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), out) {
		t.Errorf("README.md does not show the current output of the check example; paste internal/cli/testdata/check/amount-to-decimal.txt into it")
	}
	md, _, _ := runCLI(t, "check", "--repo", "../..", "--overlay", "../../examples/changes/amount-to-decimal", "--now", "2026-12-01T09:00:00Z", "--format", "markdown")
	checkGolden(t, filepath.Join("..", "check", "amount-to-decimal.md"), md)
}

// legacyFlag commits order-created's legacy_flag added as an int, then dropped with
// whatever drop adds and commits, then back as a string.
func legacyFlag(t *testing.T, dir string, repo *git.Repository, drop func()) {
	t.Helper()
	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	anchor := `      "name": "amount",`
	field := func(typ, def string) string {
		return `      "name": "legacy_flag", "type": "` + typ + `", "default": ` + def + `
    },
    {
`
	}
	edit(t, avsc, anchor, field("int", "0")+anchor)
	commit(t, repo, "add legacy_flag as int")
	edit(t, avsc, field("int", "0"), "")
	drop()
	edit(t, avsc, anchor, field("string", `""`)+anchor)
	commit(t, repo, "legacy_flag comes back as a string")
}

// TestCheckTransitiveUsesHistory: a field that comes back with another type passes
// against the latest version but not against the one before it, which wrote the old
// type; BACKWARD_TRANSITIVE must catch that from the Git history.
func TestCheckTransitiveUsesHistory(t *testing.T) {
	dir, repo := exampleRepo(t)
	legacyFlag(t, dir, repo, func() { commit(t, repo, "drop legacy_flag") })
	r, _ := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	if len(r.Subjects) != 1 || r.Subjects[0].Compatible {
		t.Fatalf("want the transitive check to fail against the int version: %+v", r.Subjects)
	}
	f := r.Subjects[0].Findings
	if len(f) != 1 || f[0].Rule != "TYPE_MISMATCH" || f[0].Path != "legacy_flag" {
		t.Fatalf("findings: %+v", f)
	}
	// Versions: 1 the example, 2 with legacy_flag as an int; dropping it returned to
	// version 1's text, which is no new version. The finding is against version 2.
	if f[0].Against != 2 || !strings.Contains(f[0].Message, "version 2") {
		t.Errorf("against %d: %s", f[0].Against, f[0].Message)
	}
}

// TestCheckTransitiveWithinGroup: in a compatibility group the _TRANSITIVE levels
// compare a version with the earlier versions of the same group only, as Confluent's
// registry does: legacy_flag comes back as a string in group 2, while the int it was
// belonged to the versions before the group (versions 1 and 2, read from the
// contract.yaml beside each in the history).
func TestCheckTransitiveWithinGroup(t *testing.T) {
	dir, repo := exampleRepo(t)
	legacyFlag(t, dir, repo, func() {
		edit(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"), `"name": "coupon_code"`, `"name": "coupon", "aliases": ["coupon_code"]`)
		edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "signoff_hours: 24\n",
			"signoff_hours: 24\ncompatibility_group: {key: application.major.version, value: \"2\"}\n")
		commit(t, repo, "a new major version")
	})
	r, _ := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	if len(r.Subjects) != 1 {
		t.Fatalf("subjects: %+v", r.Subjects)
	}
	s := r.Subjects[0]
	if !s.Compatible || len(s.Findings) != 0 {
		t.Errorf("compared with the versions before the group: compatible %v, findings %+v", s.Compatible, s.Findings)
	}
	if !strings.Contains(strings.Join(s.Notes, "\n"), "not compared: they are of another compatibility group than application.major.version=2") {
		t.Errorf("notes do not say which versions were left out: %q", s.Notes)
	}
}

// TestCheckOverlayJSON runs the JSON Schema example change: the clickstream's userid
// renamed userId, BREAKING for both readers of userid.
func TestCheckOverlayJSON(t *testing.T) {
	out, errOut, code := runCLI(t, "check", "--repo", "../..", "--overlay", "../../examples/changes/userid-to-userId", "--now", "2026-12-01T09:00:00Z")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (BREAKING without sign-offs): %s", code, errOut)
	}
	for _, want := range []string{"engagement.app-event-value: BREAKING (modified; json;", "renamed userid -> userId: breaking", "funnel-dashboard (analytics, dashboard): breaking: userid"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	checkGolden(t, filepath.Join("..", "check", "userid-to-userId.txt"), out)
}

// TestCheckOverlayPlannedPaths runs the two planned paths of issue 33 over the example
// tree: a new major version whose migration rules cover the renamed field
// (COMPATIBLE, no registry check, both readers sign off) and a dual-version period
// (SAFE, each reader still on the old field warned until the window ends).
func TestCheckOverlayPlannedPaths(t *testing.T) {
	for _, c := range []struct {
		name string
		code int
		want []string
	}{
		{"gmv-major-version", 1, []string{"dws.gmv-1min-value: COMPATIBLE", "new compatibility group application.major.version=2: no registry check", "gmv-dashboard (analytics) on (none)"}},
		{"gmv-dual-write", 0, []string{"dws.gmv-1min-value: SAFE", "warning: consumer gmv-dashboard (team analytics) still reads gmv_cents, which is written next to its replacement gmv only during the dual-write window"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "check", "--repo", "../..", "--overlay", "../../examples/changes/"+c.name, "--now", "2026-12-01T09:00:00Z")
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errOut)
			}
			for _, want := range c.want {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q", want)
				}
			}
			checkGolden(t, filepath.Join("..", "check", c.name+".txt"), out)
		})
	}
}

// TestCheckAdminTeam: a pii mark taken away needs the admin team's sign-off; check
// asks the team --admin-team (or $CONTRACTBOT_ADMIN_TEAM) names, as the bot asks its
// own --admin-team, and the base's team platform without either.
func TestCheckAdminTeam(t *testing.T) {
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "  user_id:\n    pii: true\n", "  user_id:\n")
	commit(t, repo, "user_id is not personal")
	admins := func(r *verdict.Report) []string {
		var out []string
		for _, so := range r.SignOffs {
			for _, c := range so.For {
				if strings.Contains(c.Reason, "no longer marked pii") {
					out = append(out, so.Team+"="+strings.Join(so.Handles, ","))
				}
			}
		}
		return out
	}
	args := []string{"--repo", dir, "--rev", "HEAD", "--against", "HEAD~1"}
	t.Setenv("CONTRACTBOT_ADMIN_TEAM", "")
	r, _ := checkJSON(t, args...)
	if got := admins(r); len(got) != 1 || got[0] != "platform=@acme/data-platform" {
		t.Errorf("without --admin-team: %v, want the base's team platform", got)
	}
	r, _ = checkJSON(t, append(args, "--admin-team", "acme/contract-admins")...)
	if got := admins(r); len(got) != 1 || got[0] != "acme/contract-admins=@acme/contract-admins" {
		t.Errorf("--admin-team: %v", got)
	}
	t.Setenv("CONTRACTBOT_ADMIN_TEAM", "@acme/governance")
	r, _ = checkJSON(t, args...)
	if got := admins(r); len(got) != 1 || got[0] != "acme/governance=@acme/governance" {
		t.Errorf("$CONTRACTBOT_ADMIN_TEAM: %v", got)
	}
}
