package verdict

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// The key facts of each scenario, asserted in code so that a golden file accepted by
// mistake cannot hide a wrong verdict.

func subjectOf(t *testing.T, r *Report, name string) *SubjectReport {
	t.Helper()
	for _, s := range r.Subjects {
		if s.Subject == name {
			return s
		}
	}
	t.Fatalf("no report for subject %s; subjects: %v", name, subjectNames(r))
	return nil
}

func subjectNames(r *Report) []string {
	var out []string
	for _, s := range r.Subjects {
		out = append(out, s.Subject)
	}
	return out
}

// consumers lists "name" of the direct or the indirect consumers, in report order.
func consumers(s *SubjectReport, direct bool) []string {
	out := []string{}
	for _, a := range s.Affected {
		if a.Direct == direct {
			out = append(out, a.Name)
		}
	}
	return out
}

// statuses maps each sign-off team to its status.
func statuses(r *Report) map[string]Status {
	out := map[string]Status{}
	for _, so := range r.SignOffs {
		out[so.Team] = so.Status
	}
	return out
}

func signOffOf(t *testing.T, r *Report, team string) *SignOff {
	t.Helper()
	for _, so := range r.SignOffs {
		if so.Team == team {
			return so
		}
	}
	t.Fatalf("no sign-off for team %s; have %v", team, statuses(r))
	return nil
}

