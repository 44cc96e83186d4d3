package bot

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/testutil"
)

// remoteWith makes a repository with the example tree on master and one commit on a
// branch made by edit; it returns the folder and the two SHAs.
func remoteWith(t *testing.T, edit func(r *testutil.Repo)) (string, plumbing.Hash, plumbing.Hash) {
	t.Helper()
	r := testutil.ExampleRepo(t)
	base, _ := r.Git.Head()
	r.Branch("change")
	edit(r)
	return r.Dir, base.Hash(), r.Commit("change")
}

// fakeWithPR is the change from base to head in remote as a pull request by olivia
// into master on the GitHub fake, whose clock reads *now (the test moves it).
func fakeWithPR(t *testing.T, remote string, base, head plumbing.Hash, now *time.Time) (*githubfake.Server, int) {
	t.Helper()
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return *now }))
	t.Cleanup(fake.Close)
	fake.AddRepo("acme", "contracts")
	fake.SetCloneURL("acme", "contracts", remote)
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: head.String(), BaseSHA: base.String(), BaseRef: "master"})
	return fake, n
}

// botOn is a bot (a replica, or the same after a restart) on the GitHub fake at *now,
// logging to log (nil: nowhere).
func botOn(t *testing.T, fake *githubfake.Server, now *time.Time, log *slog.Logger) *Bot {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(fake.Client()), Cache: &GitCache{Dir: t.TempDir()},
		Clock: clock.Func(func() time.Time { return *now }), Log: log}
}

// TestBrokenYAMLInThePullRequest: the comment explains the error with file:line, the
// check fails, nothing crashes.
func TestBrokenYAMLInThePullRequest(t *testing.T) {
	remote, base, head := remoteWith(t, func(r *testutil.Repo) {
		r.Write("contracts/dws/gmv-1min/consumers/gmv-dashboard.yaml", "name: gmv-dashboard\nreads: [window_start,\n")
	})
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	b := botOn(t, fake, &now, nil)
	if err := b.Evaluate(context.Background(), "acme", "contracts", n, b.Log); err != nil {
		t.Fatal(err)
	}
	body := fake.Comments("acme", "contracts", n)[0].GetBody()
	if !strings.Contains(body, "gmv-dashboard.yaml:2:") || !strings.Contains(body, "yaml-syntax") {
		t.Errorf("the comment does not point at the broken line:\n%s", body)
	}
	if c := fake.CheckRuns("acme", "contracts", head.String())[0].GetConclusion(); c != ConclusionFailure {
		t.Errorf("check %s, want failure", c)
	}
}

// TestRateLimitedGitHubConverges: GitHub answers with secondary rate limits; the bot
// waits as told and converges.
func TestRateLimitedGitHubConverges(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)
	fake.SecondaryRateLimitNext("GET", "/repos/{owner}/{repo}/issues/{number}/comments", 1, time.Second)
	fake.FailNext("POST", "/repos/{owner}/{repo}/check-runs", 1, 502)
	api := githubapi.New(fake.Client())
	var waits []time.Duration
	// Real waits: go-github itself refuses calls until a secondary limit has passed.
	api.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); time.Sleep(d); return nil }
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: api, Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := b.Evaluate(context.Background(), "acme", "contracts", n, b.Log); err != nil {
		t.Fatal(err)
	}
	if len(fake.Comments("acme", "contracts", n)) != 1 || len(fake.CheckRuns("acme", "contracts", head.String())) != 1 {
		t.Fatal("did not converge")
	}
	var sawRetryAfter bool
	for _, w := range waits {
		if w == time.Second {
			sawRetryAfter = true
		}
	}
	if !sawRetryAfter || len(waits) < 2 {
		t.Errorf("waits %v: want Retry-After (1 s) honoured and a backoff after the 502", waits)
	}
}
