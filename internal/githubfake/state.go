package githubfake

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// repo is one repository's state.
type repo struct {
	owner, name string
	id          int64
	cloneURL    string
	nextNumber  int
	pulls       map[int]*pull
	labels      map[string]*github.Label // key: lower-case name
	comments    []*comment
	checkRuns   []*checkRun
	statuses    []*status
	branches    map[string]string // branch name -> head SHA (branches.go)
}

// pull is a pull request and the issue that carries its comments and labels.
type pull struct {
	pr       *github.PullRequest
	files    []*github.CommitFile
	reviews  []*github.PullRequestReview
	reqUsers []string
	reqTeams []string // slugs
	timeline []*github.Timeline
	labels   []string // lower-case keys into repo.labels
}

type comment struct {
	issue int
	c     *github.IssueComment
}

type team struct {
	org, slug string
	id        int64
	members   []string
}

func key(a, b string) string { return strings.ToLower(a + "/" + b) }

// PullRequest describes a pull request a test opens with AddPullRequest.
type PullRequest struct {
	Number  int    // 0 picks the next free number
	Author  string // login of the author
	Title   string
	Body    string
	HeadSHA string
	BaseSHA string
	HeadRef string // default "feature"
	BaseRef string // default "main"
	Draft   bool
	Files   []*github.CommitFile // what GET .../pulls/{n}/files lists
}

// AddRepo creates the repository owner/name if it does not exist. Requests to
// repositories never added answer 404.
func (s *Server) AddRepo(owner, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addRepo(owner, name)
}

func (s *Server) addRepo(owner, name string) *repo {
	k := key(owner, name)
	if rp, ok := s.repos[k]; ok {
		return rp
	}
	rp := &repo{owner: owner, name: name, id: s.id(), pulls: map[int]*pull{}, labels: map[string]*github.Label{}}
	s.repos[k] = rp
	return rp
}

// AddPullRequest opens a pull request in owner/name (creating the repository
// if needed) and returns its number.
func (s *Server) AddPullRequest(owner, name string, p PullRequest) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.addRepo(owner, name)
	n := p.Number
	if n == 0 {
		n = rp.nextNumber + 1
	}
	if _, ok := rp.pulls[n]; ok {
		panic(fmt.Sprintf("githubfake: pull request %s/%s#%d already exists", owner, name, n))
	}
	rp.nextNumber = max(rp.nextNumber, n)
	headRef, baseRef := p.HeadRef, p.BaseRef
	defer func() { // the base branch exists on GitHub: at BaseSHA unless set before
		if _, ok := rp.branches[baseRef]; !ok && p.BaseSHA != "" {
			s.setBranch(rp, baseRef, p.BaseSHA)
		}
	}()
	if headRef == "" {
		headRef = "feature"
	}
	if baseRef == "" {
		baseRef = "main"
	}
	now := github.Timestamp{Time: s.now()}
	repoJSON := s.repoJSON(rp)
	api := fmt.Sprintf("%s/repos/%s/%s", s.ts.URL, owner, name)
	rp.pulls[n] = &pull{
		pr: &github.PullRequest{
			ID:        github.Int64(s.id()),
			Number:    github.Int(n),
			State:     github.String("open"),
			Title:     github.String(p.Title),
			Body:      github.String(p.Body),
			Draft:     github.Bool(p.Draft),
			User:      s.user(p.Author),
			CreatedAt: &now,
			UpdatedAt: &now,
			URL:       github.String(fmt.Sprintf("%s/pulls/%d", api, n)),
			HTMLURL:   github.String(fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, name, n)),
			IssueURL:  github.String(fmt.Sprintf("%s/issues/%d", api, n)),
			Head:      &github.PullRequestBranch{Ref: github.String(headRef), SHA: github.String(p.HeadSHA), Repo: repoJSON, Label: github.String(owner + ":" + headRef)},
			Base:      &github.PullRequestBranch{Ref: github.String(baseRef), SHA: github.String(p.BaseSHA), Repo: repoJSON, Label: github.String(owner + ":" + baseRef)},
			Merged:    github.Bool(false),
		},
		files: clone(p.Files),
	}
	return n
}

// Push moves the head of pull request n to sha, as a push to its branch does.
func (s *Server) Push(owner, name string, n int, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	p.pr.Head.SHA = github.String(sha)
	p.pr.UpdatedAt = &github.Timestamp{Time: s.now()}
}

// SetBase retargets pull request n to base branch ref at sha, as editing the
// base does; deliver PullRequestEvent "edited" with Changes.Base set after it.
func (s *Server) SetBase(owner, name string, n int, ref, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	p.pr.Base.Ref = github.String(ref)
	p.pr.Base.SHA = github.String(sha)
	p.pr.Base.Label = github.String(owner + ":" + ref)
	p.pr.UpdatedAt = &github.Timestamp{Time: s.now()}
}

// SetDraft marks pull request n as a draft or, with false, ready for review.
func (s *Server) SetDraft(owner, name string, n int, draft bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	p.pr.Draft = github.Bool(draft)
	p.pr.UpdatedAt = &github.Timestamp{Time: s.now()}
}

// SetFiles replaces what GET .../pulls/{n}/files lists.
func (s *Server) SetFiles(owner, name string, n int, files []*github.CommitFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustPull(owner, name, n).files = clone(files)
}

