package githubfake

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

func (s *Server) teamJSON(t *team) *github.Team {
	if t == nil {
		return nil
	}
	return &github.Team{
		ID:      github.Int64(t.id),
		Slug:    github.String(t.slug),
		Name:    github.String(t.slug),
		URL:     github.String(fmt.Sprintf("%s/orgs/%s/teams/%s", s.ts.URL, t.org, t.slug)),
		HTMLURL: github.String(fmt.Sprintf("https://github.com/orgs/%s/teams/%s", t.org, t.slug)),
	}
}

// listTeamMembers answers GET /orgs/{org}/teams/{slug}/members; a workflow's
// GITHUB_TOKEN is refused (it has no organisation permissions).
func (s *Server) listTeamMembers(w http.ResponseWriter, r *http.Request) {
	if isActions(r) {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.inTeam(w, r, func(t *team) {
		users := make([]*github.User, 0, len(t.members))
		for _, m := range t.members {
			users = append(users, s.user(m))
		}
		paginate(w, r, users)
	})
}

func (s *Server) getTeamMembership(w http.ResponseWriter, r *http.Request) {
	s.inTeam(w, r, func(t *team) {
		i := slices.IndexFunc(t.members, func(m string) bool { return strings.EqualFold(m, r.PathValue("user")) })
		if i < 0 {
			notFound(w)
			return
		}
		writeJSON(w, http.StatusOK, github.Membership{
			URL:   github.String(fmt.Sprintf("%s/orgs/%s/teams/%s/memberships/%s", s.ts.URL, t.org, t.slug, t.members[i])),
			Role:  github.String("member"),
			State: github.String("active"),
		})
	})
}

// inTeam holds s.mu and runs f with team {org}/{slug}, or answers 404.
func (s *Server) inTeam(w http.ResponseWriter, r *http.Request, f func(t *team)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.teams[key(r.PathValue("org"), r.PathValue("slug"))]
	if !ok {
		notFound(w)
		return
	}
	f(t)
}
