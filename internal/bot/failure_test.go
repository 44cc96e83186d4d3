package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/verdict"
)

// TestFailedEvaluationShowsOnThePullRequest: an evaluation that cannot fetch the
// repository fails; the queue retries it, and meanwhile the head commit carries a
// pending check "could not evaluate this commit; retrying" (never a neutral or
// failed one: the merge waits, the author is not blamed). After the last attempt the
// check says how to try again; once the repository is reachable, a new delivery
// replaces it with the verdict.
func TestFailedEvaluationShowsOnThePullRequest(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var cloneURL atomic.Value // the fake keeps the clone URL a pull request had when added
	cloneURL.Store(filepath.Join(t.TempDir(), "no-such-repository"))
	b := botOn(t, fake, &now, log)
	b.CloneURL = func(string, string) string { return cloneURL.Load().(string) }
	srv := server.New(server.Config{WebhookSecret: []byte("s"), Workers: 1, QueueSize: 5, Attempts: 2, Backoff: 20 * time.Millisecond, Route: b, Log: log})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx := context.Background()
	deliver := func() {
		t.Helper()
		resp, err := githubfake.Deliver(ctx, nil, ts.URL+"/webhook", "s", "pull_request", fake.PullRequestEvent("acme", "contracts", n, "opened", "olivia"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	titles := func() []string {
		var out []string
		for _, r := range fake.CheckRuns("acme", "contracts", head.String()) {
			out = append(out, r.GetStatus()+" "+r.GetConclusion()+": "+r.GetOutput().GetTitle())
		}
		return out
	}
	deliver()
	waitFor(t, func() bool { return len(fake.CheckRuns("acme", "contracts", head.String())) == 2 })
	want := []string{"in_progress : " + FailureRetrying, "in_progress : " + FailureGaveUp}
	if got := titles(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check runs on the head commit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	metrics := getBody(t, ts.URL+"/metrics")
	if !strings.Contains(metrics, `contractbot_evaluations_total{outcome="error"} 2`) {
		t.Errorf("the failed attempts are not counted:\n%s", metrics)
	}
	if len(fake.Comments("acme", "contracts", n)) != 0 {
		t.Errorf("a failed evaluation commented on the pull request")
	}

	cloneURL.Store(remote)
	deliver()
	waitFor(t, func() bool {
		runs := fake.CheckRuns("acme", "contracts", head.String())
		return runs[len(runs)-1].GetStatus() == "completed"
	})
	// The newest run of the name is the one GitHub shows and branch protection reads.
	runs := fake.CheckRuns("acme", "contracts", head.String())
	if got := runs[len(runs)-1]; got.GetConclusion() != ConclusionActionRequired {
		t.Errorf("after recovery: %s %s %q", got.GetStatus(), got.GetConclusion(), got.GetOutput().GetTitle())
	}
}

// TestShowFailureWithoutChecksAPI: with a token (no GitHub App) the Checks API is
// refused, and the failure is a pending commit status instead.
func TestShowFailureWithoutChecksAPI(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.AddToken("ghp_token", "contractbot-user")
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: strings.Repeat("a", 40), BaseSHA: strings.Repeat("b", 40), BaseRef: "master"})
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(fake.ClientWithToken("ghp_token")), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := b.ShowFailure(context.Background(), "acme", "contracts", n, 0, false); err != nil {
		t.Fatal(err)
	}
	st := fake.Statuses("acme", "contracts", strings.Repeat("a", 40))
	if len(st) != 1 || st[0].GetState() != "pending" || st[0].GetContext() != GateName("master") || st[0].GetDescription() != FailureRetrying {
		t.Errorf("statuses: %v", st)
	}
}

// panickyReviews panics when the reviews of pull request `bad` are read: a bug deep
// in an evaluation.
type panickyReviews struct {
	GitHub
	bad int
}

func (p panickyReviews) ListReviews(ctx context.Context, owner, repo string, n int) ([]verdict.Review, error) {
	if n == p.bad {
		var reviews map[int][]verdict.Review
		reviews[n] = nil //nolint:staticcheck // a deliberate nil-map write: a runtime panic
	}
	return p.GitHub.ListReviews(ctx, owner, repo, n)
}

// TestReconcileSurvivesAPanic: the reconcile loop evaluates outside the webhook
// queue but with its guards: a panic in one pull request's evaluation is recovered
// and counted, that pull request shows the pending failure check, and the next pull
// request is still evaluated.
func TestReconcileSurvivesAPanic(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.SetCloneURL("acme", "contracts", remote)
	pr := githubfake.PullRequest{Author: "olivia", HeadSHA: head.String(), BaseSHA: base.String(), BaseRef: "master"}
	bad := fake.AddPullRequest("acme", "contracts", pr)
	good := fake.AddPullRequest("acme", "contracts", pr)

	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	srv := server.New(server.Config{Log: log})
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: panickyReviews{githubapi.New(fake.Client()), bad},
		Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }), Log: log, Queue: srv.Queue()}
	b.Reconcile(context.Background(), []Repository{{"acme", "contracts"}})

	if len(fake.Comments("acme", "contracts", good)) != 1 {
		t.Errorf("the pull request after the panicking one was not evaluated")
	}
	if len(fake.Comments("acme", "contracts", bad)) != 0 {
		t.Errorf("the panicking evaluation commented")
	}
	var titles []string
	for _, r := range fake.CheckRuns("acme", "contracts", head.String()) {
		titles = append(titles, r.GetStatus()+": "+r.GetOutput().GetTitle())
	}
	if !slices.Contains(titles, "in_progress: "+FailureRetrying) {
		t.Errorf("check runs on the head commit %q lack the pending failure check", titles)
	}
	if !strings.Contains(logs.String(), "job panicked") || !strings.Contains(logs.String(), "failure_test.go") {
		t.Errorf("the panic is not logged with its stack:\n%s", logs.String())
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `contractbot_evaluations_total{outcome="panic"} 1`) {
		t.Errorf("the panic is not counted")
	}
}
