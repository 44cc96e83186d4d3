package githubapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/githubfake"
)

// TestListsAreReadToTheEnd: lists longer than a page are read to the end.
func TestListsAreReadToTheEnd(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: strings.Repeat("a", 40), BaseSHA: strings.Repeat("b", 40)})
	for i := 0; i < 250; i++ {
		fake.AddComment("acme", "contracts", n, "olivia", fmt.Sprintf("comment %d", i))
		fake.AddTeamMember("acme", "big", fmt.Sprintf("user%03d", i))
	}
	api := New(fake.Client())
	comments, err := api.ListComments(context.Background(), "acme", "contracts", n)
	if err != nil || len(comments) != 250 || comments[249].Body != "comment 249" || comments[0].Login != "olivia" {
		t.Errorf("comments: %d, %v", len(comments), err)
	}
	members, err := api.TeamMembers(context.Background(), "acme", "big")
	if err != nil || len(members) != 250 {
		t.Errorf("members: %d, %v", len(members), err)
	}
	if got := fake.Count("GET", "/repos/{owner}/{repo}/issues/{number}/comments"); got != 3 {
		t.Errorf("%d requests for 250 comments, want 3 pages of 100", got)
	}
}

// TestReviewRequestsAndForbidden: the timeline's review requests come back as
// handles with who asked and when; a check run written with a token is a 403 that
// IsForbidden recognises, and the token's identity is its user.
func TestReviewRequestsAndForbidden(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: strings.Repeat("a", 40), BaseSHA: strings.Repeat("b", 40)})
	fake.AddTeamMember("acme", "Data-Warehouse", "dana")
	fake.AddToken("pat", "ci-bot")
	api := New(fake.ClientWithToken("pat"))
	ctx := context.Background()
	if err := api.RequestReviewers(ctx, "acme", "contracts", n, []string{"dana"}, []string{"Data-Warehouse"}); err != nil {
		t.Fatal(err)
	}
	reqs, err := api.ReviewRequests(ctx, "acme", "contracts", n)
	if err != nil || len(reqs) != 2 {
		t.Fatalf("review requests %+v, %v", reqs, err)
	}
	if reqs[0] != (ReviewRequest{Reviewer: "@dana", By: "ci-bot", At: now}) || reqs[1].Reviewer != "@acme/Data-Warehouse" {
		t.Errorf("review requests %+v", reqs)
	}
	_, err = api.CreateCheckRun(ctx, "acme", "contracts", CheckRunInput{Name: "contractbot", HeadSHA: strings.Repeat("a", 40), Conclusion: "success"})
	if !IsForbidden(err) {
		t.Errorf("check run with a token: %v, want a 403", err)
	}
	if IsForbidden(&github.RateLimitError{Message: "rate"}) {
		t.Error("a rate limit is not a refusal of the credentials")
	}
	tc := &TokenClients{API: api, Token: "pat"}
	if self, err := tc.Identity(ctx); err != nil || self != "ci-bot" {
		t.Errorf("identity %q, %v", self, err)
	}
}
