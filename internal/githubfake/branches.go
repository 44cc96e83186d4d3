package githubfake

import (
	"net/http"
	"slices"

	"github.com/google/go-github/v60/github"
)

// SetBranch moves branch to sha, as a push to it does (the pull requests into it
// keep the base.sha they had, as GitHub's do until they are next updated). A pull
// request added into a branch never set creates it at its BaseSHA.
func (s *Server) SetBranch(owner, name, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setBranch(s.addRepo(owner, name), branch, sha)
}

func (s *Server) setBranch(rp *repo, branch, sha string) {
	if rp.branches == nil {
		rp.branches = map[string]string{}
	}
	rp.branches[branch] = sha
}

// SetMergeCommit records GitHub's test merge of pull request n (refs/pull/n/merge):
// merge_commit_sha while it is open and mergeable.
func (s *Server) SetMergeCommit(owner, name string, n int, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	p.pr.MergeCommitSHA = github.String(sha)
	p.pr.Mergeable = github.Bool(sha != "")
}

func (s *Server) getBranch(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		b := r.PathValue("branch")
		sha, ok := rp.branches[b]
		if !ok {
			writeError(w, http.StatusNotFound, "Branch not found")
			return
		}
		writeJSON(w, http.StatusOK, &github.Branch{Name: github.String(b), Commit: &github.RepositoryCommit{SHA: github.String(sha)}})
	})
}

// listCommitPulls lists the pull requests whose head is the commit, or that merged
// it, open and closed, oldest first.
func (s *Server) listCommitPulls(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		sha := r.PathValue("ref")
		var out []*github.PullRequest
		for _, p := range rp.pulls {
			if p.pr.GetHead().GetSHA() == sha || (p.pr.GetMerged() && p.pr.GetMergeCommitSHA() == sha) {
				out = append(out, s.pullJSON(rp, p))
			}
		}
		slices.SortFunc(out, func(a, b *github.PullRequest) int { return a.GetNumber() - b.GetNumber() })
		paginate(w, r, out)
	})
}

// PushEvent is the payload of a push webhook moving branch from before to after
// (SetBranch first, as GitHub moves the branch before it sends the event).
func (s *Server) PushEvent(owner, name, branch, before, after, sender string) *github.PushEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.addRepo(owner, name)
	repoJSON, user, inst := s.eventContext(rp, sender)
	return &github.PushEvent{
		Ref: github.String("refs/heads/" + branch), Before: github.String(before), After: github.String(after),
		Repo: &github.PushEventRepository{
			Name: repoJSON.Name, FullName: repoJSON.FullName, DefaultBranch: repoJSON.DefaultBranch,
			CloneURL: repoJSON.CloneURL, HTMLURL: repoJSON.HTMLURL,
			Owner: &github.User{Login: github.String(rp.owner), Name: github.String(rp.owner)},
		},
		Sender: user, Installation: inst,
	}
}

// StatusEvent is the payload of a status webhook: sender set context to state on sha.
func (s *Server) StatusEvent(owner, name, sha, context, state, sender string) *github.StatusEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.addRepo(owner, name)
	repoJSON, user, inst := s.eventContext(rp, sender)
	return &github.StatusEvent{
		SHA: github.String(sha), Context: github.String(context), State: github.String(state),
		Repo: repoJSON, Sender: user, Installation: inst,
	}
}
