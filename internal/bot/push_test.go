package bot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestPushChangingOneTeamsImpact: both teams approved; a push then also removes a
// field that only the platform team's consumer reads. The platform team's sign-off
// is dropped (the comment says why, the review is requested again); data-warehouse's
// is kept.
func TestPushChangingOneTeamsImpact(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	fake.AddTeamMember("acme", "data-warehouse", "dana")
	fake.AddTeamMember("acme", "data-platform", "pat")
	b := botOn(t, fake, &now, nil)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.Evaluate(ctx, "acme", "contracts", n, b.Log))
	now = now.Add(time.Hour)
	fake.AddReview("acme", "contracts", n, "dana", "APPROVED", now)
	fake.AddReview("acme", "contracts", n, "pat", "APPROVED", now)
	now = now.Add(time.Minute)
	must(b.Evaluate(ctx, "acme", "contracts", n, b.Log))
	if c := fake.CheckRuns("acme", "contracts", head.String())[0].GetConclusion(); c != ConclusionSuccess {
		t.Fatalf("after both approvals: %s", c)
	}

	// The push: attributes goes too (only ods-order-archive, platform's, reads it: "*").
	repo, err := git.PlainOpen(remote)
	must(err)
	f := filepath.Join(remote, "contracts/orders/order-created/order_created.avsc")
	data, err := os.ReadFile(f)
	must(err)
	text := string(data)
	i := strings.Index(text, "    {\n      \"name\": \"attributes\"")
	j := strings.Index(text, "    {\n      \"name\": \"created_at\"")
	if i < 0 || j < i {
		t.Fatal("fixture: attributes not found")
	}
	must(os.WriteFile(f, []byte(text[:i]+text[j:]), 0o644))
	wt, err := repo.Worktree()
	must(err)
	pushed, err := wt.Commit("drop attributes", &git.CommitOptions{All: true, Author: &object.Signature{Name: "t", Email: "t@example.com", When: now}})
	must(err)
	now = now.Add(time.Minute)
	fake.Push("acme", "contracts", n, pushed.String())
	must(b.Evaluate(ctx, "acme", "contracts", n, b.Log))

	var sticky string
	for _, c := range fake.Comments("acme", "contracts", n) {
		if IsBotComment(c.GetBody()) {
			sticky = c.GetBody()
		}
	}
	if !strings.Contains(sticky, "approved by @dana") {
		t.Errorf("data-warehouse's sign-off was not kept:\n%s", sticky)
	}
	if strings.Contains(sticky, "approved by @pat") || !strings.Contains(sticky, "changed since the approval") {
		t.Errorf("platform's sign-off was not dropped with a reason:\n%s", sticky)
	}
	if c := fake.CheckRuns("acme", "contracts", pushed.String())[0].GetConclusion(); c != ConclusionActionRequired {
		t.Errorf("check on the new head: %s", c)
	}
	if _, teams := fake.RequestedReviewers("acme", "contracts", n); strings.Join(teams, ",") != "data-platform" {
		t.Errorf("review requested again from %v, want only data-platform", teams)
	}
}
