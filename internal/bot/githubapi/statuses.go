package githubapi

import (
	"context"
	"time"

	"github.com/google/go-github/v60/github"
)

// StatusRecord is one commit status as GitHub lists it: who created it matters to a
// bot that keeps its memory in statuses (only its own count).
type StatusRecord struct {
	ID          int64
	State       string
	Context     string
	Description string
	Creator     string
	CreatedAt   time.Time
}

// StatusesSince lists a commit's statuses of every context, newest first, page by
// page, and stops after the page that reaches one created before since (every page
// when since is zero). GitHub lists a commit's statuses newest first ("the first
// status in the list will be the latest one") and cannot filter them by context: a
// reader that needs only recent ones stops early instead of reading them all.
func (a *Client) StatusesSince(ctx context.Context, owner, repo, sha string, since time.Time) ([]StatusRecord, error) {
	opt := &github.ListOptions{PerPage: 100}
	var out []StatusRecord
	for {
		var page []*github.RepoStatus
		var resp *github.Response
		err := a.call(ctx, func() (r *github.Response, err error) {
			page, r, err = a.Client.Repositories.ListStatuses(ctx, owner, repo, sha, opt)
			resp = r
			return r, err
		})
		if err != nil {
			return out, err
		}
		reached := false
		for _, s := range page {
			out = append(out, record(s))
			reached = reached || s.GetCreatedAt().Time.Before(since)
		}
		if reached || resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

func record(s *github.RepoStatus) StatusRecord {
	return StatusRecord{ID: s.GetID(), State: s.GetState(), Context: s.GetContext(), Description: s.GetDescription(),
		Creator: s.GetCreator().GetLogin(), CreatedAt: s.GetCreatedAt().Time}
}

// ListStatuses lists a commit's statuses of one context, newest first, all pages.
func (a *Client) ListStatuses(ctx context.Context, owner, repo, sha, statusContext string) ([]StatusRecord, error) {
	opt := &github.ListOptions{PerPage: 100}
	all, err := listAll(ctx, a, opt, func() ([]*github.RepoStatus, *github.Response, error) {
		return a.Client.Repositories.ListStatuses(ctx, owner, repo, sha, opt)
	})
	var out []StatusRecord
	for _, s := range all {
		if s.GetContext() == statusContext {
			out = append(out, record(s))
		}
	}
	return out, err
}
