package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

// remoteWithChange makes a repository holding the example tree on master and, on a
// branch, a change of the order amount's type; it returns its folder and both SHAs.
func remoteWithChange(t *testing.T) (string, plumbing.Hash, plumbing.Hash) {
	t.Helper()
	return remoteWith(t, func(r *testutil.Repo) {
		r.Edit("contracts/orders/order-created/order_created.avsc", "\"type\": \"long\",\n      \"doc\": \"Order total", "\"type\": \"string\",\n      \"doc\": \"Order total")
	})
}

func TestBotEvaluatesAPullRequest(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	gh := newRecorder()
	opened := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	gh.pr = &PullRequest{Owner: "acme", Repo: "contracts", Number: 42, HeadSHA: head.String(), BaseSHA: base.String(),
		BaseRef: "master", Author: "olivia", CloneURL: remote, HTMLURL: "https://github.example/acme/contracts", State: "open", CreatedAt: opened}
	gh.members = map[string][]string{"acme/data-warehouse": {"dana"}}
	now := opened.Add(time.Hour)
	gh.clock = func() time.Time { return now }
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: gh, Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := context.Background()
	if err := b.Evaluate(ctx, "acme", "contracts", 42, b.Log); err != nil {
		t.Fatal(err)
	}
	if len(gh.comments) != 1 || !strings.Contains(gh.comments[0].Body, "**BREAKING**") || !strings.Contains(gh.comments[0].Body, "gmv-dashboard") {
		t.Fatalf("comment:\n%v", gh.comments)
	}
	if gh.labelList()[0] != LabelBreaking {
		t.Errorf("labels %v", gh.labelList())
	}
	run := gh.runs[gh.checks[head.String()]]
	if len(run) == 0 || run[0].Conclusion != ConclusionActionRequired {
		t.Fatalf("check run: %+v", run)
	}
	// A member of data-warehouse approves; the bot hears of the review.
	gh.reviews = []verdict.Review{{Login: "dana", State: "APPROVED", SubmittedAt: now.Add(time.Minute)}}
	now = now.Add(2 * time.Minute)
	job, err := b.Route(server.Delivery{ID: "r1", Event: "pull_request_review", Payload: []byte(`{"action":"submitted","pull_request":{"number":42},"repository":{"name":"contracts","owner":{"login":"acme"}}}`)})
	if err != nil || job == nil {
		t.Fatalf("route: %v %v", job, err)
	}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(gh.comments) != 1 || !strings.Contains(gh.comments[0].Body, "approved by @dana") {
		t.Errorf("after the approval:\n%s", gh.comments[0].Body)
	}
	st, err := ParseState(testKey, "acme/contracts#42", gh.comments[0].Body)
	if err != nil || st.HeadSHA != head.String() || st.Teams["data-warehouse"].Fingerprint == "" {
		t.Errorf("state %+v %v", st, err)
	}
}

func TestRouteIgnoresWhatItShould(t *testing.T) {
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, tc := range []struct {
		event, payload string
		job, err       bool
	}{
		{"push", `{}`, false, true}, // a push names its repository and commit
		{"push", `{"ref":"refs/tags/v1","after":"0123456789012345678901234567890123456789","repository":{"name":"r","owner":{"login":"o"}}}`, false, false},
		{"status", `{"sha":"0123456789012345678901234567890123456789","context":"contractbot: main","state":"success","sender":{"login":"contractbot[bot]"},"repository":{"name":"r","owner":{"login":"o"}}}`, false, false},
		{"status", `{"sha":"0123456789012345678901234567890123456789","context":"ci","state":"success","sender":{"login":"wendy"},"repository":{"name":"r","owner":{"login":"o"}}}`, false, false},
		{"status", `{"sha":"0123456789012345678901234567890123456789","context":"contractbot: main","state":"pending","sender":{"login":"wendy"},"repository":{"name":"r","owner":{"login":"o"}}}`, false, false},
		{"status", `{"sha":"0123456789012345678901234567890123456789","context":"contractbot: main","state":"success","sender":{"login":"wendy"},"repository":{"name":"r","owner":{"login":"o"}}}`, true, false},
		{"pull_request", `{"action":"labeled","pull_request":{"number":1},"repository":{"name":"r","owner":{"login":"o"}}}`, false, false},
		{"pull_request", `{"action":"edited","pull_request":{"number":1},"repository":{"name":"r","owner":{"login":"o"}},"changes":{"title":{"from":"x"}}}`, false, false},
		{"pull_request", `{"action":"edited","pull_request":{"number":1},"repository":{"name":"r","owner":{"login":"o"}},"changes":{"base":{"ref":{"from":"dev"}}}}`, true, false},
		{"pull_request", `{"action":"synchronize","pull_request":{"number":1},"repository":{"name":"r","owner":{"login":"o"}}}`, true, false},
		{"pull_request", `{"action":"opened"`, false, true},
		{"pull_request", `{"action":"opened"}`, false, true},
	} {
		job, err := b.Route(server.Delivery{Event: tc.event, Payload: []byte(tc.payload)})
		if (job != nil) != tc.job || (err != nil) != tc.err {
			t.Errorf("%s %s: job %v err %v", tc.event, tc.payload, job != nil, err)
		}
	}
}

