package verdict

import (
	"testing"
	"time"
)

// TestClockStartsWhenTheRequirementAppears: a pull request evaluated as SAFE at its
// opening and made BREAKING 30 hours later asks for sign-offs with a fresh window, not
// one that ran out six hours ago.
func TestClockStartsWhenTheRequirementAppears(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.commit("remove amount")
	in := repo.input()
	in.Prior = map[string]TeamState{} // evaluated before, nothing was required then
	in.Now = openedAt.Add(30 * time.Hour)
	r := Assess(in)
	for _, so := range r.SignOffs {
		equal(t, so.Team+" requested", so.RequestedAt, in.Now)
		equal(t, so.Team+" deadline", so.Deadline, in.Now.Add(24*time.Hour))
		equal(t, so.Team+" status", so.Status, Pending)
	}
	// At the first evaluation the requirement dates from the opening.
	in.Prior = nil
	r = Assess(in)
	equal(t, "first evaluation", statuses(r), map[string]Status{"data-warehouse": Overdue, "platform": Overdue})
}

// TestRebuiltMemory: when the bot's state cannot be verified, a team's clock comes
// from GitHub's last review request, only approvals of the head commit count, and a
// dropped approval says why.
func TestRebuiltMemory(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.commit("remove amount")
	in := repo.input()
	in.Memory, in.HeadSHA = Rebuilt, "head"
	in.Prior = map[string]TeamState{"platform": {Fingerprint: "forged", RequestedAt: openedAt.Add(-48 * time.Hour)}}
	in.Requested = map[string]time.Time{"@acme/data-platform": openedAt.Add(10 * time.Minute)}
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}, "@acme/data-platform": {"pat"}}
	in.Reviews = []Review{
		{Login: "dana", State: "APPROVED", SubmittedAt: openedAt.Add(20 * time.Minute), CommitID: "older"},
		{Login: "pat", State: "APPROVED", SubmittedAt: openedAt.Add(30 * time.Minute), CommitID: "head"},
	}
	r := Assess(in)
	equal(t, "statuses", statuses(r), map[string]Status{"data-warehouse": Pending, "platform": Approved})
	dw, pl := signOffOf(t, r, "data-warehouse"), signOffOf(t, r, "platform")
	equal(t, "platform requested from the timeline", pl.RequestedAt, openedAt.Add(10*time.Minute))
	equal(t, "data-warehouse requested now (no request on the timeline)", dw.RequestedAt, in.Now)
	if dw.Dropped == "" {
		t.Error("data-warehouse's approval of an older commit was not reported as dropped")
	}
	equal(t, "platform approved at", pl.ApprovedAt, openedAt.Add(30*time.Minute))
	// What a person reads: the note under the verdict, the dropped approval.
	in.Notices = []string{"contractbot could not verify its memory of this pull request <edited>, so it rebuilt it from GitHub."}
	writeGoldens(t, "k-rebuilt", Assess(in))
}

// TestDroppedOnlyForTeamsThatApproved: a changed requirement says "earlier approval
// dropped" only to a team that had approved.
func TestDroppedOnlyForTeamsThatApproved(t *testing.T) {
	repo := newScenarioRepo(t)
	removeAmount(repo)
	repo.commit("remove amount")
	in := repo.input()
	in.Prior = map[string]TeamState{"data-warehouse": {Fingerprint: "other"}, "platform": {Fingerprint: "other"}}
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}}
	in.Reviews = []Review{{Login: "dana", State: "APPROVED", SubmittedAt: openedAt}}
	r := Assess(in)
	if signOffOf(t, r, "data-warehouse").Dropped == "" {
		t.Error("data-warehouse approved before the change: its approval should be reported dropped")
	}
	equal(t, "platform never approved", signOffOf(t, r, "platform").Dropped, "")
}

// BenchmarkEvaluateThenSettle: what the bot pays per event: one evaluation, then the
// sign-offs settled again with the team members it read (it used to evaluate twice).
// go test ./internal/verdict -run NONE -bench EvaluateThenSettle -benchtime 20x
func BenchmarkEvaluateThenSettle(b *testing.B) {
	repo := newScenarioRepo(b)
	removeAmount(repo)
	repo.commit("remove amount")
	in := repo.input()
	b.Run("evaluate", func(b *testing.B) {
		for b.Loop() {
			Assess(in)
		}
	})
	r := Assess(in)
	in.Members = map[string][]string{"@acme/data-warehouse": {"dana"}}
	b.Run("settle", func(b *testing.B) {
		for b.Loop() {
			Settle(in, r)
		}
	})
}
