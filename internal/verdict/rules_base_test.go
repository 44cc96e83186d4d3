package verdict

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The rules of an evaluation come from the base (Input): what a pull request changes
// in them takes effect after the merge and needs the sign-off of the team it takes
// something from.

const (
	teamsFile   = "contracts/teams.yaml"
	freezesFile = "calendar/freezes.yaml"
)

func processOf(r *Report, what string) []ProcessChange {
	var out []ProcessChange
	for _, pc := range r.Process {
		if pc.What == what {
			out = append(out, pc)
		}
	}
	return out
}

// A pull request that removes a field data-warehouse reads and, in teams.yaml, gives
// the team another handle and channel: the sign-off is still the base's handle's
// (an approval by the new handle does not count), and the edit itself needs the
// team's sign-off.
func TestRulesFromBaseTeamEntry(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.replace(teamsFile, `    github: ["@acme/data-warehouse"]
    slack: "#dw-realtime"`, `    github: ["@mallory"]
    slack: "#mallory"`)
	repo.commit("remove amount; data-warehouse is mallory now")
	in := repo.input()
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}}
	in.Reviews = []Review{{Login: "mallory", State: "APPROVED", SubmittedAt: openedAt.Add(10 * time.Minute)}}
	r := Assess(in)
	dw := signOffOf(t, r, "data-warehouse")
	equal(t, "handles", dw.Handles, []string{"@acme/data-warehouse"})
	equal(t, "status", dw.Status, Pending)
	pcs := processOf(r, TeamChanged)
	if len(pcs) != 1 || pcs[0].Team != "data-warehouse" || !strings.Contains(pcs[0].Message, `github becomes ["@mallory"], slack becomes "#mallory"`) {
		t.Fatalf("process changes: %+v", r.Process)
	}
	if !slices.ContainsFunc(dw.For, func(c ConsumerRef) bool { return c.File == teamsFile && c.Consumer == "" }) {
		t.Errorf("the team's sign-off is not asked for its teams.yaml entry: %+v", dw.For)
	}
	in.Reviews = append(in.Reviews, Review{Login: "dana", State: "APPROVED", SubmittedAt: openedAt.Add(20 * time.Minute)})
	equal(t, "approved by the base's member", signOffOf(t, Assess(in), "data-warehouse").Status, Approved)
	writeGoldens(t, "rules-team-entry", r)
}

// A pull request that sets signoff_hours: 720 keeps the base's 24 hours for itself,
// and lengthening the window needs the subject owner's sign-off.
func TestRulesFromBaseSignoffHours(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.replace(orderCreatedContract, "signoff_hours: 24\n", "signoff_hours: 720\n")
	repo.commit("remove amount, with 30 days to answer")
	r := Assess(repo.input())
	equal(t, "deadline", signOffOf(t, r, "data-warehouse").Deadline, openedAt.Add(24*time.Hour))
	pcs := processOf(r, SignoffHoursLengthened)
	if len(pcs) != 1 || pcs[0].Team != "orders" || pcs[0].Subject != "orders.order-created-value" {
		t.Fatalf("process changes: %+v", r.Process)
	}
	equal(t, "owner asked", signOffOf(t, r, "orders").Status, Pending)

	// Shortening the window is a change the readers agree to.
	repo2 := newScenarioRepo(t)
	repo2.replace(orderCreatedContract, "signoff_hours: 24\n", "signoff_hours: 1\n")
	repo2.commit("one hour to answer")
	r2 := Assess(repo2.input())
	equal(t, "class", r2.Class, Compatible)
	equal(t, "readers asked", statuses(r2), map[string]Status{"data-warehouse": Pending, "platform": Pending})
}

