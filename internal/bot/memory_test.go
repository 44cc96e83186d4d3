package bot

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/testutil"
)

// The bot believes nothing it cannot prove it wrote itself: a deleted comment, an
// edited one, and an earlier signed version restored from GitHub's edit history are
// all rebuilt from GitHub (docs/bot.md, Trust).

// currencyRename is a second breaking change: the currency field is renamed.
func currencyRename(r *testutil.Repo) {
	r.Edit("contracts/orders/order-created/order_created.avsc", "\"name\": \"currency\"", "\"name\": \"currency_code\"")
}

// currencyBack undoes currencyRename: the change is again what it was at first.
func currencyBack(r *testutil.Repo) {
	r.Edit("contracts/orders/order-created/order_created.avsc", "\"name\": \"currency_code\"", "\"name\": \"currency\"")
}

// approveHead has both required teams approve the current head commit.
func (g *gate) approveHead() {
	g.fake.AddReviewOnCommit("acme", "contracts", g.n, "dana", "APPROVED", g.head.String(), g.now)
	g.fake.AddReviewOnCommit("acme", "contracts", g.n, "pat", "APPROVED", g.head.String(), g.now)
}

// TestDeletedCommentDoesNotReviveApprovals: both teams approve, a push changes what
// they signed off (their approvals drop), and a writer deletes the bot's comment. The
// next evaluation cannot tell this from a first one, so it believes nothing: the
// approvals of the earlier commit still do not count, and the comment says why.
func TestDeletedCommentDoesNotReviveApprovals(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.evaluate(g.bot())
	g.advance(time.Hour)
	g.approveHead()
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("both teams approved: check %s, want %s", c, ConclusionSuccess)
	}
	g.advance(time.Hour)
	g.push(currencyRename)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Fatalf("after a push that changes what the teams approved: check %s, want %s", c, ConclusionActionRequired)
	}
	due := dueLines(g.botComment().GetBody())
	w := g.fake.ClientWithToken("writer-token")
	if _, err := w.Issues.DeleteComment(context.Background(), "acme", "contracts", g.botComment().GetID()); err != nil {
		t.Fatal(err)
	}
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Errorf("after the writer deleted the bot's comment: check %s, want %s", c, ConclusionActionRequired)
	}
	body := g.botComment().GetBody()
	if !strings.Contains(body, "its comment was deleted") || strings.Contains(body, "approved by @dana") {
		t.Errorf("the comment after the deletion:\n%s", readable(body))
	}
	// The clocks still run from the bot's review requests (made at the push), not
	// from the deletion.
	if got := dueLines(body); len(due) != 2 || !slices.Equal(got, due) {
		t.Errorf("deadlines %q after the deletion, %q before", got, due)
	}
	golden(t, "gate-deleted.md", readable(body))
}

// dueLines are the sign-off lines of a comment that name a deadline.
func dueLines(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if _, due, ok := strings.Cut(l, ": pending, due "); ok {
			d, _, _ := strings.Cut(due, " (")
			out = append(out, d)
		}
	}
	return out
}

// TestFirstEvaluationCountsApprovalsOfTheHead: with no comment of its own the bot
// counts only approvals of the head commit, on a first evaluation too.
func TestFirstEvaluationCountsApprovalsOfTheHead(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.fake.AddReviewOnCommit("acme", "contracts", g.n, "dana", "APPROVED", g.base.String(), g.now)
	g.fake.AddReviewOnCommit("acme", "contracts", g.n, "pat", "APPROVED", g.head.String(), g.now)
	g.evaluate(g.bot())
	body := g.botComment().GetBody()
	if strings.Contains(body, "approved by @dana") || !strings.Contains(body, "approved by @pat") {
		t.Errorf("first evaluation, dana approved the base and pat the head:\n%s", readable(body))
	}
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Errorf("check %s, want %s", c, ConclusionActionRequired)
	}
}

