package githubfake

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

// maxAnnotations is how many annotations GitHub takes in one request.
const maxAnnotations = 50

type checkRun struct {
	run         *github.CheckRun
	annotations []*github.CheckRunAnnotation
}

type status struct {
	sha string
	s   *github.RepoStatus
}

// checkRunBody is the body of POST and PATCH .../check-runs.
type checkRunBody struct {
	Name        *string           `json:"name"`
	HeadSHA     *string           `json:"head_sha"`
	DetailsURL  *string           `json:"details_url"`
	ExternalID  *string           `json:"external_id"`
	Status      *string           `json:"status"`
	Conclusion  *string           `json:"conclusion"`
	StartedAt   *github.Timestamp `json:"started_at"`
	CompletedAt *github.Timestamp `json:"completed_at"`
	Output      *struct {
		Title       *string                      `json:"title"`
		Summary     *string                      `json:"summary"`
		Text        *string                      `json:"text"`
		Annotations []*github.CheckRunAnnotation `json:"annotations"`
	} `json:"output"`
}

var (
	checkStatuses    = []string{"queued", "in_progress", "completed", "waiting", "requested", "pending"}
	checkConclusions = []string{"action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"}
	annotationLevels = []string{"notice", "warning", "failure"}
)

// validate checks a check-run body as GitHub does and answers 422 when it is
// invalid; create says whether name and head_sha are required.
func (b *checkRunBody) validate(w http.ResponseWriter, create bool) bool {
	if create && (b.Name == nil || *b.Name == "") {
		invalid(w, "CheckRun", "name", "missing_field", "")
		return false
	}
	if create && (b.HeadSHA == nil || *b.HeadSHA == "") {
		invalid(w, "CheckRun", "head_sha", "missing_field", "")
		return false
	}
	if b.Status != nil && !slices.Contains(checkStatuses, *b.Status) {
		invalid(w, "CheckRun", "status", "invalid", "")
		return false
	}
	if b.Conclusion != nil && !slices.Contains(checkConclusions, *b.Conclusion) {
		invalid(w, "CheckRun", "conclusion", "invalid", "")
		return false
	}
	if b.Status != nil && *b.Status == "completed" && b.Conclusion == nil {
		invalid(w, "CheckRun", "conclusion", "missing_field", "conclusion is required when status is completed")
		return false
	}
	if o := b.Output; o != nil {
		if o.Title == nil || o.Summary == nil {
			invalid(w, "CheckRun", "output", "missing_field", "output needs a title and a summary")
			return false
		}
		if tooLong(w, "CheckRun", "summary", *o.Summary, maxBody-1) ||
			(o.Text != nil && tooLong(w, "CheckRun", "text", *o.Text, maxBody-1)) {
			return false
		}
		if len(o.Annotations) > maxAnnotations {
			writeJSON(w, http.StatusUnprocessableEntity, errorBody{
				Message:          "Invalid request.\n\nOnly 50 annotations are allowed per request.",
				Errors:           []github.Error{{Resource: "CheckRun", Field: "output.annotations", Code: "invalid", Message: fmt.Sprintf("%d annotations were sent; at most %d are allowed per request", len(o.Annotations), maxAnnotations)}},
				DocumentationURL: docsURL,
			})
			return false
		}
		for _, a := range o.Annotations {
			if a.GetPath() == "" || a.StartLine == nil || a.EndLine == nil || a.GetMessage() == "" ||
				!slices.Contains(annotationLevels, a.GetAnnotationLevel()) {
				invalid(w, "CheckRun", "output.annotations", "invalid",
					"each annotation needs path, start_line, end_line, message and annotation_level notice, warning or failure")
				return false
			}
		}
	}
	return true
}

// apply writes the body's fields into c; callers hold s.mu.
func (s *Server) apply(c *checkRun, b *checkRunBody) {
	run := c.run
	for _, f := range []struct {
		dst **string
		src *string
	}{{&run.Name, b.Name}, {&run.HeadSHA, b.HeadSHA}, {&run.DetailsURL, b.DetailsURL}, {&run.ExternalID, b.ExternalID}, {&run.Status, b.Status}} {
		if f.src != nil && *f.src != "" {
			*f.dst = github.String(*f.src)
		}
	}
	if b.StartedAt != nil {
		run.StartedAt = b.StartedAt
	}
	if b.Conclusion != nil {
		run.Conclusion = github.String(*b.Conclusion)
		run.Status = github.String("completed")
		run.CompletedAt = cmp.Or(b.CompletedAt, &github.Timestamp{Time: s.now()})
	} else if b.CompletedAt != nil {
		run.CompletedAt = b.CompletedAt
	}
	if o := b.Output; o != nil {
		run.Output.Title = o.Title
		run.Output.Summary = o.Summary
		if o.Text != nil {
			run.Output.Text = o.Text
		}
		c.annotations = append(c.annotations, clone(o.Annotations)...)
		run.Output.AnnotationsCount = github.Int(len(c.annotations))
	}
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request) {
	var body checkRunBody
	if !requireApp(w, r) || !readJSON(w, r, &body) || !body.validate(w, true) {
		return
	}
	s.inRepo(w, r, func(rp *repo) {
		id := s.id()
		now := github.Timestamp{Time: s.now()}
		c := &checkRun{run: &github.CheckRun{
			ID:        github.Int64(id),
			NodeID:    github.String(fmt.Sprintf("CR_%d", id)),
			Status:    github.String("queued"),
			StartedAt: &now,
			URL:       github.String(fmt.Sprintf("%s/repos/%s/%s/check-runs/%d", s.ts.URL, rp.owner, rp.name, id)),
			HTMLURL:   github.String(fmt.Sprintf("https://github.com/%s/%s/runs/%d", rp.owner, rp.name, id)),
			Output: &github.CheckRunOutput{
				AnnotationsCount: github.Int(0),
				AnnotationsURL:   github.String(fmt.Sprintf("%s/repos/%s/%s/check-runs/%d/annotations", s.ts.URL, rp.owner, rp.name, id)),
			},
			App: &github.App{Slug: github.String(strings.TrimSuffix(actor(r), "[bot]")), Owner: s.user(rp.owner)},
		}}
		s.apply(c, &body)
		rp.checkRuns = append(rp.checkRuns, c)
		writeJSON(w, http.StatusCreated, clone(c.run))
	})
}

