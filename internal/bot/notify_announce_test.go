package bot

import (
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/verdict"
)

// TestAnnouncementKeyFollowsTheRequirements: the all-signed-off note is keyed by the
// requirements it announces, so a new set of requirements, met again, is announced
// again (the key was the first 12 characters of "team=fingerprint,...": the same
// for any fingerprints of a team whose name is that long).
func TestAnnouncementKeyFollowsTheRequirements(t *testing.T) {
	r := func(fp string) *verdict.Report {
		return &verdict.Report{SignOffs: []*verdict.SignOff{{Team: "data-warehouse", Fingerprint: fp}}}
	}
	if announcementKey(r("aaaa")) == announcementKey(r("bbbb")) {
		t.Errorf("two sets of requirements share the key %s", announcementKey(r("aaaa")))
	}
	if a, b := announcementKey(r("aaaa")), announcementKey(r("aaaa")); a != b {
		t.Error("the key is not deterministic")
	}
}

// TestProducerToldAgainWhenNewRequirementsAreMet: both teams approve and the producer
// hears; a push changes what both must sign off (their approvals no longer count);
// both approve again and the producer hears again, once.
func TestProducerToldAgainWhenNewRequirementsAreMet(t *testing.T) {
	g := newGate(t, opened, amountToString)
	approveAll := func() {
		g.approve("dana", "pat")
		g.evaluate(g.bot())
		g.evaluate(g.bot())
	}
	const note = ":white_check_mark: All sign-offs are in"
	g.evaluate(g.bot())
	approveAll()
	if got := g.slack.count("#orders", note); got != 1 {
		t.Fatalf("#orders heard %d all-signed-off notes, want 1\n%s", got, g.slack.all())
	}
	g.push(renameCurrency)
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c == ConclusionSuccess {
		t.Fatalf("the old approvals passed the new requirements")
	}
	approveAll()
	if got := g.slack.count("#orders", note); got != 2 {
		t.Errorf("#orders heard %d all-signed-off notes, want 2\n%s", got, g.slack.all())
	}
}
