package bot

import (
	"fmt"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestIndirectOwnerToldOnce: the order amount becomes a string; analytics reads it
// only through lineage (clickhouse-order-detail one hop down, gmv-dashboard two), so
// it is not asked to sign off but hears one FYI in #bi-dashboards, though two
// replicas evaluate the pull request at once, again later, and after a push that
// changes nothing for it. A push that changes what reaches it (currency renamed
// too, which clickhouse-order-detail reads) is told again, once.
func TestIndirectOwnerToldOnce(t *testing.T) {
	g := newGate(t, opened, amountToString)
	tick := g.replicas()
	const fyi = ":information_source: FYI: acme/contracts#1 breaks fields that team analytics reads through lineage"
	tick()
	g.advance(time.Hour)
	tick()
	if got := g.slack.count("#bi-dashboards", fyi); got != 1 {
		t.Fatalf("#bi-dashboards: %d FYIs after two ticks of two replicas, want 1\n%s", got, g.slack.all())
	}
	if _, teams := g.fake.RequestedReviewers("acme", "contracts", g.n); len(teams) != 2 {
		t.Errorf("review requests %v: analytics must not be asked", teams)
	}
	st, err := ParseState(testKey, "acme/contracts#1", g.botComment().GetBody())
	if err != nil || st.Told["analytics"] == "" {
		t.Fatalf("the signed state does not remember the FYI: %+v, %v", st.Told, err)
	}
	if _, gated := st.Teams["analytics"]; gated {
		t.Error("analytics has a sign-off clock")
	}

	g.push(func(r *testutil.Repo) { r.Write("README-change.md", "not a contract file\n") })
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if got := g.slack.count("#bi-dashboards", fyi); got != 1 {
		t.Errorf("a push that changes nothing for analytics told it again: %d FYIs", got)
	}

	g.push(renameCurrency)
	g.advance(time.Minute)
	tick()
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if got := g.slack.count("#bi-dashboards", fyi); got != 2 {
		t.Errorf("#bi-dashboards: %d FYIs after a push that changes what reaches analytics, want 2\n%s", got, g.slack.all())
	}
	if got := g.slack.count("#bi-dashboards", ":hourglass: Reminder"); got != 0 {
		t.Errorf("analytics got %d reminders", got)
	}
}

// TestDeprecationToldToItsReaders: deprecating coupon_code asks nobody to sign off,
// but the teams of its two readers (dwd-order-detail names it, ods-order-archive reads
// "*") each hear one FYI, though two replicas evaluate the pull request twice.
func TestDeprecationToldToItsReaders(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) {
		r.Edit("contracts/orders/order-created/contract.yaml", "fields:\n",
			"fields:\n  coupon_code:\n    deprecated: {since: \"2026-12-01\", remove_after: \"2027-03-01\"}\n")
	})
	tick := g.replicas()
	tick()
	g.advance(time.Hour)
	tick()
	const fyi = ":information_source: FYI: acme/contracts#1 deprecates fields that team %s reads"
	for ch, team := range map[string]string{"#dw-realtime": "data-warehouse", "#data-platform": "platform"} {
		if got := g.slack.count(ch, fmt.Sprintf(fyi, team)); got != 1 {
			t.Errorf("%s: %d FYIs after two ticks of two replicas, want 1\n%s", ch, got, g.slack.all())
		}
	}
	if _, teams := g.fake.RequestedReviewers("acme", "contracts", g.n); len(teams) != 0 {
		t.Errorf("review requests %v for a deprecation", teams)
	}
}