// inCheckRun holds s.mu and runs f with check run {id} of the request's
// repository, or answers 404.
func (s *Server) inCheckRun(w http.ResponseWriter, r *http.Request, f func(c *checkRun)) {
	s.inRepo(w, r, func(rp *repo) {
		if i := pathItem(w, r, rp.checkRuns, func(c *checkRun) int64 { return c.run.GetID() }); i >= 0 {
			f(rp.checkRuns[i])
		}
	})
}

func (s *Server) getCheckRun(w http.ResponseWriter, r *http.Request) {
	s.inCheckRun(w, r, func(c *checkRun) {
		writeJSON(w, http.StatusOK, clone(c.run))
	})
}

func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	var body checkRunBody
	if !requireApp(w, r) || !readJSON(w, r, &body) {
		return
	}
	s.inCheckRun(w, r, func(c *checkRun) {
		if !body.validate(w, false) {
			return
		}
		if app := strings.TrimSuffix(actor(r), "[bot]"); !strings.EqualFold(app, c.run.GetApp().GetSlug()) {
			// GitHub lets only the App that created a check run change it.
			writeError(w, http.StatusForbidden, fmt.Sprintf("Invalid app_id `%d` - check run can only be modified by the GitHub App that created it.", appID(app)))
			return
		}
		body.HeadSHA = nil // a check run stays on the commit it was created for
		s.apply(c, &body)
		writeJSON(w, http.StatusOK, clone(c.run))
	})
}

// appID is a stable number standing for an App's id in error messages.
func appID(slug string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(slug))
	return h.Sum32() % 1000000
}

func (s *Server) listAnnotations(w http.ResponseWriter, r *http.Request) {
	s.inCheckRun(w, r, func(c *checkRun) {
		paginate(w, r, clone(c.annotations))
	})
}

func (s *Server) listCheckRuns(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		q := r.URL.Query()
		ref := r.PathValue("ref")
		latest := q.Get("filter") != "all"
		seen := map[string]bool{}
		var runs []*github.CheckRun
		// Newest first; with filter=latest (the default) only the newest run of
		// each name of each App is listed (an App's runs form its own check suite).
		for _, c := range slices.Backward(rp.checkRuns) {
			run := c.run
			if run.GetHeadSHA() != ref ||
				(q.Has("check_name") && run.GetName() != q.Get("check_name")) ||
				(q.Has("status") && run.GetStatus() != q.Get("status")) {
				continue
			}
			k := run.GetApp().GetSlug() + "\x00" + run.GetName()
			if latest && seen[k] {
				continue
			}
			seen[k] = true
			runs = append(runs, clone(run))
		}
		lo, hi := page(w, r, len(runs))
		writeJSON(w, http.StatusOK, github.ListCheckRunsResults{
			Total:     github.Int(len(runs)),
			CheckRuns: append([]*github.CheckRun{}, runs[lo:hi]...),
		})
	})
}

// AddCheckRunAs puts a completed check run called runName on commit sha as another
// App (its slug) would, or as a GitHub Actions job of that name does ("github-actions"),
// and returns its id.
func (s *Server) AddCheckRunAs(owner, name, sha, runName, app, conclusion string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[key(owner, name)]
	id := s.id()
	now := github.Timestamp{Time: s.now()}
	rp.checkRuns = append(rp.checkRuns, &checkRun{run: &github.CheckRun{
		ID: github.Int64(id), Name: github.String(runName), HeadSHA: github.String(sha),
		Status: github.String("completed"), Conclusion: github.String(conclusion), StartedAt: &now, CompletedAt: &now,
		Output: &github.CheckRunOutput{AnnotationsCount: github.Int(0)},
		App:    &github.App{Slug: github.String(app)},
	}})
	return id
}