func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func scenarioNamed(t *testing.T, name string) scenario {
	t.Helper()
	for _, s := range scenarios {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no scenario %s", name)
	return scenario{}
}

func TestScenarioAddOptionalField(t *testing.T) {
	r := scenarioNamed(t, "a-add-optional-field").run(t)
	equal(t, "class", r.Class, Safe)
	equal(t, "ready", r.Ready, true)
	s := subjectOf(t, r, "orders.order-created-value")
	equal(t, "changes", len(s.Changes), 1)
	equal(t, "change", s.Changes[0].Kind, checker.FieldAdded)
	equal(t, "affected", len(s.Affected), 0)
	equal(t, "sign-offs", len(r.SignOffs), 0)
	equal(t, "calendar checks", len(r.Calendar), 0)
	equal(t, "lint", len(r.Lint), 0)
	if !strings.HasPrefix(Markdown(r, MarkdownOptions{}), "**SAFE**: ready to merge.") {
		t.Errorf("Markdown does not start with the SAFE verdict:\n%s", Markdown(r, MarkdownOptions{}))
	}
}

func TestScenarioPromoteIntLong(t *testing.T) {
	r := scenarioNamed(t, "b-promote-int-long").run(t)
	equal(t, "class", r.Class, Compatible)
	equal(t, "ready", r.Ready, false)
	s := subjectOf(t, r, "dws.gmv-1min-value")
	equal(t, "direct", consumers(s, true), []string{"doris-gmv-1min", "gmv-dashboard"})
	equal(t, "indirect", consumers(s, false), []string{})
	equal(t, "statuses", statuses(r), map[string]Status{"analytics": Pending, "data-warehouse": Pending})
	equal(t, "deadline", r.Deadline, openedAt.Add(24*time.Hour))
	// dws.gmv-1min-value is core tier: a COMPATIBLE change needs an entry, and the
	// state migration on 2026-12-10 names the subject, lies ahead and outside freezes.
	equal(t, "calendar checks", len(r.Calendar), 1)
	equal(t, "calendar required", r.Calendar[0].Required, true)
	equal(t, "calendar entry", r.Calendar[0].Entry, "calendar/2026-12-10-dws-gmv-state-migration.yaml")
}

func TestScenarioRemoveFieldTwoHops(t *testing.T) {
	r := scenarioNamed(t, "c-remove-field-two-hops").run(t)
	equal(t, "class", r.Class, Breaking)
	equal(t, "lint", len(r.Lint), 0) // consumer files reading amount are impact, not lint
	s := subjectOf(t, r, "orders.order-created-value")
	equal(t, "registry compatible", s.Compatible, true) // BACKWARD_TRANSITIVE allows a removal
	equal(t, "direct", consumers(s, true), []string{"dwd-order-detail", "ods-order-archive"})
	equal(t, "indirect", consumers(s, false), []string{"clickhouse-order-detail", "dws-gmv-1min", "doris-gmv-1min", "gmv-dashboard"})
	for _, a := range s.Affected {
		if a.Name == "gmv-dashboard" {
			equal(t, "gmv-dashboard hops", a.Hops, 2)
			equal(t, "gmv-dashboard chain", chains(a), []string{
				"orders.order-created-value.amount -> dwd-order-detail -> dw.order-detail-value.amount_cents -> dws-gmv-1min -> dws.gmv-1min-value.gmv_cents",
			})
		}
	}
	// Only the owners of direct consumers sign off.
	equal(t, "statuses", statuses(r), map[string]Status{"data-warehouse": Pending, "platform": Pending})
	equal(t, "calendar entry", r.Calendar[0].Entry, "calendar/2026-12-08-split-order-amount.yaml")
	md := Markdown(r, goldenOptions)
	for _, want := range []string{"**BREAKING**: not ready to merge", "- [ ] **data-warehouse** (@acme/data-warehouse)", "dws.gmv-1min-value.gmv_cents`"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

func TestScenarioRenameWithAlias(t *testing.T) {
	r := scenarioNamed(t, "d-rename-with-alias").run(t)
	equal(t, "class", r.Class, Breaking)
	s := subjectOf(t, r, "orders.order-created-value")
	equal(t, "registry compatible", s.Compatible, true) // the alias keeps the wire format readable
	equal(t, "change", s.Changes[0].Kind, checker.FieldRenamed)
	equal(t, "direct", consumers(s, true), []string{"dwd-order-detail", "ods-order-archive"})
	for _, a := range s.Affected {
		if a.Name == "dwd-order-detail" {
			equal(t, "dwd-order-detail reads", reads(a), []read{{Field: "user_id", Read: "user_id"}})
		}
	}
	so := signOffOf(t, r, "data-warehouse")
	equal(t, "data-warehouse fields", so.For[0].Fields, []string{"user_id"})
	equal(t, "lint", len(r.Lint), 0)
}

func TestScenarioLoosenFullToNone(t *testing.T) {
	r := scenarioNamed(t, "e-loosen-full-to-none").run(t)
	equal(t, "class", r.Class, Compatible)
	s := subjectOf(t, r, "users.user-profile-value")
	equal(t, "level", s.Level, "NONE")
	equal(t, "old level", s.OldLevel, "FULL_TRANSITIVE")
	equal(t, "governance items", len(s.Governance), 1)
	equal(t, "statuses", statuses(r), map[string]Status{"engagement": Pending, "risk": Pending})
	// signoff_hours: 48 for this subject.
	equal(t, "deadline", signOffOf(t, r, "risk").Deadline, openedAt.Add(48*time.Hour))
	equal(t, "calendar checks", len(r.Calendar), 0) // standard tier, COMPATIBLE
}

func TestScenarioDeleteSubject(t *testing.T) {
	r := scenarioNamed(t, "f-delete-subject").run(t)
	equal(t, "class", r.Class, Breaking)
	s := subjectOf(t, r, "dw.order-detail-value")
	equal(t, "kind", s.Kind, Deleted)
	equal(t, "direct", consumers(s, true), []string{"clickhouse-order-detail", "dws-gmv-1min"})
	equal(t, "indirect", consumers(s, false), []string{"doris-gmv-1min", "gmv-dashboard"})
	equal(t, "statuses", statuses(r), map[string]Status{"analytics": Pending, "data-warehouse": Pending})
	equal(t, "fields of a deleted subject", signOffOf(t, r, "analytics").For[0].Fields, []string{})
	// The head tree still names the deleted subject in lineage and in the calendar.
	var lint []string
	for _, d := range r.Lint {
		lint = append(lint, d.File+":"+d.Code)
	}
	equal(t, "lint", lint, []string{
		"calendar/2026-12-08-split-order-amount.yaml:" + contract.CodeUnknownSubject,
		"contracts/orders/order-created/consumers/dwd-order-detail.yaml:" + contract.CodeUnknownSubject,
		"contracts/orders/order-snapshot/consumers/dwd-order-snapshot.yaml:" + contract.CodeUnknownSubject,
	})
	if !strings.Contains(Text(r), "contracts/orders/order-created/consumers/dwd-order-detail.yaml:20:3: unknown-subject") {
		t.Errorf("text output lacks the lineage error with its position:\n%s", Text(r))
	}
}

func TestScenarioBrokenYAML(t *testing.T) {
	r := scenarioNamed(t, "g-broken-yaml").run(t)
	equal(t, "lint", len(r.Lint), 1)
	d := r.Lint[0]
	equal(t, "lint place", [4]any{d.File, d.Line, d.Column, d.Code}, [4]any{crmSyncConsumer, 9, 8, contract.CodeYAMLSyntax})
	equal(t, "ready", r.Ready, false)
	// The rest is still evaluated: the promotion next to the broken file.
	equal(t, "class", r.Class, Compatible)
	equal(t, "direct", consumers(subjectOf(t, r, "dws.gmv-1min-value"), true), []string{"doris-gmv-1min", "gmv-dashboard"})
	if !strings.Contains(r.Blockers[0], "1 error") {
		t.Errorf("first blocker %q does not name the lint error", r.Blockers[0])
	}
	gh := GitHubActions(r)
	if !strings.Contains(gh, "::error file="+crmSyncConsumer+",line=9,endLine=9,col=8,endColumn=8,title=yaml-syntax::") {
		t.Errorf("GitHub output lacks the syntax error annotation:\n%s", gh)
	}
}

func TestScenarioRegistryFailsNoCalendarEntry(t *testing.T) {
	r := scenarioNamed(t, "k-registry-fails-no-calendar-entry").run(t)
	equal(t, "class", r.Class, Breaking)
	s := subjectOf(t, r, "users.user-profile-value")
	equal(t, "registry compatible", s.Compatible, false)
	equal(t, "findings", len(s.Findings), 1)
	f := s.Findings[0]
	equal(t, "finding place", [4]any{f.Rule, f.File, f.Line, f.Path}, [4]any{"READER_FIELD_MISSING_DEFAULT_VALUE", userProfileSchema, 12, "email"})
	equal(t, "direct", consumers(s, true), []string{"crm-sync"})
	equal(t, "statuses", statuses(r), map[string]Status{"engagement": Pending})
	// A BREAKING change needs an entry whatever the tier; none names the subject.
	cc := r.Calendar[0]
	equal(t, "calendar", [3]any{cc.Required, cc.Entry, len(cc.Problems)}, [3]any{true, "", 0})
	if cc.SuggestionFile == "" || !strings.Contains(cc.Suggestion, "users.user-profile-value") {
		t.Errorf("no suggested entry: %+v", cc)
	}
	// The suggested window starts after engagement's sign-off deadline (issue 18: it
	// proposed a slot a day before the sign-offs were due).
	_, after, _ := strings.Cut(cc.Suggestion, "start: \"")
	start, err := time.ParseInLocation("2006-01-02T15:04", strings.SplitN(after, "\"", 2)[0], berlin(t))
	if err != nil {
		t.Fatalf("the suggestion's start does not parse: %v\n%s", err, cc.Suggestion)
	}
	if deadline := signOffOf(t, r, "engagement").Deadline; !start.After(deadline) {
		t.Errorf("the suggested window starts at %s, before the sign-off deadline %s", start, deadline)
	}
	if !strings.Contains(Markdown(r, MarkdownOptions{}), "```yaml\n  # yaml-language-server") {
		t.Error("the suggested entry is not shown as a YAML block")
	}
}

func TestScenarioNewSubjectAndMove(t *testing.T) {
	r := scenarioNamed(t, "l-new-subject-and-move").run(t)
	equal(t, "class", r.Class, Safe)
	equal(t, "ready", r.Ready, true)
	equal(t, "subjects", subjectNames(r), []string{"inventory.stock-level-value", "orders.order-cancelled-value"})
	moved := subjectOf(t, r, "inventory.stock-level-value")
	equal(t, "moved", [3]any{moved.Kind, moved.OldDir, moved.Dir}, [3]any{Moved, "contracts/inventory/stock-level", "contracts/inventory/stock-levels"})
	equal(t, "added", subjectOf(t, r, "orders.order-cancelled-value").Kind, Added)
	equal(t, "lint", len(r.Lint), 0)
	equal(t, "sign-offs", len(r.SignOffs), 0)
}

// TestDocsShowCurrentOutput keeps the examples of docs/verdict.md true: they are
// copies of scenario goldens.
func TestDocsShowCurrentOutput(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "verdict.md"))
	must(t, err)
	for _, g := range []string{"b-promote-int-long.md", "c-remove-field-two-hops.txt", "g-broken-yaml.github"} {
		want, err := os.ReadFile(filepath.Join("testdata", "scenarios", g))
		must(t, err)
		if !strings.Contains(string(doc), string(want)) {
			t.Errorf("docs/verdict.md does not show the current %s; copy the golden file into it", g)
		}
	}
}

// TestScenarioReviews: in scenario (c) an approval by a member of data-warehouse
// signs off for the team; the author's own approval does not count for a team the
// author is not in; a later request for changes by the same member revokes it.
func TestScenarioReviews(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.commit("remove amount")
	in := repo.input()
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}}
	at := func(min int) time.Time { return openedAt.Add(time.Duration(min) * time.Minute) }

	in.Reviews = []Review{
		{Login: "olivia", State: "APPROVED", SubmittedAt: at(10)}, // the author
		{Login: "dana", State: "APPROVED", SubmittedAt: at(20)},
	}
	r := Assess(in)
	equal(t, "statuses after approval", statuses(r), map[string]Status{"data-warehouse": Approved, "platform": Pending})
	equal(t, "approved by", signOffOf(t, r, "data-warehouse").ApprovedBy, "dana")
	equal(t, "ready", r.Ready, false)
	writeGoldens(t, "h-reviews", r)

	in.Reviews = append(in.Reviews, Review{Login: "dana", State: "CHANGES_REQUESTED", SubmittedAt: at(40)})
	r = Assess(in)
	equal(t, "statuses after changes requested", statuses(r), map[string]Status{"data-warehouse": Pending, "platform": Pending})

	// A comment after an approval does not revoke it.
	in.Reviews = []Review{{Login: "dana", State: "APPROVED", SubmittedAt: at(20)}, {Login: "dana", State: "COMMENTED", SubmittedAt: at(30)}}
	r = Assess(in)
	equal(t, "statuses after a comment", statuses(r)["data-warehouse"], Approved)
}

