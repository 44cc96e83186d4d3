package githubfake

import (
	"net/http"
	"strconv"
	"time"

	"github.com/google/go-github/v60/github"
)

// rateLimit is the primary ("core") limit, counted for all tokens together.
type rateLimit struct {
	limit  int
	window time.Duration
	status int // 403 (what go-github v60 turns into *github.RateLimitError) or 429
	start  time.Time
	used   int
}

// WithRateLimit sets the primary rate limit: limit requests per window of the
// clock (GitHub: 5000 an hour, the default). When they are spent the fake
// answers 403 with X-RateLimit-Remaining: 0 until the window resets.
func WithRateLimit(limit int, window time.Duration) Option {
	return func(s *Server) { s.limit.limit, s.limit.window = limit, window }
}

// WithRateLimitStatus makes an exhausted primary limit answer with code (403 or
// 429). go-github v60 only recognises 403 as a *github.RateLimitError.
func WithRateLimitStatus(code int) Option {
	return func(s *Server) { s.limit.status = code }
}

// roll starts a new window when the clock has passed the reset; callers hold s.mu.
func (s *Server) roll() {
	now := s.now()
	if s.limit.start.IsZero() || !now.Before(s.limit.start.Add(s.limit.window)) {
		s.limit.start = now
		s.limit.used = 0
	}
}

func (s *Server) rate() github.Rate {
	return github.Rate{
		Limit:     s.limit.limit,
		Remaining: max(s.limit.limit-s.limit.used, 0),
		Reset:     github.Timestamp{Time: s.limit.start.Add(s.limit.window).Truncate(time.Second)},
	}
}

// writeRateHeaders sets the X-RateLimit-* headers; callers hold s.mu.
func (s *Server) writeRateHeaders(w http.ResponseWriter) {
	s.roll()
	rt := s.rate()
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(rt.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(rt.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(rt.Reset.Unix(), 10))
	h.Set("X-RateLimit-Used", strconv.Itoa(s.limit.used))
	h.Set("X-RateLimit-Resource", "core")
}

// spendRate counts one request against the primary limit, or answers the
// exhausted-limit error and returns true; callers hold s.mu.
func (s *Server) spendRate(w http.ResponseWriter) bool {
	if s.limit.used >= s.limit.limit {
		writeJSON(w, s.limit.status, errorBody{
			Message:          "API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID.",
			DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit",
		})
		return true
	}
	s.limit.used++
	s.writeRateHeaders(w)
	return false
}

// RateLimit returns the primary limit as GET /rate_limit shows it.
func (s *Server) RateLimit() github.Rate {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roll()
	return s.rate()
}

func (s *Server) getRateLimit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roll()
	rt := s.rate()
	type bucket struct {
		Limit     int    `json:"limit"`
		Remaining int    `json:"remaining"`
		Reset     int64  `json:"reset"`
		Used      int    `json:"used"`
		Resource  string `json:"resource"`
	}
	core := bucket{rt.Limit, rt.Remaining, rt.Reset.Unix(), s.limit.used, "core"}
	writeJSON(w, http.StatusOK, map[string]any{
		"resources": map[string]bucket{"core": core},
		"rate":      core,
	})
}