// A breaking change during the year-end freeze that deletes the freeze in the same
// pull request is still held by it, and deleting it needs the admin team.
func TestRulesFromBaseFreeze(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	fz := repo.read(freezesFile)
	start := strings.Index(fz, "  - name: year-end")
	end := strings.Index(fz, "  - name: weekend")
	repo.write(freezesFile, fz[:start]+fz[end:])
	repo.commit("remove amount and the freeze that holds it")
	in := repo.input()
	in.Now = time.Date(2026, 12, 22, 9, 0, 0, 0, time.UTC) // a Tuesday inside year-end
	r := Assess(in)
	i := slices.IndexFunc(r.Calendar, func(c *CalendarCheck) bool { return c.Subject == "orders.order-created-value" })
	if i < 0 || r.Calendar[i].Freeze != "year-end" {
		t.Fatalf("the deleted freeze does not hold the change: %+v", r.Calendar)
	}
	pcs := processOf(r, FreezeRemoved)
	if len(pcs) != 1 || pcs[0].Team != "platform" {
		t.Fatalf("process changes: %+v", r.Process)
	}
	equal(t, "platform handles", signOffOf(t, r, "platform").Handles, []string{"@acme/data-platform"})

	in.AdminTeam = "@acme/contract-admins"
	r = Assess(in)
	admins := signOffOf(t, r, "acme/contract-admins")
	equal(t, "admin handles", admins.Handles, []string{"@acme/contract-admins"})
	if !slices.ContainsFunc(admins.For, func(c ConsumerRef) bool { return c.File == freezesFile }) {
		t.Errorf("the admin team is not asked for the freeze: %+v", admins.For)
	}
	writeGoldens(t, "rules-freeze-removed", r)

	// An admin team that teams.yaml lists is that team: its sign-off has the team's
	// Slack channel and escalation.
	in.AdminTeam = "acme/Data-Platform"
	r = Assess(in)
	equal(t, "listed admin team", signOffOf(t, r, "platform").Handles, []string{"@acme/data-platform"})
	if slices.ContainsFunc(r.SignOffs, func(so *SignOff) bool { return strings.Contains(so.Team, "/") }) {
		t.Errorf("the admin team is asked under its GitHub handle as well: %+v", r.SignOffs)
	}
}

// A freeze added to the head does not hold the pull request that adds it; one whose
// window the head shortens still holds, and the admin team is asked.
func TestRulesFromBaseFreezeShortened(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.replace(freezesFile, `    end: "2027-01-04T08:00"`, `    end: "2026-12-19T00:00"`)
	repo.commit("remove amount; year-end ends early")
	in := repo.input()
	in.Now = time.Date(2026, 12, 22, 9, 0, 0, 0, time.UTC)
	r := Assess(in)
	if !slices.ContainsFunc(r.Calendar, func(c *CalendarCheck) bool { return c.Freeze == "year-end" }) {
		t.Errorf("the shortened freeze does not hold the change: %+v", r.Calendar)
	}
	if pcs := processOf(r, FreezeChanged); len(pcs) != 1 {
		t.Errorf("process changes: %+v", r.Process)
	}

	widened := newScenarioRepo(t)
	widened.replace(freezesFile, `    end: "2027-01-04T08:00"`, `    end: "2027-01-11T08:00"`)
	widened.commit("year-end lasts a week longer")
	if r := Assess(widened.input()); len(r.Process) != 0 || !r.Ready {
		t.Errorf("widening a freeze needs nobody: %+v", r.Process)
	}
}

// Deleting a team's consumer file, giving it to another team or taking a read away
// changes who is asked later: each needs the base owner's sign-off.
func TestRulesFromBaseConsumerFiles(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.remove("contracts/orders/order-created/consumers/ods-order-archive.yaml")
	repo.replace("contracts/orders/order-created/consumers/dwd-order-detail.yaml", "owner: data-warehouse\n", "owner: analytics\n")
	repo.replace("contracts/payments/payment-authorized/consumers/fraud-detector.yaml", "  - risk_flags\n", "")
	repo.commit("nobody reads order-created any more")
	r := Assess(repo.input())
	got := map[string]string{}
	for _, pc := range r.Process {
		got[pc.What+" "+pc.Consumer] = pc.Team
	}
	equal(t, "process changes", got, map[string]string{
		"consumer-removed ods-order-archive": "platform",
		"consumer-reowned dwd-order-detail":  "data-warehouse",
		"consumer-narrowed fraud-detector":   "risk",
	})
	equal(t, "statuses", statuses(r), map[string]Status{"platform": Pending, "data-warehouse": Pending, "risk": Pending})
	if r.Ready {
		t.Error("ready to merge")
	}
	writeGoldens(t, "rules-consumer-files", r)
}

