package githubfake

import (
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
)

// getApp answers GET /app, authenticated with the app's JWT: the App's slug, from
// which its bot login "<slug>[bot]" follows.
func (s *Server) getApp(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.appAuth(w, r) {
		return
	}
	slug := strings.TrimSuffix(s.botLogin, "[bot]")
	writeJSON(w, http.StatusOK, github.App{ID: github.Int64(s.app.id), Slug: github.String(slug), Name: github.String(slug)})
}

// getUser answers GET /user: the token's user. An installation token gets 403, as
// on GitHub (an App learns its login from GET /app).
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(bearer(r), "ghs_fake_") || isActions(r) {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.user(actor(r)))
}

// isActions reports whether the request came with a workflow's GITHUB_TOKEN.
func isActions(r *http.Request) bool {
	info, _ := r.Context().Value(actorKey{}).(tokenInfo)
	return info.actions
}

// listTimeline answers GET /repos/{owner}/{repo}/issues/{number}/timeline with the
// pull request's review_requested events, oldest first.
func (s *Server) listTimeline(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(_ *repo, p *pull) {
		paginate(w, r, clone(p.timeline))
	})
}
