package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
)

// tokenBot is the bot acting as the machine user ci-bot (token mode).
func (g *gate) tokenBot() *Bot {
	g.t.Helper()
	g.fake.AddToken("pat-token", "ci-bot")
	b := g.bot()
	b.GH, b.Self = nil, "ci-bot"
	b.Clients = ClientsOf(&githubapi.TokenClients{API: githubapi.New(g.fake.ClientWithToken("pat-token")), Token: "pat-token"})
	return b
}

// gateStatus is the newest status called GateName("master") on the head.
func (g *gate) gateStatus() *github.RepoStatus {
	for _, s := range g.fake.Statuses("acme", "contracts", g.head.String()) { // newest first
		if s.GetContext() == GateName("master") {
			return s
		}
	}
	return nil
}

// TestTokenModeForeignSeal: in token mode the bot creates no check run, so a check
// run named like its gate (another App's, with a seal of its own in external_id) is
// never its seal: the bot's verified memory is believed as before, not thrown away
// as "restored", at every evaluation.
func TestTokenModeForeignSeal(t *testing.T) {
	g := newGate(t, opened, amountToString)
	b := g.tokenBot()
	g.evaluate(b)
	g.fake.AddReview("acme", "contracts", g.n, "dana", "APPROVED", g.now)
	run := g.fake.AddCheckRunAs("acme", "contracts", g.head.String(), GateName("master"), "other-app", "success")
	g.fake.SetExternalID("acme", "contracts", run, sealOf(opened.Add(100*365*24*time.Hour)))
	for range 2 {
		g.advance(time.Minute)
		g.evaluate(b)
		if body := g.botComment2("ci-bot"); strings.Contains(body, "could not verify its memory") || !strings.Contains(body, "approved by @dana") {
			t.Fatalf("a foreign check run was taken for the bot's seal:\n%s", readable(body))
		}
	}
}

// botComment2 is the body of the sticky comment written by login.
func (g *gate) botComment2(login string) string {
	for _, c := range g.fake.Comments("acme", "contracts", g.n) {
		if c.GetUser().GetLogin() == login && IsBotComment(c.GetBody()) {
			return c.GetBody()
		}
	}
	g.t.Fatalf("no comment of %s", login)
	return ""
}

// TestForeignSuccessStatusCorrected: a writer sets the status "contractbot: master"
// to success on the head of a pull request that waits for sign-offs. GitHub sends the
// status event; the bot judges the pull request again and its own pending status
// becomes the newest of that name, in token mode and, beside the check run, in App
// mode. A success status the bot itself set is not an event to act on.
func TestForeignSuccessStatusCorrected(t *testing.T) {
	for _, mode := range []string{"token", "app"} {
		t.Run(mode, func(t *testing.T) {
			g := newGate(t, opened, amountToString)
			b := g.bot()
			if mode == "token" {
				b = g.tokenBot()
			}
			g.evaluate(b)
			writer := githubapi.New(g.fake.ClientWithToken("writer-token"))
			if err := writer.CreateStatus(context.Background(), "acme", "contracts", g.head.String(), githubapi.Status{State: "success", Context: GateName("master"), Description: "BREAKING: ready to merge"}); err != nil {
				t.Fatal(err)
			}
			g.advance(time.Minute)
			g.deliver(b, "status", g.fake.StatusEvent("acme", "contracts", g.head.String(), GateName("master"), "success", "wendy"))
			if st := g.gateStatus(); st == nil || st.GetState() != "pending" || st.GetCreator().GetLogin() == "wendy" {
				t.Errorf("the newest %q status after the foreign success: %+v", GateName("master"), st)
			}
		})
	}
}