// A data rule that can reject writes asks the producers of the base, even when the
// same pull request deletes their produces: entries.
func TestRulesFromBaseProducers(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace("contracts/risk/fraud-score/contract.yaml", "fields:\n", "rules:\n  - name: score-range\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.score >= 0.0 && message.score <= 1.0\n    on_failure: ERROR\nfields:\n")
	fd := "contracts/payments/payment-authorized/consumers/fraud-detector.yaml"
	s := repo.read(fd)
	repo.write(fd, s[:strings.Index(s, "produces:")])
	repo.commit("a rule on scores; fraud-detector produces nothing")
	r := Assess(repo.input())
	risk := signOffOf(t, r, "risk")
	if !slices.ContainsFunc(risk.For, func(c ConsumerRef) bool {
		return c.Consumer == "fraud-detector" && c.Subject == "risk.fraud-score-value" && strings.Contains(c.Reason, "data rule")
	}) {
		t.Errorf("the producer is not asked for the rule: %+v", risk.For)
	}
}

// A team's fingerprint is made of facts, never of sentences: rewording every message
// of an evaluated change keeps every fingerprint and every approval. And the state an
// earlier release wrote (its fingerprints hashed the sentences) is still believed for
// the same change: upgrading drops no approval.
func TestFingerprintFromFacts(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	loosenUserProfile(repo)
	deleteOrderDetail(repo)
	repo.commit("three changes")
	in := repo.input()
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}, "@acme/data-platform": {"pat"}, "@acme/analytics": {"ann"}, "@acme/engagement": {"eve"}, "@acme/risk": {"rita"}}
	for _, login := range []string{"dana", "pat", "ann", "eve", "rita"} {
		in.Reviews = append(in.Reviews, Review{Login: login, State: "APPROVED", SubmittedAt: openedAt.Add(10 * time.Minute)})
	}
	r1 := Assess(in)
	if len(r1.SignOffs) < 3 {
		t.Fatalf("sign-offs: %v", statuses(r1))
	}
	for team, st := range statuses(r1) {
		equal(t, team+" approved", st, Approved)
	}

	// Another release words everything differently.
	reword := func(s string) string { return "reworded: " + strings.ToUpper(s) }
	for _, sr := range r1.Subjects {
		for i := range sr.Changes {
			sr.Changes[i].Message = reword(sr.Changes[i].Message)
		}
		for i := range sr.Affected {
			for j := range sr.Affected[i].Hits {
				sr.Affected[i].Hits[j].Change.Message = reword(sr.Affected[i].Hits[j].Change.Message)
			}
		}
		for i := range sr.Governance {
			sr.Governance[i] = reword(sr.Governance[i])
		}
		for i := range sr.DataContract {
			sr.DataContract[i].Message = reword(sr.DataContract[i].Message)
		}
		for i := range sr.State {
			sr.State[i].Why = reword(sr.State[i].Why)
		}
	}
	for i := range r1.Process {
		r1.Process[i].Message = reword(r1.Process[i].Message)
	}
	second := in
	second.Prior, second.Now = r1.State, now.Add(time.Hour)
	r2 := &Report{Subjects: r1.Subjects, Process: r1.Process, Calendar: r1.Calendar, Now: second.Now}
	Settle(second, r2)
	equal(t, "state", r2.State, r1.State)
	for team, st := range statuses(r2) {
		equal(t, team+" still approved", st, Approved)
	}
	refs := slices.Clone(signOffOf(t, r2, "data-warehouse").For)
	for i := range refs {
		refs[i].Reason = reword(refs[i].Reason)
	}
	equal(t, "fingerprint of reworded reasons", fingerprint(refs), signOffOf(t, r2, "data-warehouse").Fingerprint)
}

// The fingerprints of scenario (c) as the release before facts wrote them
// (testdata/scenarios/c-remove-field-two-hops.json at that release): a team that
// approved then keeps its approval, and its fingerprint.
func TestFingerprintLegacyKept(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.commit("remove amount")
	in := repo.input()
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}}
	in.Reviews = []Review{{Login: "dana", State: "APPROVED", SubmittedAt: openedAt.Add(20 * time.Minute)}}
	in.Prior = map[string]TeamState{
		"data-warehouse": {Fingerprint: "85679d9526279501", RequestedAt: openedAt},
		"platform":       {Fingerprint: "e555099c2f0a91b3", RequestedAt: openedAt},
	}
	in.Now = now.Add(time.Hour)
	r := Assess(in)
	dw := signOffOf(t, r, "data-warehouse")
	equal(t, "status", dw.Status, Approved)
	equal(t, "fingerprint", dw.Fingerprint, "85679d9526279501")
	equal(t, "platform fingerprint", r.State["platform"].Fingerprint, "e555099c2f0a91b3")
	equal(t, "platform requested", r.State["platform"].RequestedAt, openedAt)
}

