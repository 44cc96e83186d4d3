package githubapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/verdict"
)

// GetPullRequest reads a pull request.
func (a *Client) GetPullRequest(ctx context.Context, owner, repo string, number int) (*PullRequest, error) {
	var p *github.PullRequest
	err := a.call(ctx, func() (resp *github.Response, err error) {
		p, resp, err = a.Client.PullRequests.Get(ctx, owner, repo, number)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	pr := pullRequest(owner, repo, p)
	pr.Number = number
	return pr, nil
}

func pullRequest(owner, repo string, p *github.PullRequest) *PullRequest {
	pr := &PullRequest{Owner: owner, Repo: repo, Number: p.GetNumber(),
		HeadSHA: p.GetHead().GetSHA(), BaseSHA: p.GetBase().GetSHA(), BaseRef: p.GetBase().GetRef(),
		Author: p.GetUser().GetLogin(), State: p.GetState(), Draft: p.GetDraft(),
		CloneURL: p.GetBase().GetRepo().GetCloneURL(), HTMLURL: p.GetBase().GetRepo().GetHTMLURL(),
		CreatedAt: p.GetCreatedAt().Time}
	if p.GetState() == "open" && p.GetMergeable() {
		pr.MergeCommitSHA = p.GetMergeCommitSHA()
	}
	for _, l := range p.Labels {
		pr.Labels = append(pr.Labels, l.GetName())
	}
	return pr
}

// PullRequestFromEvent reads the pull request of a pull_request or
// pull_request_review webhook payload (in GitHub Actions, the file GITHUB_EVENT_PATH
// names): the same fields GetPullRequest reads, as GitHub sent them with the event.
func PullRequestFromEvent(payload []byte) (*PullRequest, error) {
	var ev struct {
		PullRequest *github.PullRequest `json:"pull_request"`
		Repository  *github.Repository  `json:"repository"`
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("read the event payload: %w", err)
	}
	p := ev.PullRequest
	if p == nil || p.GetNumber() == 0 || p.GetHead().GetSHA() == "" || p.GetBase().GetSHA() == "" {
		return nil, fmt.Errorf("the event payload holds no pull request with a number and head and base commits; run on pull_request or pull_request_review events")
	}
	owner, repo := ev.Repository.GetOwner().GetLogin(), ev.Repository.GetName()
	if owner == "" || repo == "" {
		owner, repo = p.GetBase().GetRepo().GetOwner().GetLogin(), p.GetBase().GetRepo().GetName()
	}
	if owner == "" || repo == "" {
		return nil, fmt.Errorf("the event payload does not name the repository (repository.owner.login, repository.name)")
	}
	return pullRequest(owner, repo, p), nil
}

// OpenPullRequests lists the open pull requests' numbers, all pages.
func (a *Client) OpenPullRequests(ctx context.Context, owner, repo string) ([]int, error) {
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

// ListOpenPullRequests lists the open pull requests into base ("" for any), all
// pages.
func (a *Client) ListOpenPullRequests(ctx context.Context, owner, repo, base string) ([]PullRequest, error) {
	opt := &github.PullRequestListOptions{State: "open", Base: base, ListOptions: github.ListOptions{PerPage: 100}}
	all, err := listAll(ctx, a, &opt.ListOptions, func() ([]*github.PullRequest, *github.Response, error) {
		return a.Client.PullRequests.List(ctx, owner, repo, opt)
	})
	return pullRequests(owner, repo, all), err
}

// PullRequestsOfCommit lists the pull requests GitHub associates with a commit
// (those it is the head of, among others), open and closed, all pages.
func (a *Client) PullRequestsOfCommit(ctx context.Context, owner, repo, sha string) ([]PullRequest, error) {
	opt := &github.ListOptions{PerPage: 100}
	all, err := listAll(ctx, a, opt, func() ([]*github.PullRequest, *github.Response, error) {
		return a.Client.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, opt)
	})
	return pullRequests(owner, repo, all), err
}

func pullRequests(owner, repo string, all []*github.PullRequest) []PullRequest {
	out := make([]PullRequest, 0, len(all))
	for _, p := range all {
		out = append(out, *pullRequest(owner, repo, p))
	}
	return out
}

// BranchHead reads the commit a branch points at now.
func (a *Client) BranchHead(ctx context.Context, owner, repo, branch string) (string, error) {
	var b *github.Branch
	err := a.call(ctx, func() (resp *github.Response, err error) {
		b, resp, err = a.Client.Repositories.GetBranch(ctx, owner, repo, branch, 1)
		return resp, err
	})
	if err != nil {
		return "", err
	}
	return b.GetCommit().GetSHA(), nil
}

// ListReviews reads every review, all pages.
func (a *Client) ListReviews(ctx context.Context, owner, repo string, number int) ([]verdict.Review, error) {
	opt := &github.ListOptions{PerPage: 100}
	all, err := listAll(ctx, a, opt, func() ([]*github.PullRequestReview, *github.Response, error) {
		return a.Client.PullRequests.ListReviews(ctx, owner, repo, number, opt)
	})
	var out []verdict.Review
	for _, r := range all {
		out = append(out, verdict.Review{Login: r.GetUser().GetLogin(), State: r.GetState(), SubmittedAt: r.GetSubmittedAt().Time, CommitID: r.GetCommitID()})
	}
	return out, err
}

// RequestReviewers asks users and teams (by slug) to review.
func (a *Client) RequestReviewers(ctx context.Context, owner, repo string, number int, users, teams []string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.PullRequests.RequestReviewers(ctx, owner, repo, number, github.ReviewersRequest{Reviewers: users, TeamReviewers: teams})
		return resp, err
	})
}

// ReviewRequests reads the review requests of the pull request's timeline, oldest
// first, all pages: when each team or person was asked, and by whom.
func (a *Client) ReviewRequests(ctx context.Context, owner, repo string, number int) ([]ReviewRequest, error) {
	opt := &github.ListOptions{PerPage: 100}
	all, err := listAll(ctx, a, opt, func() ([]*github.Timeline, *github.Response, error) {
		return a.Client.Issues.ListIssueTimeline(ctx, owner, repo, number, opt)
	})
	var out []ReviewRequest
	for _, e := range all {
		if e.GetEvent() != "review_requested" {
			continue
		}
		rr := ReviewRequest{By: e.GetActor().GetLogin(), At: e.GetCreatedAt().Time}
		switch {
		case e.RequestedTeam != nil:
			org := strings.ToLower(owner)
			if o := e.RequestedTeam.GetOrganization().GetLogin(); o != "" {
				org = o
			}
			rr.Reviewer = "@" + org + "/" + e.RequestedTeam.GetSlug()
		case e.Reviewer != nil:
			rr.Reviewer = "@" + e.Reviewer.GetLogin()
		default:
			continue
		}
		out = append(out, rr)
	}
	return out, err
}
