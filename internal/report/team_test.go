package report

import (
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestForTeams: each finding of the example tree's report lands in its team's part:
// an unused subject with its owner, a deprecated read with the reader and with the
// subject's owner when another team reads it, a break with the subject's owner.
func TestForTeams(t *testing.T) {
	tree, err := contract.Load(contract.MemSource(testutil.ExampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	r := Build(tree, nil, []history.Break{{Subject: "dws.gmv-1min-value", Version: 2}}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	r.Unused = append(r.Unused, Unused{Subject: "orders.order-cancelled-value", Owner: "orders"})
	r.DeprecatedReads = append(r.DeprecatedReads,
		DeprecatedRead{Consumer: Consumer{Subject: "dw.order-detail-value", Name: "clickhouse-order-detail", Owner: "analytics"}, Field: "user_id"},
		DeprecatedRead{Consumer: Consumer{Subject: "dw.order-detail-value", Name: "dws-gmv-1min", Owner: "data-warehouse"}, Field: "user_id"})
	r.Lineage.BlackBoxes = append(r.Lineage.BlackBoxes, Consumer{Subject: "orders.order-created-value", Name: "x-job", Owner: "risk"})
	parts := map[string]TeamPart{}
	for _, p := range ForTeams(r, tree) {
		parts[p.Team] = p
	}
	if len(parts) != len(tree.Teams) {
		t.Fatalf("%d parts for %d teams", len(parts), len(tree.Teams))
	}
	if p := parts["orders"]; len(p.Unused) != 1 || p.Unused[0].Subject != "orders.order-cancelled-value" {
		t.Errorf("orders: %+v", p)
	}
	if p := parts["analytics"]; len(p.DeprecatedReads) != 1 || len(p.DeprecatedOwned) != 0 {
		t.Errorf("analytics reads a deprecated field: %+v", p)
	}
	// dw.order-detail-value is data-warehouse's: its own job's read is listed once,
	// analytics' read is what holds up the removal.
	if p := parts["data-warehouse"]; len(p.DeprecatedReads) != 1 || len(p.DeprecatedOwned) != 1 ||
		p.DeprecatedOwned[0].Owner != "analytics" || len(p.Broken) != 1 {
		t.Errorf("data-warehouse: %+v", p)
	}
	if p := parts["risk"]; len(p.BlackBoxes) != 1 || p.Empty() {
		t.Errorf("risk: %+v", p)
	}
	if p := parts["accounts"]; !p.Empty() {
		t.Errorf("accounts has nothing to hear: %+v", p)
	}
}

// TestForTeamsDeparting: a topic whose sampled data departs from the contract lands in
// the part of its subject's owner, and only there.
func TestForTeamsDeparting(t *testing.T) {
	tree, err := contract.Load(contract.MemSource(testutil.ExampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	r := Build(tree, nil, nil, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	r.SetSampled(&Sampled{Source: "s.json", Topics: 3, Departing: []Departing{{Topic: "ods_order_snapshot", Subject: "orders.order-snapshot-value", Messages: 4, Conforming: 1}}})
	for _, p := range ForTeams(r, tree) {
		if want := map[bool]int{true: 1, false: 0}[p.Team == "orders"]; len(p.Departing) != want || (want == 1 && p.Empty()) {
			t.Errorf("team %s: %+v", p.Team, p.Departing)
		}
	}
}
