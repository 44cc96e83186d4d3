package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"
)

// fraudRule adds a data rule to risk.fraud-score that rejects writes failing expr:
// its producers (risk's fraud-detector) sign off.
func fraudRule(expr string) func(r *testutil.Repo) {
	return func(r *testutil.Repo) {
		r.Edit("contracts/risk/fraud-score/contract.yaml", "fields:\n", "rules:\n  - name: score-range\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: \""+expr+"\"\n    on_failure: ERROR\nfields:\n")
	}
}

// The producer's approval of a benign data rule is not an approval of the same rule
// with `expr: "false"` pushed after it.
func TestApprovalBindsToRuleExpr(t *testing.T) {
	g := newGate(t, opened, fraudRule("message.score >= 0.0"))
	g.fake.AddTeamMember("acme", "risk", "rita")
	b := g.bot()
	g.evaluate(b)
	g.advance(10 * time.Minute)
	g.fake.AddReview("acme", "contracts", g.n, "rita", "APPROVED", g.now)
	g.evaluate(b)
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("after rita's approval: %s\n%s", c, readable(g.botComment().GetBody()))
	}
	g.advance(10 * time.Minute)
	g.push(func(r *testutil.Repo) {
		r.Edit("contracts/risk/fraud-score/contract.yaml", `expr: "message.score >= 0.0"`, `expr: "false"`)
	})
	g.evaluate(b)
	if g.conclusion() == ConclusionSuccess {
		t.Errorf("rita's approval of a benign rule carried over to expr false\n%s", readable(g.botComment().GetBody()))
	}
}

// An override binds to the data rules it saw: a push that changes a rule's
// expression lapses it.
func TestOverrideBindsToRuleExpr(t *testing.T) {
	rule := func(expr string) func(r *testutil.Repo) {
		return func(r *testutil.Repo) {
			r.Edit("contracts/orders/order-created/contract.yaml", "fields:\n", "rules:\n  - name: amount-positive\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: \""+expr+"\"\n    on_failure: ERROR\nfields:\n")
		}
	}
	g := newGate(t, opened, func(r *testutil.Repo) { amountToString(r); rule("true")(r) })
	b := g.bot()
	g.evaluate(b)
	g.advance(time.Minute)
	g.say(b, "boss", "/contractbot override hotfix for INC-42")
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("after the admin's override: %s\n%s", c, readable(g.botComment().GetBody()))
	}
	g.advance(time.Minute)
	g.push(func(r *testutil.Repo) {
		r.Edit("contracts/orders/order-created/contract.yaml", `expr: "true"`, `expr: "false"`)
	})
	g.evaluate(g.bot())
	if body := readable(g.botComment().GetBody()); g.conclusion() == ConclusionSuccess || !strings.Contains(body, "no longer applies") {
		t.Errorf("the override survived the rule's expr becoming false: %s\n%s", g.conclusion(), body)
	}
}

// A pull request that gives orders.order-created to analytics does not choose where
// the producer is told: the escalation goes to the base owner's #orders, not to
// analytics' #bi-dashboards, and orders must sign off the change of owner.
func TestOwnerChangeByPRTellsBaseOwner(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) {
		amountToString(r)
		r.Edit("contracts/orders/order-created/contract.yaml", "owner: orders\n", "owner: analytics\n")
	})
	g.evaluate(g.bot())
	body := readable(g.botComment().GetBody())
	if !strings.Contains(body, "from team orders to team analytics") {
		t.Errorf("the comment does not ask orders about the change of owner:\n%s", body)
	}
	if g.conclusion() == ConclusionSuccess {
		t.Errorf("green without the base owner's sign-off")
	}
	bi := g.slack.count("#bi-dashboards", "")
	g.advance(25 * time.Hour)
	g.evaluate(g.bot())
	if n := g.slack.count("#orders", ""); n == 0 {
		t.Errorf("#orders heard nothing:\n%s", g.slack.all())
	}
	if g.slack.count("#bi-dashboards", "") != bi {
		t.Errorf("#bi-dashboards got the producer's escalations:\n%s", g.slack.all())
	}
}
