package bot

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestPushJudgesAgainWhatItTouches: two pull requests into master: #1 changes the
// order amount (orders/order-created, whose lineage reaches dw/order-detail and
// dws/gmv-1min), #2 a file of logistics/shipment-dispatched. A push to master that
// changes another file of the logistics folder judges #2 again, not #1; one that
// changes dws/gmv-1min (downstream of #1's change) judges #1 again, not #2; one that
// changes what every verdict reads (teams.yaml, then freezes.yaml) judges both.
func TestPushJudgesAgainWhatItTouches(t *testing.T) {
	g := newGate(t, opened, amountToString)
	ship := g.onBase("shipments", g.base, func(r *testutil.Repo) {
		r.Edit("contracts/logistics/shipment-dispatched/contract.yaml", "subject:", "# the second pull request's note\nsubject:")
	})
	second := g.fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: ship.String(), BaseSHA: g.base.String(), BaseRef: "master"})
	b := g.bot()
	judged := func(n int) int { return g.fake.Count("GET", fmt.Sprintf("/repos/acme/contracts/pulls/%d", n)) }
	tip := g.base
	for _, push := range []struct {
		what, file, before string
		first, second      bool
	}{
		{"another file of the second's folder", "contracts/logistics/shipment-dispatched/consumers/doris-shipments.yaml", "name:", false, true},
		{"a folder downstream of the first's change", "contracts/dws/gmv-1min/contract.yaml", "subject:", true, false},
		{"teams.yaml", "contracts/teams.yaml", "teams:", true, true},
		{"freezes.yaml", "calendar/freezes.yaml", "freezes:", true, true},
	} {
		g.advance(time.Minute)
		before := tip
		tip = g.onBase("master", before, func(r *testutil.Repo) { r.Edit(push.file, push.before, "# a note\n"+push.before) })
		first0, second0 := judged(g.n), judged(second)
		g.deliver(b, "push", g.fake.PushEvent("acme", "contracts", "master", before.String(), tip.String(), "wendy"))
		if got := judged(g.n) > first0; got != push.first {
			t.Errorf("a push changing %s: #%d judged again %t, want %t", push.what, g.n, got, push.first)
		}
		if got := judged(second) > second0; got != push.second {
			t.Errorf("a push changing %s: #%d judged again %t, want %t", push.what, second, got, push.second)
		}
	}
	// A push that names no earlier commit judges both.
	first0, second0 := judged(g.n), judged(second)
	g.deliver(b, "push", g.fake.PushEvent("acme", "contracts", "master", plumbing.ZeroHash.String(), tip.String(), "wendy"))
	if judged(g.n) == first0 || judged(second) == second0 {
		t.Errorf("a push without its earlier commit: #%d judged %t, #%d judged %t; want both", g.n, judged(g.n) > first0, second, judged(second) > second0)
	}
}
