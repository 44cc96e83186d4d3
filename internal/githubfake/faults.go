package githubfake

import (
	"cmp"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fault makes the next Times requests that match Method and Path fail in one
// way. Faults are consulted before authentication and rate limits, in the
// order they were injected, and each request consumes at most one.
type Fault struct {
	// Method is the HTTP method to match; empty matches any.
	Method string
	// Path selects requests by path, in one of two forms: a route as GitHub's
	// documentation writes it, "/repos/{owner}/{repo}/issues/{number}/comments"
	// (it must be one the fake serves; the {names} are the fake's), or a
	// path.Match pattern where * stands for one segment,
	// "/repos/acme/*/issues/*/comments". Inject panics on a route the fake
	// does not serve or a malformed pattern, so a typo cannot make a fault
	// silently never fire.
	Path string
	// Times is how many matching requests fail; 0 means 1.
	Times int
	// Status is the status code to answer with, for example 502.
	Status int
	// Hang holds the request until the client gives up (its context ends) or
	// the server closes, as a stalled GitHub does; Status is then ignored.
	Hang bool
	// SecondaryRateLimit answers GitHub's secondary rate limit: Status (403
	// when zero) with the secondary-limit message, and a Retry-After header
	// when RetryAfter is positive. go-github v60 turns the 403 into
	// *github.AbuseRateLimitError; a 429 stays a *github.ErrorResponse.
	SecondaryRateLimit bool
	// RetryAfter is the secondary limit's Retry-After, rounded up to seconds;
	// positive implies SecondaryRateLimit.
	RetryAfter time.Duration
}

// Inject adds f to the faults waiting for requests.
func (s *Server) Inject(f Fault) {
	if f.Times <= 0 {
		f.Times = 1
	}
	s.checkPattern(f.Path)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// FailNext makes the next n requests matching method and the path pattern
// answer status (for example 502 Bad Gateway) with GitHub's error body.
func (s *Server) FailNext(method, pattern string, n, status int) {
	s.Inject(Fault{Method: method, Path: pattern, Times: n, Status: status})
}

// HangNext makes the next n requests matching method and the path pattern hang
// until the client times out.
func (s *Server) HangNext(method, pattern string, n int) {
	s.Inject(Fault{Method: method, Path: pattern, Times: n, Hang: true})
}

// SecondaryRateLimitNext makes the next n requests matching method and the
// path pattern hit GitHub's secondary rate limit (403) with the given
// Retry-After; zero sends no Retry-After, as GitHub sometimes does.
func (s *Server) SecondaryRateLimitNext(method, pattern string, n int, retryAfter time.Duration) {
	s.Inject(Fault{Method: method, Path: pattern, Times: n, SecondaryRateLimit: true, RetryAfter: retryAfter})
}

// matchPath reports whether a request to p, served by route (a ServeMux
// pattern such as "GET /repos/{owner}/{repo}/pulls/{number}", or ""), matches
// pattern, a route path or a path.Match pattern.
func matchPath(pattern, p, route string) bool {
	if strings.Contains(pattern, "{") {
		_, routePath, _ := strings.Cut(route, " ")
		return routePath == pattern
	}
	ok, _ := path.Match(pattern, p)
	return ok
}

// checkPattern panics when pattern can never match: a route path the fake
// does not serve, or a malformed path.Match pattern.
func (s *Server) checkPattern(pattern string) {
	if strings.Contains(pattern, "{") {
		for _, r := range s.routeList {
			if _, p, _ := strings.Cut(r, " "); p == pattern {
				return
			}
		}
		panic(fmt.Sprintf("githubfake: the fake serves no route %q; its routes are:\n%s", pattern, strings.Join(s.routeList, "\n")))
	}
	if _, err := path.Match(pattern, ""); err != nil {
		panic(fmt.Sprintf("githubfake: path pattern %q: %v", pattern, err))
	}
}

// takeFault consumes the first fault matching r, served by route; callers
// hold s.mu.
func (s *Server) takeFault(r *http.Request, route string) *Fault {
	for i, f := range s.faults {
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		if !matchPath(f.Path, r.URL.Path, route) {
			continue
		}
		f.Times--
		if f.Times == 0 {
			s.faults = slices.Delete(s.faults, i, i+1)
		}
		return f
	}
	return nil
}

func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f *Fault) {
	switch {
	case f.Hang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		w.WriteHeader(http.StatusGatewayTimeout)
	case f.SecondaryRateLimit || f.RetryAfter > 0:
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((f.RetryAfter+time.Second-1)/time.Second)))
		}
		writeJSON(w, cmp.Or(f.Status, http.StatusForbidden), errorBody{
			Message:          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
			DocumentationURL: "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
		})
	default:
		status := f.Status
		if status == 0 {
			status = http.StatusBadGateway
		}
		writeError(w, status, http.StatusText(status))
	}
}

// Request is one request the fake received.
type Request struct {
	Method  string
	Path    string // without the /api/v3 prefix
	Query   string
	Pattern string // the route that matched, "GET /repos/{owner}/{repo}/pulls/{number}"; empty when none
	Status  int    // the status code answered
	At      time.Time
}

func (s *Server) record(r *http.Request, pattern string, status int) {
	at := s.clock().UTC().Truncate(time.Second)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.log = append(s.log, Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Pattern: pattern, Status: status, At: at,
	})
}

// Requests returns every request received so far, in the order their answers
// started.
func (s *Server) Requests() []Request {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return slices.Clone(s.log)
}

// Count returns how many requests matched method (empty: any) and pattern (a
// route path or a path.Match pattern, as in Fault.Path), whatever they were
// answered.
func (s *Server) Count(method, pattern string) int {
	s.checkPattern(pattern)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	n := 0
	for _, q := range s.log {
		if method != "" && method != q.Method {
			continue
		}
		if matchPath(pattern, q.Path, q.Pattern) {
			n++
		}
	}
	return n
}

// CountRoute returns how many requests each route received, keyed by the
// route pattern ("GET /repos/{owner}/{repo}/pulls/{number}/reviews").
func (s *Server) CountRoute() map[string]int {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	out := map[string]int{}
	for _, q := range s.log {
		out[q.Pattern]++
	}
	return out
}
