package githubfake

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

func TestPrimaryRateLimit(t *testing.T) {
	s, c, clk := setup(t, WithRateLimit(3, time.Hour))
	ctx := ctx(t)
	for i := range 3 {
		_, resp, err := c.PullRequests.Get(ctx, owner, name, 1)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		if resp.Rate.Limit != 3 || resp.Rate.Remaining != 2-i || !resp.Rate.Reset.Time.Equal(t0.Add(time.Hour)) {
			t.Errorf("request %d: rate %+v", i+1, resp.Rate)
		}
		if got := resp.Header.Get("X-RateLimit-Used"); got != string(rune('1'+i)) || resp.Header.Get("X-RateLimit-Resource") != "core" {
			t.Errorf("request %d: used %q resource %q", i+1, got, resp.Header.Get("X-RateLimit-Resource"))
		}
	}
	_, _, err := s.Client().PullRequests.Get(ctx, owner, name, 1)
	var rl *github.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("fourth request: %v (%T), want *github.RateLimitError", err, err)
	}
	if rl.Response.StatusCode != 403 || rl.Rate.Remaining != 0 || !rl.Rate.Reset.Time.Equal(t0.Add(time.Hour)) {
		t.Errorf("rate limit error: status %d rate %+v", rl.Response.StatusCode, rl.Rate)
	}
	// GET /rate_limit does not count against the limit.
	rls, _, err := s.Client().RateLimit.Get(ctx)
	if err != nil || rls.GetCore().Remaining != 0 || rls.GetCore().Limit != 3 {
		t.Errorf("GET /rate_limit: %+v, %v", rls.GetCore(), err)
	}
	clk.Advance(time.Hour)
	if _, _, err := s.Client().PullRequests.Get(ctx, owner, name, 1); err != nil {
		t.Errorf("after the reset: %v", err)
	}
	if got := s.RateLimit(); got.Remaining != 2 || !got.Reset.Time.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("RateLimit after the reset = %+v", got)
	}
}

func TestPrimaryRateLimit429(t *testing.T) {
	s, c, _ := setup(t, WithRateLimit(0, time.Hour), WithRateLimitStatus(http.StatusTooManyRequests))
	_, resp, err := c.PullRequests.Get(ctx(t), owner, name, 1)
	if statusOf(err) != 429 || resp.Header.Get("X-RateLimit-Remaining") != "0" || resp.Header.Get("X-RateLimit-Reset") == "" {
		t.Errorf("429: %v, headers %v", err, resp.Header)
	}
	if s.Count("GET", "/repos/*/*/pulls/*") != 1 {
		t.Errorf("Count = %d, want 1", s.Count("GET", "/repos/*/*/pulls/*"))
	}
}

func TestSecondaryRateLimit(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	s.SecondaryRateLimitNext("POST", "/repos/*/*/issues/*/comments", 1, 90*time.Second)
	_, _, err := c.Issues.CreateComment(ctx, owner, name, 1, &github.IssueComment{Body: github.String("hi")})
	var ab *github.AbuseRateLimitError
	if !errors.As(err, &ab) {
		t.Fatalf("got %v (%T), want *github.AbuseRateLimitError", err, err)
	}
	if ab.RetryAfter == nil || *ab.RetryAfter != 90*time.Second || ab.Response.StatusCode != 403 {
		t.Errorf("RetryAfter %v status %d", ab.RetryAfter, ab.Response.StatusCode)
	}
	if n := len(s.Comments(owner, name, 1)); n != 0 {
		t.Errorf("a limited request created %d comments", n)
	}
	// go-github now refuses to call for 90 s on that client; a fresh one gets through.
	if _, _, err := s.Client().Issues.CreateComment(ctx, owner, name, 1, &github.IssueComment{Body: github.String("hi")}); err != nil {
		t.Errorf("after the injected limit: %v", err)
	}
}

func TestFaults(t *testing.T) {
	s, c, _ := setup(t)
	s.FailNext("GET", "/repos/*/*/pulls/*", 2, http.StatusBadGateway)
	for range 2 {
		if _, _, err := c.PullRequests.Get(ctx(t), owner, name, 1); statusOf(err) != 502 {
			t.Fatalf("got %v, want 502", err)
		}
	}
	// Other paths are untouched.
	if _, _, err := c.Issues.ListComments(ctx(t), owner, name, 1, nil); err != nil {
		t.Errorf("comments: %v", err)
	}
	if _, _, err := c.PullRequests.Get(ctx(t), owner, name, 1); err != nil {
		t.Errorf("third attempt: %v", err)
	}
	if got := s.Count("GET", "/repos/*/*/pulls/*"); got != 3 {
		t.Errorf("Count = %d, want 3", got)
	}
	if got := s.CountRoute()["GET /repos/{owner}/{repo}/pulls/{number}"]; got != 3 {
		t.Errorf("CountRoute = %d, want 3", got)
	}
	reqs := s.Requests()
	if reqs[0].Status != 502 || reqs[len(reqs)-1].Status != 200 {
		t.Errorf("recorded statuses %d ... %d", reqs[0].Status, reqs[len(reqs)-1].Status)
	}

	s.HangNext("", "/repos/*/*/issues/*/labels", 1)
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := c.Issues.ListLabelsByIssue(short, owner, name, 1, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hung request: %v, want context.DeadlineExceeded", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("hang lasted %v", time.Since(start))
	}
	if _, _, err := c.Issues.ListLabelsByIssue(ctx(t), owner, name, 1, nil); err != nil {
		t.Errorf("after the hang: %v", err)
	}
}