// TestRouteRefusesNamesGitHubNeverSends: an owner, repository or pull request number
// from a payload goes into API paths; one GitHub would never send ("..", a slash, a
// negative number) is refused as a malformed payload (400, logged) before any call.
func TestRouteRefusesNamesGitHubNeverSends(t *testing.T) {
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, Publishing: &Publishing{},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	payloads := map[string]func(owner, repo string, n int) string{
		"pull_request": func(owner, repo string, n int) string {
			return fmt.Sprintf(`{"action":"synchronize","pull_request":{"number":%d},"repository":{"name":%q,"owner":{"login":%q}}}`, n, repo, owner)
		},
		"pull_request_review": func(owner, repo string, n int) string {
			return fmt.Sprintf(`{"action":"submitted","pull_request":{"number":%d},"repository":{"name":%q,"owner":{"login":%q}}}`, n, repo, owner)
		},
		"issue_comment": func(owner, repo string, n int) string {
			return fmt.Sprintf(`{"action":"created","issue":{"number":%d,"pull_request":{}},"comment":{"id":1,"body":"/contractbot recheck","user":{"login":"olivia"}},"repository":{"name":%q,"owner":{"login":%q}}}`, n, repo, owner)
		},
		"push": func(owner, repo string, _ int) string {
			return fmt.Sprintf(`{"ref":"refs/heads/main","after":"abc","repository":{"name":%q,"owner":{"login":%q},"default_branch":"main"}}`, repo, owner)
		},
	}
	for _, tc := range []struct {
		owner, repo string
		n           int
		ok          bool
	}{
		{"acme", "contracts", 1, true},
		{"octo-cat", ".github", 7, true},
		{"octocat_acme", "my.repo_x-1", 7, true},
		{"..", "contracts", 1, false},
		{"acme", "../..", 1, false},
		{"acme", "..", 1, false},
		{"acme", "contracts/pulls", 1, false},
		{"acme/x", "contracts", 1, false},
		{"acme", "contracts?x=1", 1, false},
		{"-acme", "contracts", 1, false},
		{strings.Repeat("a", 40), "contracts", 1, false},
		{"acme", strings.Repeat("r", 101), 1, false},
		{"acme", "contracts", -1, false},
	} {
		for event, payload := range payloads {
			if event == "push" && tc.n <= 0 {
				continue // a push names no pull request
			}
			job, err := b.Route(server.Delivery{Event: event, Payload: []byte(payload(tc.owner, tc.repo, tc.n))})
			if tc.ok && (job == nil || err != nil) {
				t.Errorf("%s %s/%s#%d: job %v, err %v; want a job", event, tc.owner, tc.repo, tc.n, job != nil, err)
			}
			if !tc.ok && (job != nil || err == nil) {
				t.Errorf("%s %s/%s#%d: job %v, err %v; want it refused", event, tc.owner, tc.repo, tc.n, job != nil, err)
			}
		}
	}
}
