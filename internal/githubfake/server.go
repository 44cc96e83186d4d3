// Package githubfake is an in-memory HTTP fake of the parts of GitHub's REST API
// that contractbot's bot calls: pull requests and their reviews, issue comments,
// labels, check runs, commit statuses, team memberships, the review requests of an
// issue's timeline, GitHub App installation tokens, who a credential is (GET /app,
// GET /user) and rate limits. Like GitHub, it refuses check runs to credentials that
// are not an App's (403 "Resource not accessible by integration").
//
// It answers like GitHub does (JSON shapes, status codes, pagination with Link
// headers, 404 and 422 bodies, rate-limit headers and errors, ETags and 304)
// so that the real go-github client can be pointed at it, and it records what
// was done so tests can assert on the bot's behaviour rather than on its
// calls. Tests arrange state with the Add* methods, inject faults and limits
// (Inject, FailNext, HangNext, SecondaryRateLimitNext), move the clock
// (WithClock), read the result with the inspection methods (Comments, Labels,
// CheckRuns, RequestedReviewers, Requests, Count, ...), and build signed
// webhook deliveries from the same state (PullRequestEvent, Deliver).
//
// The JSON is go-github's own structs encoded, so it carries the fields
// go-github reads, not every field GitHub sends. Test-side methods panic on a
// repository or pull request that was never added: that is a mistake in the
// test, not a behaviour under test.
//
// go-github keeps its own rate-limit state on the wall clock: after a
// response with X-RateLimit-Remaining 0 and a reset in the (real) future, or
// a secondary limit with Retry-After, that client refuses further calls
// itself until then. A fake clock set in the past avoids this; a fresh
// Client does too.
package githubfake

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-github/v60/github"
)

// DefaultToken is the token the fake accepts from the start; Client uses it.
const DefaultToken = "ghs_githubfake_default_token"

// DefaultBotLogin is the login under which requests made with DefaultToken or
// with an installation token act (comments, check runs and statuses carry it).
const DefaultBotLogin = "contractbot[bot]"

// Server is a running fake of GitHub's REST API. Its methods are safe for
// concurrent use.
type Server struct {
	ts        *httptest.Server
	mux       *http.ServeMux
	routeList []string // the mux's patterns, in registration order
	done      chan struct{}

	mu       sync.Mutex
	clock    func() time.Time
	botLogin string
	nextID   int64
	userIDs  map[string]int64
	repos    map[string]*repo // key "owner/name", lower case
	teams    map[string]*team // key "org/slug", lower case
	tokens   map[string]tokenInfo
	app      *appConfig
	tokenTTL time.Duration    // 0: never expire
	installs map[int64]string // installation id -> account login
	limit    rateLimit
	faults   []*Fault
	// logMu guards log alone: a request is recorded as its answer starts, while
	// the handler may still hold mu.
	logMu sync.Mutex
	log   []Request
	reqID atomic.Int64
}

// Option configures a Server in New.
type Option func(*Server)

// WithClock makes the fake read the time from now: timestamps it writes,
// token expiry and rate-limit windows all follow it.
func WithClock(now func() time.Time) Option {
	return func(s *Server) { s.clock = now }
}

// WithBotLogin sets the login that DefaultToken and installation tokens act as.
func WithBotLogin(login string) Option {
	return func(s *Server) { s.botLogin = login }
}

// New starts a fake on a loopback port. Close it when the test ends.
func New(opts ...Option) *Server {
	s := &Server{
		mux:      http.NewServeMux(),
		done:     make(chan struct{}),
		clock:    time.Now,
		botLogin: DefaultBotLogin,
		userIDs:  map[string]int64{},
		repos:    map[string]*repo{},
		teams:    map[string]*team{},
		tokens:   map[string]tokenInfo{},
		installs: map[int64]string{},
		limit:    rateLimit{limit: 5000, window: time.Hour, status: http.StatusForbidden},
		tokenTTL: installationTokenTTL,
	}
	for _, o := range opts {
		o(s)
	}
	s.tokens[DefaultToken] = tokenInfo{login: s.botLogin, app: true}
	s.routes()
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the fake's base URL, without a trailing slash. Requests under
// URL()+"/api/v3/" are served too, so a client configured for GitHub Enterprise
// with WithEnterpriseURLs(URL(), URL()) works.
func (s *Server) URL() string { return s.ts.URL }

// Client returns a go-github client pointed at the fake and authenticated with
// DefaultToken.
func (s *Server) Client() *github.Client {
	return s.ClientWithToken(DefaultToken)
}

// ClientWithToken returns a go-github client pointed at the fake that sends
// token; an empty token sends no Authorization header.
func (s *Server) ClientWithToken(token string) *github.Client {
	c := github.NewClient(s.ts.Client())
	if token != "" {
		c = c.WithAuthToken(token)
	}
	u, _ := url.Parse(s.ts.URL + "/")
	c.BaseURL = u
	c.UploadURL = u
	return c
}

// Close releases requests held by hang faults and shuts the server down.
func (s *Server) Close() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.ts.Close()
}

