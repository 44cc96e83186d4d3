package githubfake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// repoJSON is the repository as GitHub shows it in pull requests and
// webhooks; callers hold s.mu.
func (s *Server) repoJSON(rp *repo) *github.Repository {
	full := rp.owner + "/" + rp.name
	clone := rp.cloneURL
	if clone == "" {
		clone = "https://github.com/" + full + ".git"
	}
	return &github.Repository{
		ID:            github.Int64(rp.id),
		NodeID:        github.String(fmt.Sprintf("R_%d", rp.id)),
		Name:          github.String(rp.name),
		FullName:      github.String(full),
		Owner:         s.user(rp.owner),
		DefaultBranch: github.String("main"),
		Private:       github.Bool(true),
		CloneURL:      github.String(clone),
		HTMLURL:       github.String("https://github.com/" + full),
		URL:           github.String(s.ts.URL + "/repos/" + full),
	}
}

// SetCloneURL sets the clone_url that the repository's JSON (and so every
// webhook payload) carries, for example a file:// URL of a test repository.
func (s *Server) SetCloneURL(owner, name, url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addRepo(owner, name).cloneURL = url
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		writeJSON(w, http.StatusOK, s.repoJSON(rp))
	})
}

// eventContext fills the fields every webhook payload carries; callers hold s.mu.
func (s *Server) eventContext(rp *repo, sender string) (*github.Repository, *github.User, *github.Installation) {
	var inst *github.Installation
	if id := s.installationOf(rp.owner); id != 0 {
		inst = &github.Installation{ID: github.Int64(id), NodeID: github.String(fmt.Sprintf("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u%d", id))}
	}
	return s.repoJSON(rp), s.user(sender), inst
}

// PullRequestEvent is the payload of a pull_request webhook with action
// (opened, synchronize, reopened, ready_for_review, edited, closed) for pull
// request n in its current state, sent by sender. For synchronize, set Before
// and After on the result.
func (s *Server) PullRequestEvent(owner, name string, n int, action, sender string) *github.PullRequestEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	rp := s.repos[key(owner, name)]
	repoJSON, user, inst := s.eventContext(rp, sender)
	ev := &github.PullRequestEvent{
		Action:       github.String(action),
		Number:       github.Int(n),
		PullRequest:  s.pullJSON(rp, p),
		Repo:         repoJSON,
		Sender:       user,
		Installation: inst,
	}
	if action == "synchronize" {
		ev.After = p.pr.GetHead().SHA
	}
	return ev
}

// ReviewEvent is the payload of a pull_request_review webhook with action
// (submitted, edited, dismissed) for review id on pull request n.
func (s *Server) ReviewEvent(owner, name string, n int, id int64, action string) *github.PullRequestReviewEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	rp := s.repos[key(owner, name)]
	for _, rv := range p.reviews {
		if rv.GetID() == id {
			repoJSON, user, inst := s.eventContext(rp, rv.GetUser().GetLogin())
			return &github.PullRequestReviewEvent{
				Action:       github.String(action),
				Review:       clone(rv),
				PullRequest:  s.pullJSON(rp, p),
				Repo:         repoJSON,
				Sender:       user,
				Installation: inst,
			}
		}
	}
	panic(fmt.Sprintf("githubfake: no review %d on %s/%s#%d", id, owner, name, n))
}

// IssueCommentEvent is the payload of an issue_comment webhook with action
// (created, edited, deleted) for comment id on pull request n. Its issue
// carries the pull_request link by which GitHub marks a pull request's issue.
func (s *Server) IssueCommentEvent(owner, name string, n int, id int64, action string) *github.IssueCommentEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	rp := s.repos[key(owner, name)]
	for _, c := range rp.comments {
		if c.c.GetID() != id {
			continue
		}
		repoJSON, user, inst := s.eventContext(rp, c.c.GetUser().GetLogin())
		return &github.IssueCommentEvent{
			Action: github.String(action),
			Issue: &github.Issue{
				ID:               p.pr.ID,
				Number:           github.Int(n),
				Title:            p.pr.Title,
				State:            p.pr.State,
				User:             p.pr.User,
				Labels:           s.issueLabels(rp, p),
				URL:              p.pr.IssueURL,
				PullRequestLinks: &github.PullRequestLinks{URL: p.pr.URL, HTMLURL: p.pr.HTMLURL},
			},
			Comment:      clone(c.c),
			Repo:         repoJSON,
			Sender:       user,
			Installation: inst,
		}
	}
	panic(fmt.Sprintf("githubfake: no comment %d on %s/%s", id, owner, name))
}

// Sign returns the X-Hub-Signature-256 value GitHub sends for body with the
// webhook secret: "sha256=" and the hex HMAC-SHA256.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Deliver posts payload to url as GitHub delivers a webhook: JSON body,
// X-GitHub-Event, a fresh X-GitHub-Delivery id, and X-Hub-Signature-256 signed
// with secret (none when secret is empty). The caller closes the response body.
func Deliver(ctx context.Context, client *http.Client, url, secret, event string, payload any) (*http.Response, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", event, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("deliver %s: %w", event, err)
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/githubfake")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:]))
	if secret != "" {
		req.Header.Set("X-Hub-Signature-256", Sign(secret, body))
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("deliver %s: %w", event, err)
	}
	return resp, nil
}