// TestScenarioFingerprint: the bot's state from a first evaluation carries approvals
// to the next push as long as what the change does to a team stays the same. A second
// push that also removes attributes (read only by ods-order-archive, through "*")
// changes the platform team's impact: its approval is dropped, data-warehouse's kept.
func TestScenarioFingerprint(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.commit("remove amount")
	members := map[string][]string{"@acme/data-warehouse": {"dana"}, "@acme/data-platform": {"pat"}}
	reviews := []Review{
		{Login: "dana", State: "APPROVED", SubmittedAt: openedAt.Add(20 * time.Minute)},
		{Login: "pat", State: "APPROVED", SubmittedAt: openedAt.Add(30 * time.Minute)},
	}
	first := repo.input()
	first.Members, first.Reviews = members, reviews
	r1 := Assess(first)
	equal(t, "first statuses", statuses(r1), map[string]Status{"data-warehouse": Approved, "platform": Approved})
	equal(t, "first ready", r1.Ready, true)

	repo.write(orderCreatedSchema, removeField(t, repo.read(orderCreatedSchema), "attributes"))
	repo.commit("also remove attributes")
	second := Input{
		Base: repo.load("HEAD~2"), Head: repo.load("HEAD"), Author: "olivia",
		Members: members, Reviews: reviews, OpenedAt: openedAt, Prior: r1.State,
		Now: now.Add(time.Hour),
	}
	r2 := Assess(second)
	equal(t, "second statuses", statuses(r2), map[string]Status{"data-warehouse": Approved, "platform": Pending})
	dw, pl := signOffOf(t, r2, "data-warehouse"), signOffOf(t, r2, "platform")
	equal(t, "data-warehouse dropped", dw.Dropped, "")
	if pl.Dropped == "" {
		t.Error("platform's earlier approval was not reported as dropped")
	}
	equal(t, "platform fields", pl.For[0].Fields, []string{"amount", "attributes"})
	equal(t, "platform requested again", pl.RequestedAt, second.Now)
	equal(t, "platform deadline", pl.Deadline, second.Now.Add(24*time.Hour))
	equal(t, "data-warehouse fingerprint kept", r2.State["data-warehouse"], r1.State["data-warehouse"])
	writeGoldens(t, "i-fingerprint", r2)
}

