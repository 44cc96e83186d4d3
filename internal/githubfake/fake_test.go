package githubfake

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// testClock is a clock a test moves by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// t0 is deliberately in the past, so that go-github's own wall-clock rate-limit
// bookkeeping never blocks a test's client.
var t0 = time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)

const (
	owner = "acme"
	name  = "contracts"
	head  = "1111111111111111111111111111111111111111"
	base  = "2222222222222222222222222222222222222222"
)

// setup starts a fake with a manual clock and one open pull request #1 by
// alice.
func setup(t *testing.T, opts ...Option) (*Server, *github.Client, *testClock) {
	t.Helper()
	clk := &testClock{t: t0}
	s := New(append([]Option{WithClock(clk.Now)}, opts...)...)
	t.Cleanup(s.Close)
	n := s.AddPullRequest(owner, name, PullRequest{Author: "alice", Title: "orders: drop amount", HeadSHA: head, BaseSHA: base})
	if n != 1 {
		t.Fatalf("AddPullRequest = %d, want 1", n)
	}
	return s, s.Client(), clk
}

// statusOf returns the HTTP status of a go-github error response, or 0.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Response.StatusCode
	}
	return 0
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestNotFound(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	calls := []struct {
		what string
		do   func() error
	}{
		{"unknown repository", func() error { _, _, err := c.PullRequests.Get(ctx, owner, "nope", 1); return err }},
		{"unknown pull request", func() error { _, _, err := c.PullRequests.Get(ctx, owner, name, 99); return err }},
		{"comments of unknown pull request", func() error {
			_, _, err := c.Issues.ListComments(ctx, owner, name, 99, nil)
			return err
		}},
		{"unknown comment", func() error {
			_, _, err := c.Issues.EditComment(ctx, owner, name, 12345, &github.IssueComment{Body: github.String("x")})
			return err
		}},
		{"unknown check run", func() error {
			_, _, err := c.Checks.UpdateCheckRun(ctx, owner, name, 12345, github.UpdateCheckRunOptions{Name: "contractbot"})
			return err
		}},
		{"unknown team", func() error { _, _, err := c.Teams.ListTeamMembersBySlug(ctx, owner, "ghosts", nil); return err }},
		{"unknown route", func() error {
			req, _ := c.NewRequest("GET", "repos/acme/contracts/nothing-here", nil)
			_, err := c.Do(ctx, req, nil)
			return err
		}},
	}
	for _, tc := range calls {
		err := tc.do()
		var er *github.ErrorResponse
		if !errors.As(err, &er) {
			t.Errorf("%s: error %v (%T), want *github.ErrorResponse", tc.what, err, err)
			continue
		}
		if er.Response.StatusCode != 404 || er.Message != "Not Found" || er.DocumentationURL == "" {
			t.Errorf("%s: got %d %q %q, want 404 Not Found with a documentation_url", tc.what, er.Response.StatusCode, er.Message, er.DocumentationURL)
		}
	}
	if got := s.Count("", "/repos/*/*/pulls/*"); got != 2 {
		t.Errorf("Count(pulls/*) = %d, want 2", got)
	}
}

