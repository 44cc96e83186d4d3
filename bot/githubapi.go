package bot

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/verdict"
)

// API is the GitHub interface over go-github: every list is read page by page, and
// every call is retried politely — after a primary rate limit until it resets, after a
// secondary one as long as Retry-After says, after a 5xx or a network error with
// exponential backoff and jitter — within MaxWait overall.
type API struct {
	Client *github.Client
	// MaxAttempts and MaxWait bound the retries of one call (defaults 5 and 2 min).
	MaxAttempts int
	MaxWait     time.Duration
	// Sleep waits (tests replace it); it returns early when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewAPI wraps a go-github client.
func NewAPI(c *github.Client) *API { return &API{Client: c} }

func (a *API) sleep(ctx context.Context, d time.Duration) error {
	if a.Sleep != nil {
		return a.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// call runs f, retrying what GitHub asks to be retried.
func (a *API) call(ctx context.Context, f func() (*github.Response, error)) error {
	attempts, maxWait := a.MaxAttempts, a.MaxWait
	if attempts <= 0 {
		attempts = 5
	}
	if maxWait <= 0 {
		maxWait = 2 * time.Minute
	}
	var waited time.Duration
	backoff := 500 * time.Millisecond
	for i := 1; ; i++ {
		resp, err := f()
		if err == nil {
			return nil
		}
		wait, retry := retryAfter(resp, err, backoff)
		if !retry || i >= attempts || waited+wait > maxWait {
			return err
		}
		if err := a.sleep(ctx, wait); err != nil {
			return err
		}
		waited += wait
		backoff *= 2
	}
}

// retryAfter says whether an error is worth retrying and after how long.
func retryAfter(resp *github.Response, err error, backoff time.Duration) (time.Duration, bool) {
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	switch {
	case errors.As(err, &rl):
		return max(time.Until(rl.Rate.Reset.Time), time.Second), true
	case errors.As(err, &abuse):
		if abuse.RetryAfter != nil {
			return *abuse.RetryAfter, true
		}
		return time.Minute, true
	case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
		// go-github v60 reads only 403 as a rate limit; GitHub also answers 429.
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			return time.Duration(s) * time.Second, true
		}
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Until(time.Unix(reset, 0)), time.Second), true
		}
		return time.Minute, true
	case resp != nil && resp.StatusCode >= 500:
		return jitter(backoff), true
	case resp == nil:
		return jitter(backoff), true // the request did not get an answer
	}
	return 0, false
}

func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int64N(int64(d)))
}

// listAll reads every page of a list: fetch reads the page opt.Page names.
func listAll[T any](ctx context.Context, a *API, opt *github.ListOptions, fetch func() ([]T, *github.Response, error)) ([]T, error) {
	var out []T
	for {
		var page []T
		var resp *github.Response
		err := a.call(ctx, func() (r *github.Response, err error) {
			page, r, err = fetch()
			resp = r
			return r, err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// GetPullRequest reads a pull request.
func (a *API) GetPullRequest(ctx context.Context, owner, repo string, number int) (*PullRequest, error) {
	var p *github.PullRequest
	err := a.call(ctx, func() (resp *github.Response, err error) {
		p, resp, err = a.Client.PullRequests.Get(ctx, owner, repo, number)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	pr := &PullRequest{Owner: owner, Repo: repo, Number: number,
		HeadSHA: p.GetHead().GetSHA(), BaseSHA: p.GetBase().GetSHA(), BaseRef: p.GetBase().GetRef(),
		Author: p.GetUser().GetLogin(), State: p.GetState(), Draft: p.GetDraft(),
		CloneURL: p.GetBase().GetRepo().GetCloneURL(), HTMLURL: p.GetBase().GetRepo().GetHTMLURL(),
		CreatedAt: p.GetCreatedAt().Time}
	for _, l := range p.Labels {
		pr.Labels = append(pr.Labels, l.GetName())
	}
	return pr, nil
}

// CommitStatuses lists the states of a commit's statuses of one context, all pages.
func (a *API) CommitStatuses(ctx context.Context, owner, repo, sha, statusContext string) ([]string, error) {
	opt := &github.ListOptions{PerPage: 100}
	all, err := listAll(ctx, a, opt, func() ([]*github.RepoStatus, *github.Response, error) {
		return a.Client.Repositories.ListStatuses(ctx, owner, repo, sha, opt)
	})
	var out []string
	for _, s := range all {
		if s.GetContext() == statusContext {
			out = append(out, s.GetState())
		}
	}
	return out, err
}

// CreateStatus sets a commit status.
func (a *API) CreateStatus(ctx context.Context, owner, repo, sha, state, statusContext, description string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Repositories.CreateStatus(ctx, owner, repo, sha, &github.RepoStatus{State: &state, Context: &statusContext, Description: &description})
		return resp, err
	})
}

// OpenPullRequests lists the open pull requests' numbers, all pages.
func (a *API) OpenPullRequests(ctx context.Context, owner, repo string) ([]int, error) {
	opt := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	all, err := listAll(ctx, a, &opt.ListOptions, func() ([]*github.PullRequest, *github.Response, error) {
		return a.Client.PullRequests.List(ctx, owner, repo, opt)
	})
	var out []int
	for _, p := range all {
		out = append(out, p.GetNumber())
	}
	return out, err
}

// ListReviews reads every review, all pages.
func (a *API) ListReviews(ctx context.Context, owner, repo string, number int) ([]verdict.Review, error) {
	opt := &github.ListOptions{PerPage: 100}
	all, err := listAll(ctx, a, opt, func() ([]*github.PullRequestReview, *github.Response, error) {
		return a.Client.PullRequests.ListReviews(ctx, owner, repo, number, opt)
	})
	var out []verdict.Review
	for _, r := range all {
		out = append(out, verdict.Review{Login: r.GetUser().GetLogin(), State: r.GetState(), SubmittedAt: r.GetSubmittedAt().Time})
	}
	return out, err
}

// TeamMembers lists a team's members, all pages.
func (a *API) TeamMembers(ctx context.Context, org, slug string) ([]string, error) {
	opt := &github.TeamListTeamMembersOptions{ListOptions: github.ListOptions{PerPage: 100}}
	all, err := listAll(ctx, a, &opt.ListOptions, func() ([]*github.User, *github.Response, error) {
		return a.Client.Teams.ListTeamMembersBySlug(ctx, org, slug, opt)
	})
	var out []string
	for _, u := range all {
		out = append(out, u.GetLogin())
	}
	return out, err
}

// ListComments reads every issue comment of the pull request, all pages.
func (a *API) ListComments(ctx context.Context, owner, repo string, number int) ([]Comment, error) {
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	all, err := listAll(ctx, a, &opt.ListOptions, func() ([]*github.IssueComment, *github.Response, error) {
		return a.Client.Issues.ListComments(ctx, owner, repo, number, opt)
	})
	var out []Comment
	for _, c := range all {
		out = append(out, Comment{ID: c.GetID(), Body: c.GetBody()})
	}
	return out, err
}

// CreateComment posts a comment.
func (a *API) CreateComment(ctx context.Context, owner, repo string, number int, body string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: &body})
		return resp, err
	})
}

