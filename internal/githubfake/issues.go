package githubfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(rp *repo, p *pull) {
		paginate(w, r, commentsOf(rp, p.pr.GetNumber()))
	})
}

// commentsOf lists issue n's comments, oldest first; callers hold s.mu.
func commentsOf(rp *repo, n int) []*github.IssueComment {
	out := []*github.IssueComment{}
	for _, c := range rp.comments {
		if c.issue == n {
			out = append(out, clone(c.c))
		}
	}
	return out
}

type commentBody struct {
	Body *string `json:"body"`
}

// validate answers 422 unless the body has a text GitHub takes.
func (b *commentBody) validate(w http.ResponseWriter) bool {
	if b.Body == nil || *b.Body == "" {
		invalid(w, "IssueComment", "body", "missing_field", "")
		return false
	}
	return !tooLong(w, "IssueComment", "body", *b.Body, maxBody)
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	var body commentBody
	if !readJSON(w, r, &body) {
		return
	}
	s.inPull(w, r, func(rp *repo, p *pull) {
		if !body.validate(w) {
			return
		}
		id := s.id()
		now := github.Timestamp{Time: s.now()}
		n := p.pr.GetNumber()
		c := &github.IssueComment{
			ID:                github.Int64(id),
			NodeID:            github.String(fmt.Sprintf("IC_%d", id)),
			Body:              body.Body,
			User:              s.user(actor(r)),
			CreatedAt:         &now,
			UpdatedAt:         &now,
			AuthorAssociation: github.String("NONE"),
			URL:               github.String(fmt.Sprintf("%s/repos/%s/%s/issues/comments/%d", s.ts.URL, rp.owner, rp.name, id)),
			HTMLURL:           github.String(fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", rp.owner, rp.name, n, id)),
			IssueURL:          github.String(fmt.Sprintf("%s/repos/%s/%s/issues/%d", s.ts.URL, rp.owner, rp.name, n)),
		}
		rp.comments = append(rp.comments, &comment{issue: n, c: c})
		writeJSON(w, http.StatusCreated, c)
	})
}

// inComment holds s.mu and runs f with the request's repository and the index
// of its comment {id}, or answers 404.
func (s *Server) inComment(w http.ResponseWriter, r *http.Request, f func(rp *repo, i int)) {
	s.inRepo(w, r, func(rp *repo) {
		if i := pathItem(w, r, rp.comments, func(c *comment) int64 { return c.c.GetID() }); i >= 0 {
			f(rp, i)
		}
	})
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	var body commentBody
	if !readJSON(w, r, &body) {
		return
	}
	s.inComment(w, r, func(rp *repo, i int) {
		if !body.validate(w) {
			return
		}
		c := rp.comments[i].c
		c.Body = body.Body
		c.UpdatedAt = &github.Timestamp{Time: s.now()}
		writeJSON(w, http.StatusOK, c)
	})
}

func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) {
	s.inComment(w, r, func(rp *repo, i int) {
		rp.comments = slices.Delete(rp.comments, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	})
}

// Comments returns the comments on issue or pull request n, oldest first.
func (s *Server) Comments(owner, name string, n int) []*github.IssueComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, ok := s.repos[key(owner, name)]
	if !ok {
		return nil
	}
	return commentsOf(rp, n)
}

// AddComment posts a comment by login on issue or pull request n, as a person
// would, and returns its id.
func (s *Server) AddComment(owner, name string, n int, login, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustPull(owner, name, n)
	rp := s.repos[key(owner, name)]
	id := s.id()
	now := github.Timestamp{Time: s.now()}
	rp.comments = append(rp.comments, &comment{issue: n, c: &github.IssueComment{
		ID:        github.Int64(id),
		Body:      github.String(body),
		User:      s.user(login),
		CreatedAt: &now,
		UpdatedAt: &now,
		IssueURL:  p.pr.IssueURL,
	}})
	return id
}

// Labels.

// labelJSON builds a label; callers hold s.mu.
func (s *Server) newLabel(rp *repo, name, color, description string) *github.Label {
	if color == "" {
		color = "ededed"
	}
	l := &github.Label{
		ID:      github.Int64(s.id()),
		Name:    github.String(name),
		Color:   github.String(strings.TrimPrefix(color, "#")),
		URL:     github.String(fmt.Sprintf("%s/repos/%s/%s/labels/%s", s.ts.URL, rp.owner, rp.name, name)),
		Default: github.Bool(false),
	}
	if description != "" {
		l.Description = github.String(description)
	}
	rp.labels[strings.ToLower(name)] = l
	return l
}