func TestHangReleasedByClose(t *testing.T) {
	s := New()
	s.AddRepo(owner, name)
	s.HangNext("", "/*", 1)
	done := make(chan error, 1)
	go func() {
		_, _, err := s.Client().RateLimit.Get(context.Background())
		done <- err
	}()
	for s.faultsLeft() > 0 {
		time.Sleep(time.Millisecond)
	}
	s.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not release the hung request")
	}
}

// faultsLeft is how many injected faults wait for a request.
func (s *Server) faultsLeft() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// signJWT makes an app JWT as GitHub's documentation describes.
func signJWT(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	msg := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(msg))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return msg + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestAppInstallationTokens(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	s, _, clk := setup(t, WithApp(42, &key.PublicKey))
	s.AddInstallation(7, owner)
	now := t0.Unix()
	good := signJWT(t, key, map[string]any{"iss": 42, "iat": now - 60, "exp": now + 540})
	cases := []struct {
		what string
		jwt  string
		id   int64
		want int
	}{
		{"wrong key", signJWT(t, other, map[string]any{"iss": 42, "iat": now - 60, "exp": now + 540}), 7, 401},
		{"wrong issuer", signJWT(t, key, map[string]any{"iss": 43, "iat": now - 60, "exp": now + 540}), 7, 401},
		{"expired", signJWT(t, key, map[string]any{"iss": 42, "iat": now - 700, "exp": now - 60}), 7, 401},
		{"not a JWT", "ghp_plain", 7, 401},
		{"unknown installation", good, 8, 404},
	}
	for _, tc := range cases {
		_, _, err := s.ClientWithToken(tc.jwt).Apps.CreateInstallationToken(ctx(t), tc.id, nil)
		if statusOf(err) != tc.want {
			t.Errorf("%s: %v, want %d", tc.what, err, tc.want)
		}
	}
	tok, resp, err := s.ClientWithToken(good).Apps.CreateInstallationToken(ctx(t), 7, nil)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("CreateInstallationToken: %v", err)
	}
	if !strings.HasPrefix(tok.GetToken(), "ghs_") || !tok.GetExpiresAt().Time.Equal(t0.Add(time.Hour)) {
		t.Errorf("token %q expires %v", tok.GetToken(), tok.GetExpiresAt())
	}
	inst, _, err := s.ClientWithToken(good).Apps.FindRepositoryInstallation(ctx(t), owner, name)
	if err != nil || inst.GetID() != 7 || inst.GetAppID() != 42 {
		t.Errorf("FindRepositoryInstallation: %v, %v", inst, err)
	}
	if _, _, err := s.ClientWithToken(good).Apps.FindRepositoryInstallation(ctx(t), "elsewhere", name); statusOf(err) != 404 {
		t.Errorf("installation of an unknown repository: %v, want 404", err)
	}
	// A JWT is not accepted on ordinary endpoints.
	if _, _, err := s.ClientWithToken(good).PullRequests.Get(ctx(t), owner, name, 1); statusOf(err) != 401 {
		t.Errorf("JWT on a repository endpoint: %v, want 401", err)
	}
	ic := s.ClientWithToken(tok.GetToken())
	cm, _, err := ic.Issues.CreateComment(ctx(t), owner, name, 1, &github.IssueComment{Body: github.String("x")})
	if err != nil || cm.GetUser().GetLogin() != DefaultBotLogin {
		t.Errorf("with the installation token: %v, %v", cm.GetUser().GetLogin(), err)
	}
	clk.Advance(time.Hour)
	if _, _, err := ic.PullRequests.Get(ctx(t), owner, name, 1); statusOf(err) != 401 {
		t.Errorf("expired installation token: %v, want 401", err)
	}
}

