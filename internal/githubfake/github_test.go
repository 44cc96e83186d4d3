package githubfake

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

func TestLabelsAreIdempotent(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	if _, resp, err := c.Issues.CreateLabel(ctx, owner, name, &github.Label{Name: github.String("contract: breaking"), Color: github.String("d73a4a")}); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create label: %v", err)
	}
	_, _, err := c.Issues.CreateLabel(ctx, owner, name, &github.Label{Name: github.String("Contract: Breaking")})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || er.Message != "Validation Failed" ||
		len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" {
		t.Fatalf("second create: %v, want 422 Validation Failed already_exists", err)
	}
	for range 2 {
		got, _, err := c.Issues.AddLabelsToIssue(ctx, owner, name, 1, []string{"contract: breaking", "needs-signoff"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("AddLabelsToIssue returned %d labels, want 2", len(got))
		}
	}
	if got := s.Labels(owner, name, 1); !slices.Equal(got, []string{"contract: breaking", "needs-signoff"}) {
		t.Errorf("Labels = %q", got)
	}
	// The label added by name took the existing definition, colour included.
	ls, _, err := c.Issues.ListLabelsByIssue(ctx, owner, name, 1, nil)
	if err != nil || ls[0].GetColor() != "d73a4a" {
		t.Errorf("ListLabelsByIssue = %v, %v", ls, err)
	}
	if len(s.RepoLabels(owner, name)) != 2 {
		t.Errorf("RepoLabels = %v, want the created and the auto-created label", s.RepoLabels(owner, name))
	}
	if _, err := c.Issues.RemoveLabelForIssue(ctx, owner, name, 1, "needs-signoff"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Issues.RemoveLabelForIssue(ctx, owner, name, 1, "needs-signoff"); statusOf(err) != 404 {
		t.Errorf("removing an absent label: %v, want 404", err)
	}
	if _, _, err := c.Issues.ReplaceLabelsForIssue(ctx, owner, name, 1, []string{"contract: safe"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Labels(owner, name, 1); !slices.Equal(got, []string{"contract: safe"}) {
		t.Errorf("after replace Labels = %q", got)
	}
}

func annotations(n int) []*github.CheckRunAnnotation {
	out := make([]*github.CheckRunAnnotation, n)
	for i := range out {
		out[i] = &github.CheckRunAnnotation{
			Path: github.String("contracts/orders/order.avsc"), StartLine: github.Int(i + 1), EndLine: github.Int(i + 1),
			AnnotationLevel: github.String("failure"), Message: github.String(fmt.Sprintf("finding %d", i)),
		}
	}
	return out
}

func TestCheckRuns(t *testing.T) {
	s, c, clk := setup(t)
	ctx := ctx(t)
	out := func(n int) *github.CheckRunOutput {
		return &github.CheckRunOutput{Title: github.String("BREAKING"), Summary: github.String("2 consumers"), Annotations: annotations(n)}
	}
	_, _, err := c.Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{Name: "contractbot", HeadSHA: head, Output: out(51)})
	if statusOf(err) != 422 {
		t.Fatalf("51 annotations: %v, want 422", err)
	}
	if n := len(s.CheckRuns(owner, name, head)); n != 0 {
		t.Fatalf("a refused create left %d check runs", n)
	}
	if _, _, err := c.Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{Name: "contractbot"}); statusOf(err) != 422 {
		t.Errorf("missing head_sha: %v, want 422", err)
	}
	first, _, err := c.Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{
		Name: "contractbot", HeadSHA: head, Status: github.String("in_progress"), Output: out(50),
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.GetStatus() != "in_progress" || first.GetOutput().GetAnnotationsCount() != 50 || first.GetHeadSHA() != head {
		t.Errorf("created: status %q, %d annotations, sha %q", first.GetStatus(), first.GetOutput().GetAnnotationsCount(), first.GetHeadSHA())
	}
	clk.Advance(time.Minute)
	upd, _, err := c.Checks.UpdateCheckRun(ctx, owner, name, first.GetID(), github.UpdateCheckRunOptions{
		Conclusion: github.String("action_required"), Output: out(30),
	})
	if err != nil {
		t.Fatal(err)
	}
	if upd.GetStatus() != "completed" || upd.GetConclusion() != "action_required" || upd.GetName() != "contractbot" ||
		upd.GetOutput().GetAnnotationsCount() != 80 || !upd.GetCompletedAt().Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("updated: %s/%s name %q, %d annotations, completed %v", upd.GetStatus(), upd.GetConclusion(), upd.GetName(), upd.GetOutput().GetAnnotationsCount(), upd.GetCompletedAt())
	}
	if got := s.CheckRunAnnotations(owner, name, first.GetID()); len(got) != 80 || got[79].GetMessage() != "finding 29" {
		t.Errorf("CheckRunAnnotations: %d, want 80 appended in order", len(got))
	}
	if _, _, err := c.Checks.UpdateCheckRun(ctx, owner, name, first.GetID(), github.UpdateCheckRunOptions{Output: out(51)}); statusOf(err) != 422 {
		t.Errorf("update with 51 annotations: %v, want 422", err)
	}
	if _, _, err := c.Checks.UpdateCheckRun(ctx, owner, name, first.GetID(), github.UpdateCheckRunOptions{Status: github.String("completed")}); statusOf(err) != 422 {
		t.Errorf("completed without a conclusion: %v, want 422", err)
	}
	// A second run of the same name, and one of another name.
	second, _, err := c.Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{Name: "contractbot", HeadSHA: head, Conclusion: github.String("success")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{Name: "lint", HeadSHA: head}); err != nil {
		t.Fatal(err)
	}
	res, _, err := c.Checks.ListCheckRunsForRef(ctx, owner, name, head, &github.ListCheckRunsOptions{CheckName: github.String("contractbot")})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetTotal() != 1 || res.CheckRuns[0].GetID() != second.GetID() {
		t.Errorf("latest contractbot run: total %d, want 1 run with id %d", res.GetTotal(), second.GetID())
	}
	res, _, err = c.Checks.ListCheckRunsForRef(ctx, owner, name, head, &github.ListCheckRunsOptions{CheckName: github.String("contractbot"), Filter: github.String("all")})
	if err != nil || res.GetTotal() != 2 {
		t.Errorf("all contractbot runs: %v, %v; want 2", res.GetTotal(), err)
	}
	res, _, err = c.Checks.ListCheckRunsForRef(ctx, owner, name, "other", nil)
	if err != nil || res.GetTotal() != 0 {
		t.Errorf("runs on another sha: %v, %v; want 0", res.GetTotal(), err)
	}
	got, _, err := c.Checks.ListCheckRunAnnotations(ctx, owner, name, first.GetID(), &github.ListOptions{PerPage: 100})
	if err != nil || len(got) != 80 {
		t.Errorf("ListCheckRunAnnotations: %d, %v; want 80", len(got), err)
	}
	// Another App's run of the same name: listed beside ours (its own check suite),
	// and only its App may change it.
	foreign := s.AddCheckRunAs(owner, name, head, "contractbot", "impostor", "success")
	res, _, err = c.Checks.ListCheckRunsForRef(ctx, owner, name, head, &github.ListCheckRunsOptions{CheckName: github.String("contractbot")})
	if err != nil || res.GetTotal() != 2 {
		t.Errorf("latest contractbot runs of two Apps: %v, %v; want 2", res.GetTotal(), err)
	}
	_, _, err = c.Checks.UpdateCheckRun(ctx, owner, name, foreign, github.UpdateCheckRunOptions{Name: "contractbot", Conclusion: github.String("failure")})
	var er *github.ErrorResponse
	if statusOf(err) != 403 || !errors.As(err, &er) || !strings.Contains(er.Message, "can only be modified by the GitHub App that created it") {
		t.Errorf("update of another App's run: %v, want 403", err)
	}
}

func TestCommitStatuses(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	if _, _, err := c.Repositories.CreateStatus(ctx, owner, name, head, &github.RepoStatus{State: github.String("done")}); statusOf(err) != 422 {
		t.Errorf("invalid state: %v, want 422", err)
	}
	for _, st := range []string{"pending", "success"} {
		if _, _, err := c.Repositories.CreateStatus(ctx, owner, name, head, &github.RepoStatus{State: github.String(st), Context: github.String("contractbot/publish")}); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := c.Repositories.ListStatuses(ctx, owner, name, head, nil)
	if err != nil || len(got) != 2 || got[0].GetState() != "success" || got[0].GetContext() != "contractbot/publish" {
		t.Errorf("ListStatuses = %v, %v; want success first", got, err)
	}
	combined, _, err := c.Repositories.GetCombinedStatus(ctx, owner, name, head, nil)
	if err != nil || combined.GetState() != "success" || combined.GetTotalCount() != 1 {
		t.Errorf("combined: %v %d, %v; want success over 1 context", combined.GetState(), combined.GetTotalCount(), err)
	}
	if _, _, err := c.Repositories.CreateStatus(ctx, owner, name, head, &github.RepoStatus{State: github.String("failure"), Context: github.String("lint")}); err != nil {
		t.Fatal(err)
	}
	if combined, _, _ := c.Repositories.GetCombinedStatus(ctx, owner, name, head, nil); combined.GetState() != "failure" || combined.GetTotalCount() != 2 {
		t.Errorf("combined after a failure: %v %d", combined.GetState(), combined.GetTotalCount())
	}
	if combined, _, _ := c.Repositories.GetCombinedStatus(ctx, owner, name, "none", nil); combined.GetState() != "pending" {
		t.Errorf("combined without statuses: %v, want pending", combined.GetState())
	}
	if n := len(s.Statuses(owner, name, head)); n != 3 {
		t.Errorf("Statuses: %d, want 3", n)
	}
	// GitHub keeps at most 1,000 statuses per commit and context.
	for i := 0; i <= MaxStatusesPerContext; i++ {
		_, _, err := c.Repositories.CreateStatus(ctx, owner, name, head, &github.RepoStatus{State: github.String("pending"), Context: github.String("full")})
		if want := i < MaxStatusesPerContext; (err == nil) != want {
			t.Fatalf("status %d of one context: %v", i+1, err)
		}
	}
	if _, _, err := c.Repositories.CreateStatus(ctx, owner, name, head, &github.RepoStatus{State: github.String("pending"), Context: github.String("other")}); err != nil {
		t.Errorf("another context of a full commit: %v", err)
	}
}

func TestTeams(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	for i := range 45 {
		s.AddTeamMember(owner, "data-warehouse", fmt.Sprintf("dw%02d", i))
	}
	m, _, err := c.Teams.GetTeamMembershipBySlug(ctx, owner, "data-warehouse", "dw07")
	if err != nil || m.GetState() != "active" || m.GetRole() != "member" {
		t.Errorf("member: %v, %v", m, err)
	}
	if _, _, err := c.Teams.GetTeamMembershipBySlug(ctx, owner, "data-warehouse", "alice"); statusOf(err) != 404 {
		t.Errorf("non-member: %v, want 404", err)
	}
	s.RemoveTeamMember(owner, "data-warehouse", "dw07")
	if _, _, err := c.Teams.GetTeamMembershipBySlug(ctx, owner, "data-warehouse", "dw07"); statusOf(err) != 404 {
		t.Errorf("removed member: %v, want 404", err)
	}
	var all []string
	opts := &github.TeamListTeamMembersOptions{}
	for {
		us, resp, err := c.Teams.ListTeamMembersBySlug(ctx, owner, "data-warehouse", opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			all = append(all, u.GetLogin())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 44 || all[0] != "dw00" {
		t.Errorf("members over pages: %d, want 44", len(all))
	}
}

func TestReviewsAndReviewRequests(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	s.AddTeamMember(owner, "data-warehouse", "dave")
	pr, resp, err := c.PullRequests.RequestReviewers(ctx, owner, name, 1, github.ReviewersRequest{Reviewers: []string{"dave"}, TeamReviewers: []string{"data-warehouse"}})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("RequestReviewers: %v", err)
	}
	if len(pr.RequestedReviewers) != 1 || len(pr.RequestedTeams) != 1 || pr.RequestedTeams[0].GetSlug() != "data-warehouse" {
		t.Errorf("requested: %v %v", pr.RequestedReviewers, pr.RequestedTeams)
	}
	if _, _, err := c.PullRequests.RequestReviewers(ctx, owner, name, 1, github.ReviewersRequest{Reviewers: []string{"alice"}}); statusOf(err) != 422 {
		t.Errorf("requesting the author: %v, want 422", err)
	}
	if _, _, err := c.PullRequests.RequestReviewers(ctx, owner, name, 1, github.ReviewersRequest{TeamReviewers: []string{"ghosts"}}); statusOf(err) != 422 {
		t.Errorf("requesting an unknown team: %v, want 422", err)
	}
	at := t0.Add(2*time.Hour + 500*time.Millisecond)
	s.AddTeamMember(owner, "data-warehouse", "erin")
	s.AddReview(owner, name, 1, "mallory", "COMMENTED", at)
	if users, teams := s.RequestedReviewers(owner, name, 1); len(users) != 1 || len(teams) != 1 {
		t.Errorf("a review by someone else took requests away: %q %q", users, teams)
	}
	s.AddReview(owner, name, 1, "dave", "COMMENTED", at)
	s.Push(owner, name, 1, "3333333333333333333333333333333333333333")
	s.AddReview(owner, name, 1, "dave", "APPROVED", at.Add(time.Hour))
	users, teams := s.RequestedReviewers(owner, name, 1)
	if len(users) != 0 || len(teams) != 0 {
		t.Errorf("after dave (a data-warehouse member) reviewed: users %q teams %q, want none", users, teams)
	}
	if _, _, err := c.PullRequests.RequestReviewers(ctx, owner, name, 1, github.ReviewersRequest{TeamReviewers: []string{"data-warehouse"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PullRequests.RemoveReviewers(ctx, owner, name, 1, github.ReviewersRequest{TeamReviewers: []string{"data-warehouse"}}); err != nil {
		t.Fatal(err)
	}
	if _, teams := s.RequestedReviewers(owner, name, 1); len(teams) != 0 {
		t.Errorf("after removal teams %q", teams)
	}
	for i := range 40 {
		s.AddReview(owner, name, 1, fmt.Sprintf("u%d", i), "COMMENTED", at)
	}
	var all []*github.PullRequestReview
	opts := &github.ListOptions{}
	for {
		rs, resp, err := c.PullRequests.ListReviews(ctx, owner, name, 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rs...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 43 {
		t.Fatalf("reviews over pages: %d, want 43", len(all))
	}
	all = all[1:] // mallory's
	if r := all[1]; r.GetState() != "APPROVED" || r.GetCommitID() != "3333333333333333333333333333333333333333" ||
		!r.GetSubmittedAt().Time.Equal(t0.Add(3*time.Hour)) || r.GetUser().GetLogin() != "dave" {
		t.Errorf("approval: %s on %s at %v by %s", r.GetState(), r.GetCommitID(), r.GetSubmittedAt(), r.GetUser().GetLogin())
	}
	if all[0].GetCommitID() != head {
		t.Errorf("first review on %s, want the head before the push", all[0].GetCommitID())
	}
	s.DismissReview(owner, name, 1, all[1].GetID())
	if got := s.Reviews(owner, name, 1)[2].GetState(); got != "DISMISSED" {
		t.Errorf("dismissed review state %q", got)
	}
}

func TestPullRequests(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	s.AddPullRequest(owner, name, PullRequest{Author: "bob", HeadSHA: "b", BaseSHA: base,
		Files: []*github.CommitFile{{Filename: github.String("contracts/orders/order.avsc"), Status: github.String("modified")}}})
	s.AddPullRequest(owner, name, PullRequest{Author: "carol", HeadSHA: "c", BaseSHA: base})
	s.Merge(owner, name, 3, "5555555555555555555555555555555555555555")
	prs, _, err := c.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{State: "open"})
	if err != nil || len(prs) != 2 || prs[0].GetNumber() != 2 || prs[1].GetNumber() != 1 {
		t.Errorf("open pulls: %d, %v; want #2 then #1", len(prs), err)
	}
	s.Push(owner, name, 1, "4444444444444444444444444444444444444444")
	pr, _, err := c.PullRequests.Get(ctx, owner, name, 1)
	if err != nil || pr.GetHead().GetSHA() != "4444444444444444444444444444444444444444" || pr.GetBase().GetSHA() != base || pr.GetUser().GetLogin() != "alice" {
		t.Errorf("after push: %v, %v", pr, err)
	}
	s.SetBase(owner, name, 1, "release", "8888888888888888888888888888888888888888")
	s.SetDraft(owner, name, 1, true)
	if pr := s.PullRequest(owner, name, 1); pr.GetBase().GetRef() != "release" || pr.GetBase().GetSHA() != "8888888888888888888888888888888888888888" || !pr.GetDraft() {
		t.Errorf("after SetBase and SetDraft: base %s@%s draft %v", pr.GetBase().GetRef(), pr.GetBase().GetSHA(), pr.GetDraft())
	}
	if prs, _, _ := c.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{Base: "release"}); len(prs) != 1 {
		t.Errorf("pulls on base release: %d, want 1", len(prs))
	}
	files, _, err := c.PullRequests.ListFiles(ctx, owner, name, 2, nil)
	if err != nil || len(files) != 1 || files[0].GetFilename() != "contracts/orders/order.avsc" {
		t.Errorf("files: %v, %v", files, err)
	}
	if got := s.PullRequest(owner, name, 3); !got.GetMerged() || got.GetState() != "closed" || got.GetMergeCommitSHA() != "5555555555555555555555555555555555555555" {
		t.Errorf("merged pull: merged %v state %q sha %q", got.GetMerged(), got.GetState(), got.GetMergeCommitSHA())
	}
	s.SetState(owner, name, 2, "closed")
	prs, _, err = c.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{State: "all", Direction: "asc"})
	if err != nil || len(prs) != 3 || prs[0].GetNumber() != 1 || prs[1].GetState() != "closed" || prs[1].GetMerged() {
		t.Errorf("all pulls ascending: %d, %v", len(prs), err)
	}
}

func TestEnterpriseURLs(t *testing.T) {
	s, _, _ := setup(t)
	c, err := github.NewClient(nil).WithAuthToken(DefaultToken).WithEnterpriseURLs(s.URL(), s.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PullRequests.Get(ctx(t), owner, name, 1); err != nil {
		t.Errorf("through /api/v3: %v", err)
	}
	for range 3 {
		s.AddComment(owner, name, 1, "bob", "x")
	}
	_, resp, err := c.Issues.ListComments(ctx(t), owner, name, 1, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || resp.NextPage != 2 || !strings.Contains(resp.Header.Get("Link"), "/api/v3/repos/acme/contracts/issues/1/comments?page=2&per_page=2") {
		t.Errorf("Link under /api/v3: %q, %v", resp.Header.Get("Link"), err)
	}
}

func TestAuthentication(t *testing.T) {
	s, _, _ := setup(t)
	for _, tok := range []string{"", "ghp_unknown"} {
		_, _, err := s.ClientWithToken(tok).PullRequests.Get(ctx(t), owner, name, 1)
		if statusOf(err) != http.StatusUnauthorized {
			t.Errorf("token %q: %v, want 401", tok, err)
		}
	}
	s.AddToken("ghp_alice", "alice")
	cm, _, err := s.ClientWithToken("ghp_alice").Issues.CreateComment(ctx(t), owner, name, 1, &github.IssueComment{Body: github.String("/contractbot recheck")})
	if err != nil || cm.GetUser().GetLogin() != "alice" {
		t.Errorf("comment as alice: %v, %v", cm.GetUser().GetLogin(), err)
	}
	s.RevokeToken("ghp_alice")
	if _, _, err := s.ClientWithToken("ghp_alice").PullRequests.Get(ctx(t), owner, name, 1); statusOf(err) != 401 {
		t.Errorf("revoked token: %v, want 401", err)
	}
}

func TestGitHubLimitsOnBodies(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	long := strings.Repeat("é", 65537)
	if _, _, err := c.Issues.CreateComment(ctx, owner, name, 1, &github.IssueComment{Body: github.String(long)}); statusOf(err) != 422 {
		t.Errorf("65537-character comment: %v, want 422", err)
	}
	if _, _, err := c.Issues.CreateComment(ctx, owner, name, 1, &github.IssueComment{Body: github.String(long[:65536*2])}); err != nil {
		t.Errorf("65536-character comment: %v", err)
	}
	if _, _, err := c.Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{Name: "contractbot", HeadSHA: head,
		Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String(long)}}); statusOf(err) != 422 {
		t.Errorf("long summary: %v, want 422", err)
	}
	if _, _, err := c.Repositories.CreateStatus(ctx, owner, name, head, &github.RepoStatus{State: github.String("success"), Description: github.String(strings.Repeat("x", 141))}); statusOf(err) != 422 {
		t.Errorf("141-character description: %v, want 422", err)
	}
	if _, _, err := c.Issues.CreateLabel(ctx, owner, name, &github.Label{Name: github.String("x"), Color: github.String("red")}); statusOf(err) != 422 {
		t.Errorf("colour red: %v, want 422", err)
	}
	// Check runs are written by apps only.
	s.AddToken("ghp_alice", "alice")
	if _, _, err := s.ClientWithToken("ghp_alice").Checks.CreateCheckRun(ctx, owner, name, github.CreateCheckRunOptions{Name: "x", HeadSHA: head}); statusOf(err) != 403 {
		t.Errorf("check run with a personal token: %v, want 403", err)
	}
}