// now is the clock's time at GitHub's precision: UTC, whole seconds.
func (s *Server) now() time.Time { return s.clock().UTC().Truncate(time.Second) }

// serve runs every request through the steps GitHub's edge applies, in order:
// recording, injected faults, authentication, rate limits, then the endpoint.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if p, ok := strings.CutPrefix(r.URL.Path, "/api/v3"); ok {
		r.URL.Path = p
		r.URL.RawPath = ""
	}
	_, pattern := s.mux.Handler(r)
	// The request is recorded before the first byte of its answer leaves (a client
	// that has read the answer finds it in Requests and Count), or at the end when
	// nothing was written.
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK, done: func(status int) { s.record(r, pattern, status) }}
	defer rec.start()
	w = rec

	s.mu.Lock()
	s.writeRateHeaders(w)
	w.Header().Set("X-GitHub-Request-Id", fmt.Sprintf("FAKE:%d", s.reqID.Add(1)))
	w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	f := s.takeFault(r, pattern)
	s.mu.Unlock()
	if f != nil {
		s.applyFault(w, r, f)
		return
	}
	if pattern == "" {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if !jwtRoutes[pattern] {
		info, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), actorKey{}, info))
	}
	counted := pattern != "GET /rate_limit"
	if counted {
		s.mu.Lock()
		limited := s.spendRate(w)
		s.mu.Unlock()
		if limited {
			return
		}
	}
	if r.Method != http.MethodGet {
		s.mux.ServeHTTP(w, r)
		return
	}
	s.serveConditional(w, r, counted)
}

