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

// ListStatuses lists a commit's statuses of one context, newest first, all pages.
func (a *Client) ListStatuses(ctx context.Context, owner, repo, sha, statusContext string) ([]StatusRecord, error) {
	opt := &github.ListOptions{PerPage: 100}
	all, err := listAll(ctx, a, opt, func() ([]*github.RepoStatus, *github.Response, error) {
		return a.Client.Repositories.ListStatuses(ctx, owner, repo, sha, opt)
	})
	var out []StatusRecord
	for _, s := range all {
		if s.GetContext() == statusContext {
			out = append(out, StatusRecord{ID: s.GetID(), State: s.GetState(), Context: s.GetContext(), Description: s.GetDescription(),
				Creator: s.GetCreator().GetLogin(), CreatedAt: s.GetCreatedAt().Time})
		}
	}
	return out, err
}
