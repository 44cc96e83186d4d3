package bot

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/clock"
)

// TestCheckoutIsTheBot: the App's evaluation and an evaluation of a checkout
// (contractbot check in GitHub Actions) of the same pull request at the same moment
// write the same Markdown, each in its own comment (only its own login's comments
// are its memory), and decide the same: the checkout's verdict is the commit status.
func TestCheckoutIsTheBot(t *testing.T) {
	opened := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	g := newGate(t, opened, amountToString)
	g.advance(time.Hour)
	g.fake.AddReviewOnCommit("acme", "contracts", g.n, "dana", "APPROVED", g.head.String(), g.clock())
	g.evaluate(g.bot())

	g.fake.AddToken("ci-token", "ci-user")
	ci := &Bot{Self: "ci-user", StateKey: []byte("the workflow's key"), GH: githubapi.New(g.fake.ClientWithToken("ci-token")),
		Clock: clock.Func(g.clock), Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}
	pr, err := githubapi.New(g.fake.Client()).GetPullRequest(context.Background(), "acme", "contracts", g.n)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ci.EvaluateCheckout(context.Background(), pr, g.repo.Git, CheckoutOptions{Comment: true}, ci.Log)
	if err != nil || out.Written != nil {
		t.Fatalf("evaluate the checkout: %v; writes: %v", err, out.Written)
	}
	app := g.botComment().GetBody()
	if !strings.HasPrefix(app, Marker+"\n"+out.Markdown+"\n\n<!-- contractbot:state ") {
		t.Errorf("the checkout's Markdown is not the App's comment:\ncheckout:\n%s\napp:\n%s", out.Markdown, app)
	}
	if !strings.Contains(out.Markdown, "approved by @dana") || out.Report.Ready {
		t.Errorf("want data-warehouse approved by dana and platform pending:\n%s", out.Markdown)
	}
	var mine int
	for _, c := range g.fake.Comments("acme", "contracts", g.n) {
		if c.GetUser().GetLogin() == "ci-user" && IsBotComment(c.GetBody()) {
			mine++
			if _, err := ParseState([]byte("the workflow's key"), "acme/contracts#1", c.GetBody()); err != nil {
				t.Errorf("the checkout's comment does not verify with its key: %v", err)
			}
		}
	}
	if mine != 1 {
		t.Errorf("the checkout wrote %d comments, want its own one", mine)
	}
	st := g.fake.Statuses("acme", "contracts", g.head.String())
	if len(st) == 0 || st[0].GetContext() != GateName("master") || st[0].GetState() != "pending" {
		t.Errorf("the checkout's verdict: statuses %v, want contractbot pending", st)
	}
	if runs := g.fake.CheckRuns("acme", "contracts", g.head.String()); len(runs) != 1 {
		t.Errorf("%d check runs on the head, want the App's one (a checkout writes a status)", len(runs))
	}
}