// TestRestoredEarlierVersionDoesNotReviveApprovals: the change goes A -> B -> A; the
// approvals of A dropped at B and do not count at the second A. A writer restores
// the bot's comment of the first A (a validly signed version, from the edit
// history): the bot sees GitHub's updated_at far past the time signed in it, and
// believes nothing in it.
func TestRestoredEarlierVersionDoesNotReviveApprovals(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.evaluate(g.bot())
	first := g.botComment().GetBody()
	g.advance(time.Hour)
	g.approveHead()
	g.advance(time.Minute)
	g.evaluate(g.bot())
	g.advance(time.Hour)
	g.push(currencyRename)
	g.evaluate(g.bot())
	g.advance(time.Hour)
	g.push(currencyBack)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Fatalf("A -> B -> A: check %s, want %s", c, ConclusionActionRequired)
	}
	writer := githubapi.New(g.fake.ClientWithToken("writer-token"))
	if err := writer.EditComment(context.Background(), "acme", "contracts", g.botComment().GetID(), first); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseState(testKey, commentRef(PullRequest{Owner: "acme", Repo: "contracts", Number: g.n}), first); err != nil {
		t.Fatalf("the restored version should carry a valid signature (that is the attack): %v", err)
	}
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Errorf("after the writer restored the first version of the bot's comment: check %s, want %s", c, ConclusionActionRequired)
	}
	if body := g.botComment().GetBody(); !strings.Contains(body, "an earlier version of it was restored") {
		t.Errorf("the comment does not say its memory was rebuilt:\n%s", readable(body))
	}
}

// TestRestoredWithinToleranceIsCaughtBySeal: a writer restores the bot's previous
// comment seconds after the bot replaced it, well within EditTolerance, so the times
// alone cannot tell it from the bot's write. The check run the bot sealed with its
// last write (external_id, which only the App can change) can: nothing is believed.
func TestRestoredWithinToleranceIsCaughtBySeal(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.evaluate(g.bot())
	first := g.botComment().GetBody()
	g.advance(20 * time.Second)
	g.approveHead()
	g.evaluate(g.bot())
	runs := g.fake.CheckRuns("acme", "contracts", g.head.String())
	sealed, ok := parseSeal(runs[len(runs)-1].GetExternalID())
	if !ok || !sealed.Equal(g.now) {
		t.Fatalf("the check run's external_id %q is not a seal of the last write at %s", runs[len(runs)-1].GetExternalID(), g.now)
	}
	g.advance(10 * time.Second)
	writer := githubapi.New(g.fake.ClientWithToken("writer-token"))
	if err := writer.EditComment(context.Background(), "acme", "contracts", g.botComment().GetID(), first); err != nil {
		t.Fatal(err)
	}
	m := readMemory(mustComments(t, g), botLogin, testKey, PullRequest{Owner: "acme", Repo: "contracts", Number: g.n}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if m.State == nil {
		t.Fatal("the times alone already refuse the restored version: the test does not reach the seal")
	}
	g.advance(10 * time.Second)
	g.evaluate(g.bot())
	if body := g.botComment().GetBody(); !strings.Contains(body, "an earlier version of it was restored") {
		t.Errorf("the comment does not say its memory was rebuilt:\n%s", readable(body))
	}
}

// TestForeignCheckRunIsLeftAlone: a GitHub Actions job (or another App) named
// contractbot puts its own run on the head. The bot neither updates it (GitHub would
// refuse) nor reads a seal from it; it writes its own run.
func TestForeignCheckRunIsLeftAlone(t *testing.T) {
	g := newGate(t, opened, amountToString)
	foreign := g.fake.AddCheckRunAs("acme", "contracts", g.head.String(), GateName("master"), "github-actions", "success")
	g.evaluate(g.bot())
	var own int
	for _, r := range g.fake.CheckRuns("acme", "contracts", g.head.String()) {
		switch {
		case r.GetID() == foreign && (r.GetConclusion() != "success" || r.GetExternalID() != ""):
			t.Errorf("the foreign run was changed: %s %q", r.GetConclusion(), r.GetExternalID())
		case r.GetID() != foreign:
			own++
			if r.GetApp().GetSlug()+"[bot]" != botLogin || r.GetConclusion() != ConclusionActionRequired {
				t.Errorf("the bot's run: app %q, conclusion %s", r.GetApp().GetSlug(), r.GetConclusion())
			}
		}
	}
	if own != 1 {
		t.Errorf("the bot wrote %d runs of its own, want 1", own)
	}
}

// TestRestoredEarlierVersionDoesNotRestartAClock: a version written before a team
// was required, restored once its sign-off is overdue, does not make it pending.
func TestRestoredEarlierVersionDoesNotRestartAClock(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) { r.Write("README-change.md", "x\n") })
	g.evaluate(g.bot())
	safe := g.botComment().GetBody()
	g.advance(time.Hour)
	g.push(amountToString)
	g.evaluate(g.bot())
	g.advance(26 * time.Hour)
	g.evaluate(g.bot())
	if body := g.botComment().GetBody(); !strings.Contains(body, "overdue") {
		t.Fatalf("26 h after the teams were asked, no sign-off is overdue:\n%s", readable(body))
	}
	writer := githubapi.New(g.fake.ClientWithToken("writer-token"))
	if err := writer.EditComment(context.Background(), "acme", "contracts", g.botComment().GetID(), safe); err != nil {
		t.Fatal(err)
	}
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if body := g.botComment().GetBody(); !strings.Contains(body, "overdue") {
		t.Errorf("the sign-off is no longer overdue after the restored version:\n%s", readable(body))
	}
}

