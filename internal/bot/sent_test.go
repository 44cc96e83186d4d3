package bot

import (
	"context"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/server"
)

// TestNothingSentTwiceWhenTheCommentGoes: the bot's comment is where it remembers
// what it sent to Slack, and a writer can delete it, edit it or restore an earlier
// version. None of that sends a message again: what was sent is read back from Slack
// itself (the messages' keys) before anything is sent. Each team's first message, its
// 12 h reminder and the escalation at the deadline each go out once.
func TestNothingSentTwiceWhenTheCommentGoes(t *testing.T) {
	g := newGate(t, opened, amountToString)
	ctx := context.Background()
	writer := g.fake.ClientWithToken("writer-token")
	api := githubapi.New(writer)
	deleteIt := func() {
		t.Helper()
		if _, err := writer.Issues.DeleteComment(ctx, "acme", "contracts", g.botComment().GetID()); err != nil {
			t.Fatal(err)
		}
	}
	editIt := func(body string) {
		t.Helper()
		if err := api.EditComment(ctx, "acme", "contracts", g.botComment().GetID(), body); err != nil {
			t.Fatal(err)
		}
	}
	posts := func() int { g.slack.mu.Lock(); defer g.slack.mu.Unlock(); return len(g.slack.posts) }
	step := func(d time.Duration, tamper func(), what string, want int) {
		t.Helper()
		if tamper != nil {
			tamper()
		}
		g.advance(d)
		g.evaluate(g.bot())
		if got := posts(); want >= 0 && got != want {
			t.Fatalf("%s: %d messages in Slack, want %d:\n%s", what, got, want, g.slack.all())
		}
	}
	step(0, nil, "the first evaluation", 3) // data-warehouse's and platform's messages, analytics' FYI
	first := g.botComment().GetBody()
	step(time.Minute, deleteIt, "the comment deleted", 3)
	step(time.Minute, func() { editIt(first + "\nedited") }, "the comment edited", 3)
	step(12*time.Hour, nil, "the 12 h mark", 5) // a reminder to each team, once
	step(time.Minute, func() { editIt(first) }, "an earlier version restored after the 12 h mark", 5)
	step(time.Minute, deleteIt, "the comment deleted after the 12 h mark", 5)
	if n := g.slack.count("#dw-realtime", ""); n != 2 {
		t.Errorf("#dw-realtime got %d messages, want its team message and one reminder:\n%s", n, g.slack.all())
	}
	step(12*time.Hour, nil, "the deadline", -1) // escalations: the teams', on-call, the producer's
	escalated := posts()
	for range 3 {
		step(time.Minute, deleteIt, "the comment deleted after the escalation", escalated)
	}
	if n := g.slack.count("#data-oncall", ""); n == 0 || n > 2 {
		t.Errorf("#data-oncall got %d messages, want the escalations once:\n%s", n, g.slack.all())
	}
}

// TestSlackRetriedOnItsOwnSchedule: Slack refuses every message (429, Retry-After: 1)
// at the first evaluation. GitHub is written all the same (the comment and the check
// run come before Slack), and the messages go out after Slack's wait, without another
// event for the pull request.
func TestSlackRetriedOnItsOwnSchedule(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.slack.mu.Lock()
	g.slack.refuse = 3
	g.slack.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := g.bot()
	b.Queue = server.NewQueue(ctx, server.QueueConfig{Workers: 1})
	b.SlackRetry = 10 * time.Millisecond
	start := time.Now()
	g.evaluate(b)
	if c := g.conclusion(); c != ConclusionActionRequired || g.botComment() == nil {
		t.Fatalf("GitHub was not written while Slack refused: check %s", c)
	}
	g.slack.mu.Lock()
	refused, sent := g.slack.refused, len(g.slack.posts)
	g.slack.mu.Unlock()
	if refused != 3 || sent != 0 {
		t.Fatalf("Slack refused %d and took %d messages at the first evaluation, want 3 and 0", refused, sent)
	}
	waitFor(t, func() bool { g.slack.mu.Lock(); defer g.slack.mu.Unlock(); return len(g.slack.posts) == 3 })
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("sent again after %s, before the Retry-After of 1 s", waited)
	}
	b.Queue.Drain()
}

// TestFailedClaimRetriedOnSlacksSchedule: GitHub refuses the claim of the first
// evaluation's messages in the ledger; nothing is sent then, and the pull request is
// evaluated again on Slack's retry schedule, without another event: each message
// goes out once.
func TestFailedClaimRetriedOnSlacksSchedule(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.fake.FailNext("POST", "/repos/{owner}/{repo}/statuses/{sha}", 1, 422)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := g.bot()
	b.Queue = server.NewQueue(ctx, server.QueueConfig{Workers: 1})
	b.SlackRetry = 10 * time.Millisecond
	g.evaluate(b)
	if all := g.slack.all(); all != "" {
		t.Fatalf("sent while the claim failed:\n%s", all)
	}
	waitFor(t, func() bool { g.slack.mu.Lock(); defer g.slack.mu.Unlock(); return len(g.slack.posts) == 3 })
	b.Queue.Drain()
	g.slack.mu.Lock()
	n := len(g.slack.posts)
	g.slack.mu.Unlock()
	if n != 3 {
		t.Errorf("%d messages after the retry, want 3:\n%s", n, g.slack.all())
	}
}