// SetState closes ("closed") or reopens ("open") pull request n without
// merging it; Merge merges it.
func (s *Server) SetState(owner, name string, n int, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	p.pr.State = github.String(state)
	now := github.Timestamp{Time: s.now()}
	p.pr.UpdatedAt = &now
	p.pr.ClosedAt = nil
	if state == "closed" {
		p.pr.ClosedAt = &now
	}
}

// Merge closes pull request n as merged into its base with merge commit sha.
func (s *Server) Merge(owner, name string, n int, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	now := github.Timestamp{Time: s.now()}
	p.pr.State = github.String("closed")
	p.pr.Merged = github.Bool(true)
	p.pr.MergeCommitSHA = github.String(sha)
	p.pr.MergedAt, p.pr.ClosedAt, p.pr.UpdatedAt = &now, &now, &now
}

// AddReview submits a review by login on pull request n at the pull request's
// current head SHA, and returns its id. state is APPROVED, CHANGES_REQUESTED,
// COMMENTED or DISMISSED. As on GitHub, a submitted review satisfies the
// reviewer's pending review request, and those of the requested teams the
// reviewer is a member of (a review "on behalf of" the team).
func (s *Server) AddReview(owner, name string, n int, login, state string, at time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	return s.addReview(p, login, state, p.pr.GetHead().GetSHA(), at)
}

// AddReviewOnCommit is AddReview on a given commit, for reviews left on an
// earlier head.
func (s *Server) AddReviewOnCommit(owner, name string, n int, login, state, commitID string, at time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addReview(s.mustPull(owner, name, n), login, state, commitID, at)
}

func (s *Server) addReview(p *pull, login, state, commitID string, at time.Time) int64 {
	switch state {
	case "APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED":
	default:
		panic(fmt.Sprintf("githubfake: review state %q is not one of APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED", state))
	}
	id := s.id()
	p.reviews = append(p.reviews, &github.PullRequestReview{
		ID:                github.Int64(id),
		User:              s.user(login),
		State:             github.String(state),
		CommitID:          github.String(commitID),
		SubmittedAt:       &github.Timestamp{Time: at.UTC().Truncate(time.Second)},
		Body:              github.String(""),
		PullRequestURL:    p.pr.URL,
		HTMLURL:           github.String(fmt.Sprintf("%s#pullrequestreview-%d", p.pr.GetHTMLURL(), id)),
		AuthorAssociation: github.String("MEMBER"),
	})
	p.reqUsers = slices.DeleteFunc(p.reqUsers, func(u string) bool { return strings.EqualFold(u, login) })
	org := p.pr.GetBase().GetRepo().GetOwner().GetLogin()
	p.reqTeams = slices.DeleteFunc(p.reqTeams, func(slug string) bool {
		t := s.teams[key(org, slug)]
		return t != nil && slices.ContainsFunc(t.members, func(m string) bool { return strings.EqualFold(m, login) })
	})
	return id
}

// DismissReview turns review id into a DISMISSED one, as a dismissal does.
func (s *Server) DismissReview(owner, name string, n int, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rv := range s.mustPull(owner, name, n).reviews {
		if rv.GetID() == id {
			rv.State = github.String("DISMISSED")
			return
		}
	}
	panic(fmt.Sprintf("githubfake: no review %d on %s/%s#%d", id, owner, name, n))
}

// AddTeamMember adds login to team org/slug, creating the team if needed.
func (s *Server) AddTeamMember(org, slug, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.addTeam(org, slug)
	if !slices.ContainsFunc(t.members, func(m string) bool { return strings.EqualFold(m, login) }) {
		t.members = append(t.members, login)
	}
}

// AddTeam creates team org/slug with no members.
func (s *Server) AddTeam(org, slug string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addTeam(org, slug)
}

// RemoveTeamMember removes login from team org/slug.
func (s *Server) RemoveTeamMember(org, slug, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.teams[key(org, slug)]; ok {
		t.members = slices.DeleteFunc(t.members, func(m string) bool { return strings.EqualFold(m, login) })
	}
}

func (s *Server) addTeam(org, slug string) *team {
	k := key(org, slug)
	if t, ok := s.teams[k]; ok {
		return t
	}
	t := &team{org: org, slug: slug, id: s.id()}
	s.teams[k] = t
	return t
}

func (s *Server) mustPull(owner, name string, n int) *pull {
	rp, ok := s.repos[key(owner, name)]
	if !ok {
		panic(fmt.Sprintf("githubfake: no repository %s/%s", owner, name))
	}
	p, ok := rp.pulls[n]
	if !ok {
		panic(fmt.Sprintf("githubfake: no pull request %s/%s#%d", owner, name, n))
	}
	return p
}

// repoOf finds the request's repository or answers 404; callers hold s.mu.
func (s *Server) repoOf(w http.ResponseWriter, r *http.Request) *repo {
	rp, ok := s.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	if !ok {
		notFound(w)
		return nil
	}
	return rp
}

// inRepo holds s.mu and runs f with the request's repository, or answers 404.
func (s *Server) inRepo(w http.ResponseWriter, r *http.Request, f func(rp *repo)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repoOf(w, r); rp != nil {
		f(rp)
	}
}

// inPull holds s.mu and runs f with the request's repository and pull request
// (or issue) {number}, or answers 404.
func (s *Server) inPull(w http.ResponseWriter, r *http.Request, f func(rp *repo, p *pull)) {
	s.inRepo(w, r, func(rp *repo) {
		n, ok := pathInt(r, "number")
		p := rp.pulls[int(n)]
		if !ok || p == nil {
			notFound(w)
			return
		}
		f(rp, p)
	})
}