func TestSecondaryRateLimitVariants(t *testing.T) {
	s, c, _ := setup(t)
	s.SecondaryRateLimitNext("", "/repos/*/*/pulls/*", 1, 0)
	_, resp, err := c.PullRequests.Get(ctx(t), owner, name, 1)
	var ab *github.AbuseRateLimitError
	// go-github then derives RetryAfter from X-RateLimit-Reset, as with GitHub.
	if !errors.As(err, &ab) || resp.Header.Get("Retry-After") != "" {
		t.Errorf("without Retry-After: %v (%T)", err, err)
	}
	s.Inject(Fault{Path: "/repos/*/*/pulls/*", SecondaryRateLimit: true, Status: 429, RetryAfter: 1500 * time.Millisecond})
	_, resp, err = s.Client().PullRequests.Get(ctx(t), owner, name, 1)
	if statusOf(err) != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("429: %v, Retry-After %q; want 429 and 2", err, resp.Header.Get("Retry-After"))
	}
}

func TestConditionalRequests(t *testing.T) {
	s, c, _ := setup(t)
	ctx := ctx(t)
	_, resp, err := c.PullRequests.Get(ctx, owner, name, 1)
	if err != nil {
		t.Fatal(err)
	}
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on a GET")
	}
	used := s.RateLimit().Remaining
	req, _ := c.NewRequest("GET", "repos/acme/contracts/pulls/1", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err = c.Do(ctx, req, nil)
	if statusOf(err) != http.StatusNotModified {
		t.Fatalf("unchanged: %v, want 304", err)
	}
	if got := s.RateLimit().Remaining; got != used || resp.Rate.Remaining != used {
		t.Errorf("a 304 spent the rate limit: remaining %d (header %d), want %d", got, resp.Rate.Remaining, used)
	}
	s.Push(owner, name, 1, "6666666666666666666666666666666666666666")
	req, _ = c.NewRequest("GET", "repos/acme/contracts/pulls/1", nil)
	req.Header.Set("If-None-Match", etag)
	var pr github.PullRequest
	if _, err := c.Do(ctx, req, &pr); err != nil || pr.GetHead().GetSHA() != "6666666666666666666666666666666666666666" {
		t.Errorf("changed: %v, head %q", err, pr.GetHead().GetSHA())
	}
}

func TestAppTokensWithWallClockJWTAndNoExpiry(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s, _, clk := setup(t, WithApp(42, &key.PublicKey), WithInstallationTokenTTL(0))
	s.AddInstallation(7, owner)
	// Signed on the wall clock, while the fake's clock is in 2024.
	now := time.Now().Unix()
	jwt := signJWT(t, key, map[string]any{"iss": "42", "iat": now - 30, "exp": now + 90})
	tok, _, err := s.ClientWithToken(jwt).Apps.CreateInstallationToken(ctx(t), 7, nil)
	if err != nil {
		t.Fatalf("wall-clock JWT: %v", err)
	}
	clk.Advance(25 * time.Hour)
	if _, _, err := s.ClientWithToken(tok.GetToken()).PullRequests.Get(ctx(t), owner, name, 1); err != nil {
		t.Errorf("token after 25 h with no expiry: %v", err)
	}
	stale := signJWT(t, key, map[string]any{"iss": "42", "iat": now - 3600, "exp": now - 3000})
	if _, _, err := s.ClientWithToken(stale).Apps.CreateInstallationToken(ctx(t), 7, nil); statusOf(err) != 401 {
		t.Errorf("JWT expired on both clocks: %v, want 401", err)
	}
}

func TestFaultPatternForms(t *testing.T) {
	s, c, _ := setup(t)
	// The route as GitHub's documentation writes it, and a glob.
	s.FailNext("GET", "/repos/{owner}/{repo}/pulls/{number}", 1, http.StatusBadGateway)
	s.FailNext("GET", "/repos/acme/*/pulls/1", 1, http.StatusServiceUnavailable)
	if _, _, err := c.PullRequests.Get(ctx(t), owner, name, 1); statusOf(err) != 502 {
		t.Errorf("route form: %v, want 502", err)
	}
	if _, _, err := c.PullRequests.Get(ctx(t), owner, name, 1); statusOf(err) != 503 {
		t.Errorf("glob form: %v, want 503", err)
	}
	if _, _, err := c.PullRequests.Get(ctx(t), owner, name, 1); err != nil {
		t.Errorf("after both faults: %v", err)
	}
	// The route form does not match the reviews route below it.
	s.FailNext("", "/repos/{owner}/{repo}/pulls/{number}", 1, 502)
	if _, _, err := c.PullRequests.ListReviews(ctx(t), owner, name, 1, nil); err != nil {
		t.Errorf("reviews hit a fault meant for the pull: %v", err)
	}
	if got := s.Count("GET", "/repos/{owner}/{repo}/pulls/{number}"); got != 3 {
		t.Errorf("Count by route = %d, want 3", got)
	}
	for _, bad := range []string{"/repos/{owner}/{repo}/pull/{number}", "/repos/[/x"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Inject(%q) did not panic", bad)
				}
			}()
			s.FailNext("GET", bad, 1, 502)
		}()
	}
}
