package githubfake

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

// pullJSON is the pull request as GitHub shows it; callers hold s.mu.
func (s *Server) pullJSON(rp *repo, p *pull) *github.PullRequest {
	pr := clone(p.pr)
	pr.RequestedReviewers = []*github.User{}
	for _, u := range p.reqUsers {
		pr.RequestedReviewers = append(pr.RequestedReviewers, s.user(u))
	}
	pr.RequestedTeams = []*github.Team{}
	for _, slug := range p.reqTeams {
		pr.RequestedTeams = append(pr.RequestedTeams, s.teamJSON(s.teams[key(rp.owner, slug)]))
	}
	pr.Labels = s.issueLabels(rp, p)
	return pr
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		q := r.URL.Query()
		state := cmp.Or(q.Get("state"), "open")
		if state != "open" && state != "closed" && state != "all" {
			invalid(w, "PullRequest", "state", "invalid", "state must be open, closed or all")
			return
		}
		var out []*github.PullRequest
		for _, p := range rp.pulls {
			if state != "all" && p.pr.GetState() != state {
				continue
			}
			if b := q.Get("base"); b != "" && b != p.pr.GetBase().GetRef() {
				continue
			}
			out = append(out, s.pullJSON(rp, p))
		}
		// GitHub's default order is newest first.
		slices.SortFunc(out, func(a, b *github.PullRequest) int { return b.GetNumber() - a.GetNumber() })
		if q.Get("direction") == "asc" {
			slices.Reverse(out)
		}
		paginate(w, r, out)
	})
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(rp *repo, p *pull) {
		writeJSON(w, http.StatusOK, s.pullJSON(rp, p))
	})
}

func (s *Server) listPullFiles(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(_ *repo, p *pull) {
		paginate(w, r, clone(p.files))
	})
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(_ *repo, p *pull) {
		// Chronological, as GitHub lists them.
		paginate(w, r, clone(p.reviews))
	})
}

// reviewersBody is the body of POST and DELETE .../requested_reviewers.
type reviewersBody struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}

func (s *Server) requestReviewers(w http.ResponseWriter, r *http.Request) {
	var body reviewersBody
	if !readJSON(w, r, &body) {
		return
	}
	s.inPull(w, r, func(rp *repo, p *pull) {
		for _, u := range body.Reviewers {
			if strings.EqualFold(u, p.pr.GetUser().GetLogin()) {
				writeJSON(w, http.StatusUnprocessableEntity, errorBody{
					Message:          "Review cannot be requested from pull request author.",
					DocumentationURL: docsURL,
				})
				return
			}
		}
		for _, t := range body.TeamReviewers {
			if _, ok := s.teams[key(rp.owner, t)]; !ok {
				invalid(w, "PullRequest", "team_reviewers", "invalid",
					fmt.Sprintf("Could not resolve to a team with the slug %q in organization %q.", t, rp.owner))
				return
			}
		}
		for _, u := range body.Reviewers {
			if !slices.ContainsFunc(p.reqUsers, func(x string) bool { return strings.EqualFold(x, u) }) {
				p.reqUsers = append(p.reqUsers, u)
			}
		}
		for _, t := range body.TeamReviewers {
			if !slices.ContainsFunc(p.reqTeams, func(x string) bool { return strings.EqualFold(x, t) }) {
				p.reqTeams = append(p.reqTeams, t)
			}
		}
		at := &github.Timestamp{Time: s.now()}
		for _, u := range body.Reviewers {
			p.timeline = append(p.timeline, &github.Timeline{ID: github.Int64(s.id()), Event: github.String("review_requested"),
				Actor: s.user(actor(r)), Requester: s.user(actor(r)), Reviewer: s.user(u), CreatedAt: at})
		}
		for _, t := range body.TeamReviewers {
			tm := s.teams[key(rp.owner, t)]
			p.timeline = append(p.timeline, &github.Timeline{ID: github.Int64(s.id()), Event: github.String("review_requested"),
				Actor: s.user(actor(r)), Requester: s.user(actor(r)), CreatedAt: at,
				RequestedTeam: &github.Team{ID: github.Int64(tm.id), Slug: github.String(tm.slug), Name: github.String(tm.slug),
					Organization: &github.Organization{Login: github.String(tm.org)}}})
		}
		writeJSON(w, http.StatusCreated, s.pullJSON(rp, p))
	})
}

func (s *Server) removeReviewers(w http.ResponseWriter, r *http.Request) {
	var body reviewersBody
	if !readJSON(w, r, &body) {
		return
	}
	s.inPull(w, r, func(rp *repo, p *pull) {
		in := func(list []string) func(string) bool {
			return func(x string) bool {
				return slices.ContainsFunc(list, func(y string) bool { return strings.EqualFold(x, y) })
			}
		}
		p.reqUsers = slices.DeleteFunc(p.reqUsers, in(body.Reviewers))
		p.reqTeams = slices.DeleteFunc(p.reqTeams, in(body.TeamReviewers))
		writeJSON(w, http.StatusOK, s.pullJSON(rp, p))
	})
}

func (s *Server) listRequestedReviewers(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(rp *repo, p *pull) {
		pr := s.pullJSON(rp, p)
		writeJSON(w, http.StatusOK, github.Reviewers{Users: pr.RequestedReviewers, Teams: pr.RequestedTeams})
	})
}

// PullRequest returns pull request n as GET .../pulls/{n} shows it, or nil.
func (s *Server) PullRequest(owner, name string, n int) *github.PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, ok := s.repos[key(owner, name)]
	if !ok || rp.pulls[n] == nil {
		return nil
	}
	return s.pullJSON(rp, rp.pulls[n])
}

// RequestedReviewers returns the logins and team slugs whose review is
// pending on pull request n, in the order they were requested.
func (s *Server) RequestedReviewers(owner, name string, n int) (users, teams []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	return slices.Clone(p.reqUsers), slices.Clone(p.reqTeams)
}

// Reviews returns the reviews on pull request n, oldest first.
func (s *Server) Reviews(owner, name string, n int) []*github.PullRequestReview {
	s.mu.Lock()
	defer s.mu.Unlock()
	return clone(s.mustPull(owner, name, n).reviews)
}
