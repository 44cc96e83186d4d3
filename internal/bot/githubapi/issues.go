package githubapi

import (
	"context"

	"github.com/google/go-github/v60/github"
)

// ListComments reads every issue comment of the pull request, all pages.
func (a *Client) ListComments(ctx context.Context, owner, repo string, number int) ([]Comment, error) {
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	all, err := listAll(ctx, a, &opt.ListOptions, func() ([]*github.IssueComment, *github.Response, error) {
		return a.Client.Issues.ListComments(ctx, owner, repo, number, opt)
	})
	var out []Comment
	for _, c := range all {
		out = append(out, comment(c))
	}
	return out, err
}

func comment(c *github.IssueComment) Comment {
	return Comment{ID: c.GetID(), Body: c.GetBody(), Login: c.GetUser().GetLogin(), HTMLURL: c.GetHTMLURL(), CreatedAt: c.GetCreatedAt().Time, UpdatedAt: c.GetUpdatedAt().Time}
}

// CreateComment posts a comment and returns it as GitHub stored it.
func (a *Client) CreateComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error) {
	var c *github.IssueComment
	err := a.call(ctx, func() (resp *github.Response, err error) {
		c, resp, err = a.Client.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return Comment{}, err
	}
	return comment(c), nil
}

// EditComment replaces a comment's body.
func (a *Client) EditComment(ctx context.Context, owner, repo string, id int64, body string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &body})
		return resp, err
	})
}

// AddLabels adds labels to the pull request.
func (a *Client) AddLabels(ctx context.Context, owner, repo string, number int, labels []string) error {
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Issues.AddLabelsToIssue(ctx, owner, repo, number, labels)
		return resp, err
	})
}

// RemoveLabel removes a label; one that is already gone is fine.
func (a *Client) RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error {
	err := a.call(ctx, func() (*github.Response, error) {
		return a.Client.Issues.RemoveLabelForIssue(ctx, owner, repo, number, label)
	})
	if IsNotFound(err) {
		return nil
	}
	return err
}

// TeamMembers lists a team's members, all pages.
func (a *Client) TeamMembers(ctx context.Context, org, slug string) ([]string, error) {
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

// AuthenticatedUser returns the login the token acts as (GET /user).
func (a *Client) AuthenticatedUser(ctx context.Context) (string, error) {
	var u *github.User
	err := a.call(ctx, func() (resp *github.Response, err error) {
		u, resp, err = a.Client.Users.Get(ctx, "")
		return resp, err
	})
	return u.GetLogin(), err
}