// EditComment replaces a comment's body.
func (a *API) EditComment(ctx context.Context, owner, repo string, id int64, body string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &body})
		return resp, err
	})
}

// FindCheckRun finds the bot's check run on a commit.
func (a *API) FindCheckRun(ctx context.Context, owner, repo, sha, name string) (int64, bool, error) {
	var res *github.ListCheckRunsResults
	err := a.call(ctx, func() (resp *github.Response, err error) {
		res, resp, err = a.Client.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, &github.ListCheckRunsOptions{CheckName: &name, ListOptions: github.ListOptions{PerPage: 100}})
		return resp, err
	})
	if err != nil {
		return 0, false, err
	}
	for _, r := range res.CheckRuns {
		if r.GetName() == name && r.GetHeadSHA() == sha {
			return r.GetID(), true, nil
		}
	}
	return 0, false, nil
}

func checkOutput(in CheckRunInput) *github.CheckRunOutput {
	out := &github.CheckRunOutput{Title: &in.Title, Summary: &in.Summary}
	for _, an := range in.Annotations {
		an := an
		ca := &github.CheckRunAnnotation{Path: &an.Path, StartLine: &an.StartLine, EndLine: &an.EndLine,
			AnnotationLevel: &an.Level, Title: &an.Title, Message: &an.Message}
		if an.StartLine == an.EndLine && an.StartColumn > 0 {
			ca.StartColumn, ca.EndColumn = &an.StartColumn, &an.EndColumn
		}
		out.Annotations = append(out.Annotations, ca)
	}
	return out
}

// CreateCheckRun creates a check run: completed, or in progress when in has no
// conclusion.
func (a *API) CreateCheckRun(ctx context.Context, owner, repo, name string, in CheckRunInput) (int64, error) {
	var run *github.CheckRun
	status, conclusion := "completed", &in.Conclusion
	if in.Conclusion == "" {
		status, conclusion = "in_progress", nil
	}
	err := a.call(ctx, func() (resp *github.Response, err error) {
		run, resp, err = a.Client.Checks.CreateCheckRun(ctx, owner, repo, github.CreateCheckRunOptions{
			Name: name, HeadSHA: in.HeadSHA, Status: &status, Conclusion: conclusion, Output: checkOutput(in)})
		return resp, err
	})
	if err != nil {
		return 0, err
	}
	return run.GetID(), nil
}

// UpdateCheckRun updates a check run (annotations are appended by GitHub).
func (a *API) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, in CheckRunInput) error {
	status := "completed"
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Checks.UpdateCheckRun(ctx, owner, repo, id, github.UpdateCheckRunOptions{
			Name: CheckName, Status: &status, Conclusion: &in.Conclusion, Output: checkOutput(in)})
		return resp, err
	})
}

// RequestReviewers asks users and teams (by slug) to review.
func (a *API) RequestReviewers(ctx context.Context, owner, repo string, number int, users, teams []string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.PullRequests.RequestReviewers(ctx, owner, repo, number, github.ReviewersRequest{Reviewers: users, TeamReviewers: teams})
		return resp, err
	})
}

// AddLabels adds labels to the pull request.
func (a *API) AddLabels(ctx context.Context, owner, repo string, number int, labels []string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Issues.AddLabelsToIssue(ctx, owner, repo, number, labels)
		return resp, err
	})
}

// RemoveLabel removes a label; one that is already gone is fine.
func (a *API) RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error {
	err := a.call(ctx, func() (*github.Response, error) {
		return a.Client.Issues.RemoveLabelForIssue(ctx, owner, repo, number, label)
	})
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
		return nil
	}
	return err
}

var _ GitHub = (*API)(nil)

// String names the adapter in logs.
func (a *API) String() string { return fmt.Sprintf("github api at %s", a.Client.BaseURL) }
