package githubapi

import (
	"context"
	"strings"

	"github.com/google/go-github/v60/github"
)

// CheckRunRef is a check run found on a commit.
type CheckRunRef struct {
	ID int64
	// ExternalID is what its app recorded with it (only the app that created a check
	// run can change it).
	ExternalID string
}

// FindCheckRun finds the newest check run called name on a commit that app (the
// App's slug) created: another App, or a GitHub Actions job of the same name, can put
// a check run of that name on the commit, and GitHub lets only the App that created a
// check run change it. An empty app accepts any.
func (a *Client) FindCheckRun(ctx context.Context, owner, repo, sha, name, app string) (CheckRunRef, bool, error) {
	opt := &github.ListCheckRunsOptions{CheckName: &name, ListOptions: github.ListOptions{PerPage: 100}}
	var found CheckRunRef
	ok := false
	for {
		var res *github.ListCheckRunsResults
		var next int
		err := a.call(ctx, func() (resp *github.Response, err error) {
			res, resp, err = a.Client.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, opt)
			if resp != nil {
				next = resp.NextPage
			}
			return resp, err
		})
		if err != nil {
			return CheckRunRef{}, false, err
		}
		for _, r := range res.CheckRuns {
			if r.GetName() != name || r.GetHeadSHA() != sha || (app != "" && !strings.EqualFold(r.GetApp().GetSlug(), app)) {
				continue
			}
			if !ok || r.GetID() > found.ID {
				found, ok = CheckRunRef{ID: r.GetID(), ExternalID: r.GetExternalID()}, true
			}
		}
		if next == 0 {
			return found, ok, nil
		}
		opt.Page = next
	}
}

func checkOutput(in CheckRunInput) *github.CheckRunOutput {
	out := &github.CheckRunOutput{Title: &in.Title, Summary: &in.Summary}
	for _, an := range in.Annotations {
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
func (a *Client) CreateCheckRun(ctx context.Context, owner, repo string, in CheckRunInput) (int64, error) {
	var run *github.CheckRun
	status, conclusion := "completed", &in.Conclusion
	if in.Conclusion == "" {
		status, conclusion = "in_progress", nil
	}
	err := a.call(ctx, func() (resp *github.Response, err error) {
		run, resp, err = a.Client.Checks.CreateCheckRun(ctx, owner, repo, github.CreateCheckRunOptions{
			Name: in.Name, HeadSHA: in.HeadSHA, Status: &status, Conclusion: conclusion, Output: checkOutput(in), ExternalID: externalID(in)})
		return resp, err
	})
	if err != nil {
		return 0, err
	}
	return run.GetID(), nil
}

// UpdateCheckRun updates a check run (annotations are appended by GitHub).
func (a *Client) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, in CheckRunInput) error {
	status := "completed"
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Checks.UpdateCheckRun(ctx, owner, repo, id, github.UpdateCheckRunOptions{
			Name: in.Name, Status: &status, Conclusion: &in.Conclusion, Output: checkOutput(in), ExternalID: externalID(in)})
		return resp, err
	})
}

// externalID is in's ExternalID to send, or nil to leave the run's as it is.
func externalID(in CheckRunInput) *string {
	if in.ExternalID == "" {
		return nil
	}
	return &in.ExternalID
}

// CommitStatuses lists the states of a commit's statuses of one context that creator
// (a login; "" for anyone) set, newest first, all pages. Anyone who may write
// statuses can set one of any context, so a status counts as the bot's only when
// GitHub says the bot created it.
func (a *Client) CommitStatuses(ctx context.Context, owner, repo, sha, statusContext, creator string) ([]string, error) {
	all, err := a.ListStatuses(ctx, owner, repo, sha, statusContext)
	var out []string
	for _, s := range all {
		if creator == "" || strings.EqualFold(s.Creator, creator) {
			out = append(out, s.State)
		}
	}
	return out, err
}

// CreateStatus sets a commit status.
func (a *Client) CreateStatus(ctx context.Context, owner, repo, sha string, st Status) error {
	rs := &github.RepoStatus{State: &st.State, Context: &st.Context, Description: &st.Description}
	if st.TargetURL != "" {
		rs.TargetURL = &st.TargetURL
	}
	return a.call(ctx, func() (*github.Response, error) {
		_, resp, err := a.Client.Repositories.CreateStatus(ctx, owner, repo, sha, rs)
		return resp, err
	})
}
