package verdict

import (
	"testing"
)

// Indirect consumers' teams are told (FYI), not gated; a consumer with
// `signoff: required` is gated like a direct one (issue 18).
func TestIndirectOwnersToldOrGated(t *testing.T) {
	r := scenarioNamed(t, "c-remove-field-two-hops").run(t)
	if len(r.FYI) != 1 || r.FYI[0].Team != "analytics" || len(r.FYI[0].Consumers) != 2 {
		t.Fatalf("FYI = %+v, want analytics for clickhouse-order-detail and gmv-dashboard", r.FYI)
	}
	if _, ok := statuses(r)["analytics"]; ok {
		t.Errorf("analytics signs off though its consumers are indirect: %v", statuses(r))
	}

	repo := newScenarioRepo(t)
	const ch = "contracts/dw/order-detail/consumers/clickhouse-order-detail.yaml"
	repo.write(ch, repo.read(ch)+"signoff: required\n")
	repo.commit("clickhouse-order-detail asks to sign off")
	removeAmount(repo)
	repo.commit("remove amount")
	r = Assess(repo.input())
	so := signOffOf(t, r, "analytics")
	if len(so.For) != 1 || so.For[0].Consumer != "clickhouse-order-detail" {
		t.Errorf("analytics signs for %+v, want clickhouse-order-detail", so.For)
	}
	for _, f := range r.FYI {
		if f.Team == "analytics" {
			t.Errorf("analytics is both gated and told: %+v", r.FYI)
		}
	}
}