// issueLabels lists pull request p's labels sorted by name; callers hold s.mu.
func (s *Server) issueLabels(rp *repo, p *pull) []*github.Label {
	out := []*github.Label{}
	for _, k := range p.labels {
		out = append(out, clone(rp.labels[k]))
	}
	return sortLabels(out)
}

// sortLabels sorts labels by name, ignoring case, as GitHub lists them.
func sortLabels(labels []*github.Label) []*github.Label {
	slices.SortFunc(labels, func(a, b *github.Label) int {
		return strings.Compare(strings.ToLower(a.GetName()), strings.ToLower(b.GetName()))
	})
	return labels
}

// readLabelNames reads the label names of POST and PUT .../labels, which GitHub
// takes either as a JSON array of names or as {"labels": [...]}.
func readLabelNames(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var raw json.RawMessage
	if !readJSON(w, r, &raw) {
		return nil, false
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err == nil {
		return names, true
	}
	var obj struct {
		Labels []string `json:"labels"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		invalid(w, "Label", "labels", "invalid", "labels must be an array of names")
		return nil, false
	}
	return obj.Labels, true
}

// attach adds the named labels to p, creating missing repository labels;
// callers hold s.mu.
func (s *Server) attach(rp *repo, p *pull, names []string) {
	for _, n := range names {
		k := strings.ToLower(n)
		if _, ok := rp.labels[k]; !ok {
			s.newLabel(rp, n, "", "")
		}
		if !slices.Contains(p.labels, k) {
			p.labels = append(p.labels, k)
		}
	}
}

func (s *Server) listIssueLabels(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(rp *repo, p *pull) {
		paginate(w, r, s.issueLabels(rp, p))
	})
}

// setIssueLabels answers POST .../labels, which adds the labels, and PUT,
// which replaces the issue's labels with them.
func (s *Server) setIssueLabels(w http.ResponseWriter, r *http.Request) {
	names, ok := readLabelNames(w, r)
	if !ok {
		return
	}
	s.inPull(w, r, func(rp *repo, p *pull) {
		if r.Method == http.MethodPut {
			p.labels = nil
		}
		s.attach(rp, p, names)
		writeJSON(w, http.StatusOK, s.issueLabels(rp, p))
	})
}

func (s *Server) removeIssueLabel(w http.ResponseWriter, r *http.Request) {
	s.inPull(w, r, func(rp *repo, p *pull) {
		i := slices.Index(p.labels, strings.ToLower(r.PathValue("name")))
		if i < 0 {
			writeError(w, http.StatusNotFound, "Label does not exist")
			return
		}
		p.labels = slices.Delete(p.labels, i, i+1)
		writeJSON(w, http.StatusOK, s.issueLabels(rp, p))
	})
}

func (s *Server) listRepoLabels(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		paginate(w, r, repoLabels(rp))
	})
}

func repoLabels(rp *repo) []*github.Label {
	out := []*github.Label{}
	for _, l := range rp.labels {
		out = append(out, clone(l))
	}
	return sortLabels(out)
}

func (s *Server) createRepoLabel(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	s.inRepo(w, r, func(rp *repo) {
		if body.Name == "" {
			invalid(w, "Label", "name", "missing_field", "")
			return
		}
		if tooLong(w, "Label", "name", body.Name, 50) || tooLong(w, "Label", "description", body.Description, 100) {
			return
		}
		if c := strings.TrimPrefix(body.Color, "#"); c != "" && !isHexColor(c) {
			invalid(w, "Label", "color", "invalid", "")
			return
		}
		if _, ok := rp.labels[strings.ToLower(body.Name)]; ok {
			invalid(w, "Label", "name", "already_exists", "")
			return
		}
		writeJSON(w, http.StatusCreated, clone(s.newLabel(rp, body.Name, body.Color, body.Description)))
	})
}

func isHexColor(c string) bool {
	if len(c) != 6 {
		return false
	}
	for _, r := range c {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// Labels returns the names of the labels on issue or pull request n, sorted.
func (s *Server) Labels(owner, name string, n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[key(owner, name)]
	var out []string
	for _, l := range s.issueLabels(rp, s.mustPull(owner, name, n)) {
		out = append(out, l.GetName())
	}
	return out
}

// RepoLabels returns the labels defined in repository owner/name, by name.
func (s *Server) RepoLabels(owner, name string) []*github.Label {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, ok := s.repos[key(owner, name)]
	if !ok {
		return nil
	}
	return repoLabels(rp)
}
