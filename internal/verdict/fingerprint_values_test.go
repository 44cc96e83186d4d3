package verdict

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// fingerprintAfter evaluates one edit of the example tree and returns the report and
// the fingerprint of team's sign-off.
func fingerprintAfter(t *testing.T, team string, edit func(*scenarioRepo)) (*Report, string) {
	t.Helper()
	repo := newScenarioRepo(t)
	edit(repo)
	repo.commit("edit")
	r := Assess(repo.input())
	return r, signOffOf(t, r, team).Fingerprint
}

// A different value under the same key of a team's entry is a different change: its
// fingerprint differs (an approval of one edit is not an approval of the other) and
// the message shows the new value.
func TestFingerprintTeamEntryValues(t *testing.T) {
	edits := map[string][2]string{
		"slack":   {`slack: "#dw-realtime"`, `slack: "#dw-new"`},
		"github":  {`github: ["@acme/data-warehouse"]`, `github: ["@acme/data-warehouse", "@bob"]`},
		"members": {`slack: "#dw-realtime"`, "slack: \"#dw-realtime\"\n    members: [\"@dana\"]"},
		"lead":    {`slack: "#dw-realtime"`, "slack: \"#dw-realtime\"\n    lead: {github: \"@dana\", slack: U05DWLEAD01}"},
	}
	others := map[string][2]string{
		"slack":   {`slack: "#dw-realtime"`, `slack: "#attacker"`},
		"github":  {`github: ["@acme/data-warehouse"]`, `github: ["@mallory"]`},
		"members": {`slack: "#dw-realtime"`, "slack: \"#dw-realtime\"\n    members: [\"@mallory\"]"},
		"lead":    {`slack: "#dw-realtime"`, "slack: \"#dw-realtime\"\n    lead: {github: \"@mallory\", slack: U05DWLEAD01}"},
	}
	for key, e := range edits {
		t.Run(key, func(t *testing.T) {
			o := others[key]
			r1, f1 := fingerprintAfter(t, "data-warehouse", func(r *scenarioRepo) { r.replace(teamsFile, e[0], e[1]) })
			r2, f2 := fingerprintAfter(t, "data-warehouse", func(r *scenarioRepo) { r.replace(teamsFile, o[0], o[1]) })
			if f1 == f2 {
				t.Errorf("%s: two different values give the same fingerprint %s", key, f1)
			}
			for _, r := range []*Report{r1, r2} {
				if pcs := processOf(r, TeamChanged); len(pcs) != 1 || !strings.Contains(pcs[0].Message, key+" becomes ") {
					t.Errorf("%s: the message does not show the new value: %+v", key, r.Process)
				}
			}
			if pcs := processOf(r2, TeamChanged); len(pcs) == 1 && !strings.Contains(pcs[0].Message, "mallory") && !strings.Contains(pcs[0].Message, "attacker") {
				t.Errorf("%s: the message does not name the new value: %s", key, pcs[0].Message)
			}
		})
	}
}

// An approval of one team edit does not carry over to a push that sets another value
// under the same key.
func TestApprovalDoesNotSurviveTeamValueChange(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace(teamsFile, `slack: "#dw-realtime"`, `slack: "#dw-realtime-2"`)
	repo.commit("dw channel")
	in := repo.input()
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}}
	in.Reviews = []Review{{Login: "dana", State: "APPROVED", SubmittedAt: openedAt.Add(10 * time.Minute)}}
	r1 := Assess(in)
	equal(t, "approved", signOffOf(t, r1, "data-warehouse").Status, Approved)

	repo.replace(teamsFile, `slack: "#dw-realtime-2"`, `slack: "#mallory-null"`)
	repo.commit("another channel")
	in2 := repo.input()
	in2.Base = in.Base
	in2.Members, in2.Reviews = in.Members, in.Reviews
	in2.Prior, in2.PriorHead, in2.HeadSHA = r1.State, "head1", "head2"
	in2.Now = now.Add(time.Hour)
	r2 := Assess(in2)
	if st := signOffOf(t, r2, "data-warehouse").Status; st == Approved {
		t.Errorf("dana's approval of #dw-realtime-2 carried over to #mallory-null")
	}
}

// A data rule's expression, params, tags and actions are in the fingerprint: a
// producer's approval of a benign rule is not one of `expr: "false"`.
func TestFingerprintRuleDefinition(t *testing.T) {
	rule := func(expr, extra string) func(*scenarioRepo) {
		return func(r *scenarioRepo) {
			r.replace("contracts/risk/fraud-score/contract.yaml", "fields:\n", "rules:\n  - name: score-range\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: "+expr+"\n    on_failure: ERROR\n"+extra+"fields:\n")
		}
	}
	_, base := fingerprintAfter(t, "risk", rule("message.score >= 0.0", ""))
	for name, edit := range map[string]func(*scenarioRepo){
		"expr":   rule(`"false"`, ""),
		"params": rule("message.score >= 0.0", "    params: {p: q}\n"),
		"tags":   rule("message.score >= 0.0", "    tags: [PII]\n"),
	} {
		r, f := fingerprintAfter(t, "risk", edit)
		if f == base {
			t.Errorf("%s: a different rule gives the same fingerprint %s", name, f)
		}
		if !slices.ContainsFunc(r.Subjects, func(s *SubjectReport) bool {
			return slices.ContainsFunc(s.DataContract, func(c ContractChange) bool { return c.Digest != "" })
		}) {
			t.Errorf("%s: no rule digest in the report", name)
		}
	}
}

// A pull request that gives a subject to another team needs the sign-off of the
// base's owner, whose channel hears the producer's messages until the merge.
func TestOwnerChangeNeedsBaseOwner(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace("contracts/orders/order-created/contract.yaml", "owner: orders\n", "owner: analytics\n")
	repo.commit("orders is analytics'")
	r := Assess(repo.input())
	pcs := processOf(r, OwnerChanged)
	if len(pcs) != 1 || pcs[0].Team != "orders" || !strings.Contains(pcs[0].Message, "from team orders to team analytics") {
		t.Fatalf("process changes: %+v", r.Process)
	}
	orders := signOffOf(t, r, "orders")
	equal(t, "handles", orders.Handles, []string{"@acme/orders"})
	if r.Ready {
		t.Error("ready to merge without the base owner's sign-off")
	}
}