// removeField deletes the field object named name from an Avro schema text written
// one field per block, as the example tree is. The field must not be the last one.
func removeField(t testing.TB, schema, name string) string {
	t.Helper()
	start := strings.Index(schema, "    {\n      \"name\": \""+name+"\"")
	end := strings.Index(schema[max(start, 0):], "\n    },\n")
	if start < 0 || end < 0 {
		t.Fatalf("field %s not found, or it is the last field", name)
	}
	return schema[:start] + schema[start+end+len("\n    },\n"):]
}

// TestScenarioDeadline: evaluated 26 hours after the pull request was opened, the
// pending sign-offs of scenario (c) are overdue by 2 hours.
func TestScenarioDeadline(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.commit("remove amount")
	in := repo.input()
	in.Now = openedAt.Add(26 * time.Hour)
	r := Assess(in)
	equal(t, "statuses", statuses(r), map[string]Status{"data-warehouse": Overdue, "platform": Overdue})
	equal(t, "deadline", r.Deadline, openedAt.Add(24*time.Hour))
	md := Markdown(r, goldenOptions)
	if !strings.Contains(md, "**overdue** by 2 h") {
		t.Errorf("Markdown does not say overdue by 2 h:\n%s", md)
	}
	writeGoldens(t, "j-deadline", r)
}

func berlin(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// A consumer file of a changed subject that reads a field its schema never had (a
// typo made in the same pull request) keeps its lint error: only reads of fields the
// change removed are impact rather than mistakes.
func TestTypoInConsumerOfChangedSubjectIsLint(t *testing.T) {
	r := newScenarioRepo(t)
	r.replace("contracts/dw/order-detail/order_detail.avsc", `"name": "amount_cents", "type": "long"`, `"name": "amount_cents", "type": "double"`)
	r.replace("contracts/dw/order-detail/consumers/dws-gmv-1min.yaml", "reads: [order_id, user_id,", "reads: [order_id, user_idd,")
	r.commit("retype amount_cents, and a typo in a reader")
	rep := Assess(r.input())
	if len(rep.Lint) != 1 || rep.Lint[0].Code != contract.CodeUnknownField || !strings.Contains(rep.Lint[0].Message, `"user_idd"`) {
		t.Fatalf("lint %v: want the unknown-field error of user_idd", rep.Lint)
	}
	if rep.Ready {
		t.Error("ready to merge with a lint error")
	}
}
