package githubfake_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/google/go-github/v60/github"
)

// A test arranges state, lets the code under test call GitHub through a
// go-github client, and asserts on what the fake recorded.
func Example() {
	now := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	s := githubfake.New(githubfake.WithClock(func() time.Time { return now }))
	defer s.Close()
	n := s.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "alice", HeadSHA: "abc123", BaseSHA: "def456"})
	s.AddTeamMember("acme", "data-warehouse", "dave")
	s.AddReview("acme", "contracts", n, "dave", "APPROVED", now)

	c := s.Client()
	ctx := context.Background()
	_, _, _ = c.Issues.CreateComment(ctx, "acme", "contracts", n, &github.IssueComment{Body: github.String("<!-- contractbot --> SAFE")})
	for _, cm := range s.Comments("acme", "contracts", n) {
		fmt.Println(cm.GetUser().GetLogin(), cm.GetBody())
	}

	s.FailNext("GET", "/repos/*/*/pulls/*/reviews", 1, 502)
	_, _, err := c.PullRequests.ListReviews(ctx, "acme", "contracts", n, nil)
	var er *github.ErrorResponse
	fmt.Println(errors.As(err, &er), er.Response.StatusCode)
	reviews, _, _ := c.PullRequests.ListReviews(ctx, "acme", "contracts", n, nil)
	fmt.Println(reviews[0].GetUser().GetLogin(), reviews[0].GetState(), reviews[0].GetCommitID())
	fmt.Println(s.Count("GET", "/repos/*/*/pulls/*/reviews"), "requests for reviews")
	// Output:
	// contractbot[bot] <!-- contractbot --> SAFE
	// true 502
	// dave APPROVED abc123
	// 2 requests for reviews
}