// TestOwnWriteIsBelieved: what the bot wrote it reads back as verified, with the
// fake's clock and with the real one (GitHub's updated_at is within EditTolerance of
// the time the bot signed), so its own writes never look like someone else's edit.
func TestOwnWriteIsBelieved(t *testing.T) {
	t.Run("fake clock", func(t *testing.T) {
		g := newGate(t, opened, amountToString)
		g.evaluate(g.bot())
		g.advance(3 * time.Hour)
		g.evaluate(g.bot())
		assertBelieved(t, g.fake, g.n)
	})
	t.Run("real clock", func(t *testing.T) {
		g := newGate(t, opened, amountToString)
		fake := githubfake.New()
		t.Cleanup(fake.Close)
		fake.AddRepo("acme", "contracts")
		fake.SetCloneURL("acme", "contracts", g.repo.Dir)
		n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: g.head.String(), BaseSHA: g.base.String(), BaseRef: "master"})
		b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(fake.Client()),
			Cache: &GitCache{Dir: t.TempDir()}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		for range 2 {
			if err := b.Evaluate(context.Background(), "acme", "contracts", n, b.Log); err != nil {
				t.Fatal(err)
			}
		}
		assertBelieved(t, fake, n)
	})
}

// assertBelieved reads the bot's comment on pull request n as the bot does and
// fails unless its state is believed.
func assertBelieved(t *testing.T, fake *githubfake.Server, n int) {
	t.Helper()
	all, err := githubapi.New(fake.Client()).ListComments(context.Background(), "acme", "contracts", n)
	if err != nil {
		t.Fatal(err)
	}
	m := readMemory(all, botLogin, testKey, PullRequest{Owner: "acme", Repo: "contracts", Number: n}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if m.State == nil || m.Rebuilt {
		t.Errorf("the bot's own comment is not believed: %+v", m)
	}
	for _, c := range all {
		if strings.Contains(c.Body, "could not verify") {
			t.Errorf("the bot's comment says its memory was rebuilt after its own writes:\n%s", readable(c.Body))
		}
	}
}

// TestEditToleranceBoundary: a comment updated up to EditTolerance after the time
// signed in it is the bot's own write; a second later it is someone else's edit; a
// state that does not say when it was written is not believed.
func TestEditToleranceBoundary(t *testing.T) {
	pr := PullRequest{Owner: "acme", Repo: "contracts", Number: 7}
	written := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name     string
		written  time.Time
		updated  time.Time
		believed bool
	}{
		{"written and updated at once", written, written, true},
		{"GitHub's clock behind the bot's", written, written.Add(-time.Minute), true},
		{"updated at the tolerance", written, written.Add(EditTolerance), true},
		{"updated past the tolerance", written, written.Add(EditTolerance + time.Second), false},
		{"no time signed", time.Time{}, written, false},
		{"no updated_at", written, time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := RenderComment(testKey, commentRef(pr), "**BREAKING**", State{HeadSHA: "abc", WrittenAt: tc.written})
			if err != nil {
				t.Fatal(err)
			}
			m := readMemory([]Comment{{ID: 1, Body: body, Login: botLogin, UpdatedAt: tc.updated}}, botLogin, testKey, pr, log)
			if got := m.State != nil && !m.Rebuilt; got != tc.believed {
				t.Errorf("believed %v, want %v (%+v)", got, tc.believed, m)
			}
		})
	}
}

// mustComments reads the pull request's comments as the bot would.
func mustComments(t *testing.T, g *gate) []Comment {
	t.Helper()
	all, err := githubapi.New(g.fake.Client()).ListComments(context.Background(), "acme", "contracts", g.n)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestCheckRunReadOncePerEvaluation: the seal check and converge look up the same
// check run of the head; one evaluation lists the head's check runs once.
func TestCheckRunReadOncePerEvaluation(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.evaluate(g.bot())
	const route = "/repos/{owner}/{repo}/commits/{ref}/check-runs"
	before := g.fake.Count("GET", route)
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if n := g.fake.Count("GET", route) - before; n != 1 {
		t.Errorf("an evaluation with a verified memory listed the head's check runs %d times, want once", n)
	}
}