// Meaning declared in contract.yaml's fields: is a field change: another unit is
// COMPATIBLE for the field's readers, as the same change in the schema's doc is; a
// doc that names another unit too; a doc naming the same units is harmless.
func TestMeaningInContractYAML(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		class          Class
		teams          map[string]Status
	}{
		{"unit", "    unit: cents\n", "    unit: CNY\n", Compatible, map[string]Status{"data-warehouse": Pending, "platform": Pending}},
		{"doc-unit", "    doc: order total after discounts, before shipping\n", "    doc: order total after discounts, before shipping, in dollars\n", Compatible, map[string]Status{"data-warehouse": Pending, "platform": Pending}},
		{"doc", "    doc: order total after discounts, before shipping\n", "    doc: the order total after discounts and before shipping\n", Safe, map[string]Status{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newScenarioRepo(t)
			repo.replace(orderCreatedContract, amountMeta, strings.Replace(amountMeta, tc.old, tc.new, 1))
			repo.commit("amount's meaning")
			r := Assess(repo.input())
			equal(t, "class", r.Class, tc.class)
			equal(t, "sign-offs", statuses(r), tc.teams)
			if tc.name == "unit" {
				s := r.Subjects[0]
				if len(s.Changes) != 1 || s.Changes[0].Kind != "unit_changed" || s.Changes[0].File != orderCreatedContract || s.Changes[0].Line == 0 {
					t.Errorf("changes: %+v", s.Changes)
				}
				writeGoldens(t, "meaning-unit-in-contract", r)
			}
		})
	}
}

// Removing a pii mark needs the admin team: the registry drops the field's PII tag
// and the rules scoped to PII stop applying. A renamed field that keeps its mark
// under the new name drops nothing.
func TestPIIMarkRemoved(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace(orderCreatedContract, "  user_id:\n    pii: true\n", "  user_id:\n")
	repo.commit("user_id is not personal")
	in := repo.input()
	in.AdminTeam = "acme/contract-admins"
	r := Assess(in)
	equal(t, "class", r.Class, Compatible)
	admins := signOffOf(t, r, "acme/contract-admins")
	equal(t, "admin handles", admins.Handles, []string{"@acme/contract-admins"})
	if len(admins.For) != 1 || admins.For[0].File != orderCreatedContract || !strings.Contains(admins.For[0].Reason, "no longer marked pii") {
		t.Errorf("admin sign-off: %+v", admins.For)
	}
	writeGoldens(t, "meaning-pii-removed", r)

	renamed := newScenarioRepo(t)
	renameUserID(renamed)
	renamed.commit("user_id is buyer_id, still pii")
	for _, so := range Assess(renamed.input()).SignOffs {
		if so.Team == "platform" && slices.ContainsFunc(so.For, func(c ConsumerRef) bool { return strings.Contains(c.Reason, "pii") }) {
			t.Errorf("a rename that keeps the mark asks the admin team: %+v", so.For)
		}
	}
}

// Demoting a subject from core is a change its readers agree to: COMPATIBLE changes
// would no longer need a calendar entry, and core freezes would no longer hold it.
func TestRulesTierDemoted(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace(orderCreatedContract, "tier: core\n", "tier: standard\n")
	repo.commit("order-created is standard")
	r := Assess(repo.input())
	equal(t, "class", r.Class, Compatible)
	equal(t, "readers asked", statuses(r), map[string]Status{"data-warehouse": Pending, "platform": Pending})
	if g := r.Subjects[0].Governance; len(g) != 1 || !strings.Contains(g[0], "tier changes from core to standard") {
		t.Errorf("governance: %q", g)
	}
}

// A teams.yaml that does not load is a contract file error, not the deletion of
// every team.
func TestRulesBrokenTeamsFile(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace(teamsFile, "teams:\n", "teams: [\n")
	repo.commit("broken teams.yaml")
	r := Assess(repo.input())
	if len(processOf(r, TeamRemoved)) != 0 {
		t.Errorf("a broken teams.yaml deletes teams: %+v", r.Process)
	}
	if len(r.Lint) == 0 || r.Ready {
		t.Errorf("a broken teams.yaml is not a blocking error: %+v", r.Lint)
	}
}