func TestCommentsPaginateWithLinkHeaders(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	for i := range 250 {
		s.AddComment(owner, name, 1, "bob", "comment "+string(rune('a'+i%26)))
	}
	var all []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var pages []int
	for {
		cs, resp, err := c.Issues.ListComments(ctx, owner, name, 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, len(cs))
		if resp.LastPage != 0 && resp.LastPage != 3 {
			t.Errorf("page %d: LastPage = %d, want 3", opts.Page, resp.LastPage)
		}
		if opts.Page == 2 {
			if resp.PrevPage != 1 || resp.NextPage != 3 || resp.FirstPage != 1 {
				t.Errorf("page 2: prev %d next %d first %d, want 1 3 1", resp.PrevPage, resp.NextPage, resp.FirstPage)
			}
		}
		all = append(all, cs...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(pages) != 3 || pages[0] != 100 || pages[1] != 100 || pages[2] != 50 {
		t.Errorf("page sizes = %v, want [100 100 50]", pages)
	}
	if len(all) != 250 {
		t.Fatalf("got %d comments, want 250", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].GetID() <= all[i-1].GetID() {
			t.Fatalf("comments not oldest first at %d", i)
		}
	}
	// Default page size is 30, and per_page is capped at 100.
	cs, resp, err := c.Issues.ListComments(ctx, owner, name, 1, nil)
	if err != nil || len(cs) != 30 || resp.NextPage != 2 || resp.LastPage != 9 {
		t.Errorf("default page: %d comments, next %d, last %d, err %v; want 30, 2, 9", len(cs), resp.NextPage, resp.LastPage, err)
	}
	cs, _, err = c.Issues.ListComments(ctx, owner, name, 1, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 500}})
	if err != nil || len(cs) != 100 {
		t.Errorf("per_page 500: %d comments, err %v; want 100", len(cs), err)
	}
}

func TestEditCommentInPlace(t *testing.T) {
	s, c, clk := setup(t)
	ctx := ctx(t)
	created, resp, err := c.Issues.CreateComment(ctx, owner, name, 1, &github.IssueComment{Body: github.String("<!-- contractbot -->\nv1")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v (status %v)", err, resp)
	}
	if created.GetUser().GetLogin() != DefaultBotLogin || created.GetUser().GetType() != "Bot" {
		t.Errorf("comment author = %q (%s), want %q (Bot)", created.GetUser().GetLogin(), created.GetUser().GetType(), DefaultBotLogin)
	}
	clk.Advance(time.Minute)
	edited, _, err := c.Issues.EditComment(ctx, owner, name, created.GetID(), &github.IssueComment{Body: github.String("<!-- contractbot -->\nv2")})
	if err != nil {
		t.Fatal(err)
	}
	if edited.GetID() != created.GetID() || !edited.GetUpdatedAt().Time.Equal(t0.Add(time.Minute)) || !edited.GetCreatedAt().Time.Equal(t0) {
		t.Errorf("edited comment: id %d updated %v created %v", edited.GetID(), edited.GetUpdatedAt(), edited.GetCreatedAt())
	}
	got := s.Comments(owner, name, 1)
	if len(got) != 1 || got[0].GetBody() != "<!-- contractbot -->\nv2" {
		t.Fatalf("Comments = %v, want one comment with v2", got)
	}
	if _, _, err := c.Issues.CreateComment(ctx, owner, name, 1, &github.IssueComment{Body: github.String("")}); statusOf(err) != 422 {
		t.Errorf("empty body: %v, want 422", err)
	}
	if _, err := c.Issues.DeleteComment(ctx, owner, name, created.GetID()); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Comments(owner, name, 1)); n != 0 {
		t.Errorf("after delete %d comments, want 0", n)
	}
	if _, err := c.Issues.DeleteComment(ctx, owner, name, created.GetID()); statusOf(err) != 404 {
		t.Errorf("second delete: %v, want 404", err)
	}
}

func TestConcurrentClients(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 500)
	for range 50 {
		n := s.AddPullRequest(owner, name, PullRequest{Author: "alice", HeadSHA: head, BaseSHA: base})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, _, err := c.Issues.CreateComment(ctx, owner, name, n, &github.IssueComment{Body: github.String("x")}); err != nil {
					errs <- err
				}
				if _, _, err := c.Issues.AddLabelsToIssue(ctx, owner, name, n, []string{"contract: safe"}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for n := 2; n <= 51; n++ {
		cs := s.Comments(owner, name, n)
		if len(cs) != 10 {
			t.Fatalf("#%d has %d comments, want 10", n, len(cs))
		}
		for _, cm := range cs {
			if ids[cm.GetID()] {
				t.Fatalf("comment id %d given twice", cm.GetID())
			}
			ids[cm.GetID()] = true
		}
		if got := s.Labels(owner, name, n); len(got) != 1 {
			t.Fatalf("#%d labels %q", n, got)
		}
	}
}