// serveConditional answers a GET with an ETag and, when If-None-Match names
// the current one, with 304 Not Modified, which like GitHub it does not count
// against the primary rate limit.
func (s *Server) serveConditional(w http.ResponseWriter, r *http.Request, counted bool) {
	bw := &bufferedWriter{header: w.Header(), status: http.StatusOK}
	s.mux.ServeHTTP(bw, r)
	if bw.status == http.StatusOK {
		sum := sha256.Sum256(bw.body.Bytes())
		etag := fmt.Sprintf("%q", hex.EncodeToString(sum[:16]))
		w.Header().Set("ETag", etag)
		if inm := r.Header.Get("If-None-Match"); inm == etag || inm == "W/"+etag {
			s.mu.Lock()
			if counted && s.limit.used > 0 {
				s.limit.used--
			}
			s.writeRateHeaders(w)
			s.mu.Unlock()
			w.Header().Del("Content-Type")
			w.Header().Del("Link")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.WriteHeader(bw.status)
	_, _ = w.Write(bw.body.Bytes())
}

// bufferedWriter holds an endpoint's answer until its ETag is known.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header         { return b.header }
func (b *bufferedWriter) WriteHeader(code int)        { b.status = code }
func (b *bufferedWriter) Write(p []byte) (int, error) { return b.body.Write(p) }

// jwtRoutes are authenticated with the app's JWT instead of a token.
var jwtRoutes = map[string]bool{
	"POST /app/installations/{id}/access_tokens": true,
	"GET /repos/{owner}/{repo}/installation":     true,
	"GET /app":                                   true,
}

type actorKey struct{}

// actor is the login the request authenticated as.
func actor(r *http.Request) string {
	info, _ := r.Context().Value(actorKey{}).(tokenInfo)
	return info.login
}

// requireApp answers 403 unless the request came with an app's token.
func requireApp(w http.ResponseWriter, r *http.Request) bool {
	if info, _ := r.Context().Value(actorKey{}).(tokenInfo); !info.app {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return false
	}
	return true
}

func (s *Server) routes() {
	handle := func(pattern string, h func(http.ResponseWriter, *http.Request)) {
		s.mux.HandleFunc(pattern, h)
		s.routeList = append(s.routeList, pattern)
	}
	// Pull requests (pulls.go).
	handle("GET /repos/{owner}/{repo}/pulls", s.listPulls)
	handle("GET /repos/{owner}/{repo}/pulls/{number}", s.getPull)
	handle("GET /repos/{owner}/{repo}/pulls/{number}/files", s.listPullFiles)
	handle("GET /repos/{owner}/{repo}/pulls/{number}/reviews", s.listReviews)
	handle("POST /repos/{owner}/{repo}/pulls/{number}/requested_reviewers", s.requestReviewers)
	handle("DELETE /repos/{owner}/{repo}/pulls/{number}/requested_reviewers", s.removeReviewers)
	handle("GET /repos/{owner}/{repo}/pulls/{number}/requested_reviewers", s.listRequestedReviewers)
	// Issue comments and labels (issues.go).
	handle("GET /repos/{owner}/{repo}/issues/{number}/comments", s.listComments)
	handle("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	handle("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	handle("DELETE /repos/{owner}/{repo}/issues/comments/{id}", s.deleteComment)
	handle("GET /repos/{owner}/{repo}/issues/{number}/labels", s.listIssueLabels)
	handle("POST /repos/{owner}/{repo}/issues/{number}/labels", s.setIssueLabels)
	handle("PUT /repos/{owner}/{repo}/issues/{number}/labels", s.setIssueLabels)
	handle("DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}", s.removeIssueLabel)
	handle("GET /repos/{owner}/{repo}/labels", s.listRepoLabels)
	handle("POST /repos/{owner}/{repo}/labels", s.createRepoLabel)
	// Check runs and commit statuses (checks.go).
	handle("POST /repos/{owner}/{repo}/check-runs", s.createCheckRun)
	handle("GET /repos/{owner}/{repo}/check-runs/{id}", s.getCheckRun)
	handle("PATCH /repos/{owner}/{repo}/check-runs/{id}", s.updateCheckRun)
	handle("GET /repos/{owner}/{repo}/check-runs/{id}/annotations", s.listAnnotations)
	handle("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", s.listCheckRuns)
	handle("POST /repos/{owner}/{repo}/statuses/{sha}", s.createStatus)
	handle("GET /repos/{owner}/{repo}/commits/{ref}/statuses", s.listStatuses)
	handle("GET /repos/{owner}/{repo}/commits/{ref}/status", s.combinedStatus)
	// Branches and the pull requests of a commit (branches.go).
	handle("GET /repos/{owner}/{repo}/branches/{branch}", s.getBranch)
	handle("GET /repos/{owner}/{repo}/commits/{ref}/pulls", s.listCommitPulls)
	// Teams (teams.go).
	handle("GET /repos/{owner}/{repo}/issues/{number}/timeline", s.listTimeline)
	handle("GET /orgs/{org}/teams/{slug}/members", s.listTeamMembers)
	handle("GET /orgs/{org}/teams/{slug}/memberships/{user}", s.getTeamMembership)
	// App authentication and rate limits (auth.go, ratelimit.go).
	handle("POST /app/installations/{id}/access_tokens", s.createAccessToken)
	handle("GET /app", s.getApp)
	handle("GET /user", s.getUser)
	handle("GET /repos/{owner}/{repo}/installation", s.getRepoInstallation)
	handle("GET /repos/{owner}/{repo}", s.getRepo)
	handle("GET /rate_limit", s.getRateLimit)
}

// statusRecorder remembers the status code an endpoint answered with.
type statusRecorder struct {
	http.ResponseWriter
	status  int
	done    func(status int)
	started bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.started {
		r.status = code
	}
	r.start()
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.start()
	return r.ResponseWriter.Write(b)
}

// start calls done once, as the answer starts.
func (r *statusRecorder) start() {
	if !r.started {
		r.started = true
		r.done(r.status)
	}
}
