package githubfake

import (
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// TestIdentity: GET /app with the App's JWT names the App's slug; GET /user names a
// token's user, and refuses an installation token with 403, as GitHub does.
func TestIdentity(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := setup(t, WithApp(42, &key.PublicKey), WithBotLogin("contracts-gate[bot]"))
	s.AddInstallation(7, owner)
	now := t0.Unix()
	jwt := signJWT(t, key, map[string]any{"iss": 42, "iat": now - 60, "exp": now + 540})
	app, _, err := s.ClientWithToken(jwt).Apps.Get(ctx(t), "")
	if err != nil || app.GetSlug() != "contracts-gate" || app.GetID() != 42 {
		t.Errorf("GET /app: %+v, %v", app, err)
	}
	s.AddToken("pat", "ci-bot")
	if u, _, err := s.ClientWithToken("pat").Users.Get(ctx(t), ""); err != nil || u.GetLogin() != "ci-bot" {
		t.Errorf("GET /user with a token: %v, %v", u.GetLogin(), err)
	}
	tok, _, err := s.ClientWithToken(jwt).Apps.CreateInstallationToken(ctx(t), 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.ClientWithToken(tok.GetToken()).Users.Get(ctx(t), "")
	if statusOf(err) != 403 || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Errorf("GET /user with an installation token: %v, want 403", err)
	}
	// A token that is not an App's cannot write check runs.
	_, _, err = s.ClientWithToken("pat").Checks.CreateCheckRun(ctx(t), owner, name, github.CreateCheckRunOptions{Name: "x", HeadSHA: head})
	if statusOf(err) != 403 || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Errorf("check run with a token: %v, want 403 Resource not accessible by integration", err)
	}
}

// TestTimelineShowsReviewRequests: each review request is a review_requested event
// of the issue's timeline, naming the team or the person, who asked and when.
func TestTimelineShowsReviewRequests(t *testing.T) {
	s, c, clk := setup(t)
	s.AddTeamMember(owner, "data-warehouse", "dana")
	s.AddToken("pat", "ci-bot")
	if _, _, err := s.ClientWithToken("pat").PullRequests.RequestReviewers(ctx(t), owner, name, 1, github.ReviewersRequest{TeamReviewers: []string{"data-warehouse"}}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(60e9)
	if _, _, err := c.PullRequests.RequestReviewers(ctx(t), owner, name, 1, github.ReviewersRequest{Reviewers: []string{"dana"}}); err != nil {
		t.Fatal(err)
	}
	events, _, err := c.Issues.ListIssueTimeline(ctx(t), owner, name, 1, nil)
	if err != nil || len(events) != 2 {
		t.Fatalf("timeline: %d events, %v", len(events), err)
	}
	team, person := events[0], events[1]
	if team.GetEvent() != "review_requested" || team.GetRequestedTeam().GetSlug() != "data-warehouse" || team.GetActor().GetLogin() != "ci-bot" || !team.GetCreatedAt().Time.Equal(t0) {
		t.Errorf("team request: %+v", team)
	}
	if person.GetReviewer().GetLogin() != "dana" || person.GetActor().GetLogin() != DefaultBotLogin || !person.GetCreatedAt().Time.Equal(clk.Now()) {
		t.Errorf("person request: %+v", person)
	}
}