// SetExternalID sets the external_id of check run id, as the App that created it
// may (for a run AddCheckRunAs put there).
func (s *Server) SetExternalID(owner, name string, id int64, externalID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.repos[key(owner, name)].checkRuns {
		if c.run.GetID() == id {
			c.run.ExternalID = github.String(externalID)
		}
	}
}

// CheckRuns returns every check run created on head SHA sha, oldest first.
func (s *Server) CheckRuns(owner, name, sha string) []*github.CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, ok := s.repos[key(owner, name)]
	if !ok {
		return nil
	}
	var out []*github.CheckRun
	for _, c := range rp.checkRuns {
		if c.run.GetHeadSHA() == sha {
			out = append(out, clone(c.run))
		}
	}
	return out
}

// CheckRunAnnotations returns every annotation check run id received, in the
// order they were sent.
func (s *Server) CheckRunAnnotations(owner, name string, id int64) []*github.CheckRunAnnotation {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, ok := s.repos[key(owner, name)]
	if !ok {
		return nil
	}
	for _, c := range rp.checkRuns {
		if c.run.GetID() == id {
			return clone(c.annotations)
		}
	}
	return nil
}

// Commit statuses.

var statusStates = []string{"error", "failure", "pending", "success"}

// MaxStatusesPerContext is GitHub's limit on the statuses of one commit and context:
// "Attempts to create more than 1000 statuses will result in a validation error."
const MaxStatusesPerContext = 1000

func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	var body struct {
		State       string  `json:"state"`
		TargetURL   *string `json:"target_url"`
		Description *string `json:"description"`
		Context     *string `json:"context"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	s.inRepo(w, r, func(rp *repo) {
		if !slices.Contains(statusStates, body.State) {
			invalid(w, "Status", "state", "custom", "state must be one of error, failure, pending, success")
			return
		}
		if body.Description != nil && tooLong(w, "Status", "description", *body.Description, 140) {
			return
		}
		context := cmp.Or(body.Context, github.String("default"))
		n := 0
		for _, st := range rp.statuses {
			if st.sha == r.PathValue("sha") && st.s.GetContext() == *context {
				n++
			}
		}
		if n >= MaxStatusesPerContext {
			invalid(w, "Status", "context", "custom", fmt.Sprintf("This SHA and context has reached the maximum number of statuses (%d).", MaxStatusesPerContext))
			return
		}
		id := s.id()
		now := github.Timestamp{Time: s.now()}
		st := &github.RepoStatus{
			ID:          github.Int64(id),
			NodeID:      github.String(fmt.Sprintf("SC_%d", id)),
			State:       github.String(body.State),
			TargetURL:   body.TargetURL,
			Description: body.Description,
			Context:     context,
			Creator:     s.user(actor(r)),
			CreatedAt:   &now,
			UpdatedAt:   &now,
			URL:         github.String(fmt.Sprintf("%s/repos/%s/%s/statuses/%s", s.ts.URL, rp.owner, rp.name, r.PathValue("sha"))),
		}
		rp.statuses = append(rp.statuses, &status{sha: r.PathValue("sha"), s: st})
		writeJSON(w, http.StatusCreated, st)
	})
}

func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		paginate(w, r, statusesOf(rp, r.PathValue("ref")))
	})
}

// statusesOf lists the statuses on sha, newest first as GitHub does.
func statusesOf(rp *repo, sha string) []*github.RepoStatus {
	out := []*github.RepoStatus{}
	for _, st := range slices.Backward(rp.statuses) {
		if st.sha == sha {
			out = append(out, clone(st.s))
		}
	}
	return out
}

// combinedStatus answers GET .../commits/{ref}/status: the latest status of
// each context and their combined state (failure if any failed or errored,
// pending if any is pending or there is none, success otherwise).
func (s *Server) combinedStatus(w http.ResponseWriter, r *http.Request) {
	s.inRepo(w, r, func(rp *repo) {
		ref := r.PathValue("ref")
		seen := map[string]bool{}
		latest := []*github.RepoStatus{}
		for _, st := range statusesOf(rp, ref) {
			if !seen[st.GetContext()] {
				seen[st.GetContext()] = true
				latest = append(latest, st)
			}
		}
		state := "success"
		if len(latest) == 0 {
			state = "pending"
		}
		for _, st := range latest {
			switch st.GetState() {
			case "failure", "error":
				state = "failure"
			case "pending":
				if state != "failure" {
					state = "pending"
				}
			}
		}
		lo, hi := page(w, r, len(latest))
		writeJSON(w, http.StatusOK, github.CombinedStatus{
			State:      github.String(state),
			SHA:        github.String(ref),
			TotalCount: github.Int(len(latest)),
			Statuses:   latest[lo:hi],
		})
	})
}

// Statuses returns the commit statuses on sha, newest first.
func (s *Server) Statuses(owner, name, sha string) []*github.RepoStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, ok := s.repos[key(owner, name)]
	if !ok {
		return nil
	}
	return statusesOf(rp, sha)
}
