package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"

	"github.com/contractbot/contractbot/internal/githubfake"
)

// TestBotAgainstGitHubFake runs the bot through go-github against the HTTP fake of
// GitHub's REST API, with the repository served to go-git from disk.
func TestBotAgainstGitHubFake(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	fake.AddTeamMember("acme", "data-warehouse", "dana")
	fake.AddTeamMember("acme", "data-platform", "pat")

	api := githubapi.New(fake.Client())
	api.Sleep = func(context.Context, time.Duration) error { return nil }
	b := botOn(t, fake, &now, nil)
	b.GH, b.CloneURL = api, func(string, string) string { return remote }
	ctx := context.Background()

	// GitHub answers 502 twice first: the bot retries and converges.
	fake.FailNext("GET", "/repos/{owner}/{repo}/pulls/{number}", 2, 502)
	if err := b.Evaluate(ctx, "acme", "contracts", n, b.Log); err != nil {
		t.Fatal(err)
	}
	if got := fake.Count("GET", "/repos/{owner}/{repo}/pulls/{number}"); got != 3 {
		t.Errorf("GET pull request %d times, want 3 (two 502s, then the answer)", got)
	}
	if got := fake.Count("GET", "/repos/{owner}/{repo}/issues/{number}/comments"); got != 1 {
		t.Errorf("comments listed %d times in one evaluation, want 1", got)
	}
	comments := fake.Comments("acme", "contracts", n)
	if len(comments) != 1 || !strings.Contains(comments[0].GetBody(), "**BREAKING**") {
		t.Fatalf("comments: %d", len(comments))
	}
	runs := fake.CheckRuns("acme", "contracts", head.String())
	if len(runs) != 1 || runs[0].GetConclusion() != ConclusionActionRequired {
		t.Fatalf("check runs: %+v", runs)
	}
	if labels := fake.Labels("acme", "contracts", n); len(labels) != 1 || labels[0] != LabelBreaking {
		t.Errorf("labels %v", labels)
	}
	if _, teams := fake.RequestedReviewers("acme", "contracts", n); len(teams) != 2 {
		t.Errorf("team review requests %v", teams)
	}

	// Both teams approve; the check turns green, still one comment.
	now = now.Add(time.Hour)
	fake.AddReview("acme", "contracts", n, "dana", "APPROVED", now)
	fake.AddReview("acme", "contracts", n, "pat", "APPROVED", now)
	now = now.Add(time.Minute)
	if err := b.Evaluate(ctx, "acme", "contracts", n, b.Log); err != nil {
		t.Fatal(err)
	}
	comments = fake.Comments("acme", "contracts", n)
	runs = fake.CheckRuns("acme", "contracts", head.String())
	if len(comments) != 1 || len(runs) != 1 || runs[0].GetConclusion() != ConclusionSuccess {
		t.Fatalf("after approvals: %d comments, check %s", len(comments), runs[0].GetConclusion())
	}
	if !strings.Contains(comments[0].GetBody(), "approved by @dana") {
		t.Errorf("comment:\n%s", comments[0].GetBody())
	}
}

// TestReconcileRepairsAMissedWebhook: no webhook arrived for a pull request; the
// reconcile loop finds it open and converges it.
func TestReconcileRepairsAMissedWebhook(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	closed := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: head.String(), BaseSHA: base.String(), BaseRef: "master"})
	fake.SetState("acme", "contracts", closed, "closed")
	b := botOn(t, fake, &now, nil)
	b.Reconcile(context.Background(), []Repository{{"acme", "contracts"}})
	if got := len(fake.Comments("acme", "contracts", n)); got != 1 {
		t.Errorf("open pull request: %d comments after reconcile", got)
	}
	if got := len(fake.Comments("acme", "contracts", closed)); got != 0 {
		t.Errorf("closed pull request got %d comments", got)
	}
}

// TestOpenStates reads back the bot's state of open pull requests for the pages.
func TestOpenStates(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	b := botOn(t, fake, &now, nil)
	if err := b.Evaluate(context.Background(), "acme", "contracts", n, b.Log); err != nil {
		t.Fatal(err)
	}
	states, err := b.OpenStates(context.Background(), []Repository{{"acme", "contracts"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].State.Class != "BREAKING" || len(states[0].State.SignOffs) != 2 || states[0].State.SignOffs[0].Status != "pending" ||
		len(states[0].State.Subjects) != 1 || states[0].State.Subjects[0] != "orders.order-created-value" {
		t.Errorf("states: %+v", states)
	}
}

// TestUnchangedCommentIsNotWritten: evaluating a pull request again when nothing
// changed (a reconcile loop, a redelivered webhook) leaves the sticky comment as it
// is: no PATCH counts against GitHub's rate limits. Once a review changes the
// verdict, the comment is written again, and its memory still verifies.
func TestUnchangedCommentIsNotWritten(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	fake.AddTeamMember("acme", "data-warehouse", "dana")
	b := botOn(t, fake, &now, nil)
	ctx := context.Background()
	const patch = "/repos/{owner}/{repo}/issues/comments/{id}"
	// The first evaluation creates the comment with a note that the memory was
	// rebuilt (there was none); the second drops the note. Then nothing changes.
	for range 5 {
		if err := b.Evaluate(ctx, "acme", "contracts", n, b.Log); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
	if got := fake.Count("PATCH", patch); got != 1 {
		t.Errorf("the comment was edited %d times by five evaluations, want 1 (the second drops the first's note)", got)
	}
	before := fake.Comments("acme", "contracts", n)[0].GetBody()
	fake.AddReview("acme", "contracts", n, "dana", "APPROVED", now)
	now = now.Add(time.Minute)
	for range 2 {
		if err := b.Evaluate(ctx, "acme", "contracts", n, b.Log); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
	after := fake.Comments("acme", "contracts", n)
	if got := fake.Count("PATCH", patch); got != 2 || len(after) != 1 || after[0].GetBody() == before || !strings.Contains(after[0].GetBody(), "approved by @dana") {
		t.Errorf("after an approval and two evaluations: %d edits in all (want 2), comment:\n%s", got, after[0].GetBody())
	}
	m := readMemory([]Comment{{ID: after[0].GetID(), Body: after[0].GetBody(), Login: botLogin, UpdatedAt: after[0].GetUpdatedAt().Time}}, botLogin, testKey,
		PullRequest{Owner: "acme", Repo: "contracts", Number: n}, nil)
	if m.State == nil {
		t.Errorf("the comment's memory does not verify after skipped writes: %s", m.Notice)
	}
}
