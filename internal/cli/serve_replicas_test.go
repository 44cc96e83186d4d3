package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestThreeReplicasBehindARoundRobinProxy runs three serve replicas as a Deployment
// of the chart does (deploy/helm/contractbot): each with its own cache and its own
// reconcile loop, every one taking webhooks through a round-robin proxy, against the
// GitHub fake and slacktest. Two breaking pull requests are delivered twice each (a
// redelivery lands on another replica) while all three reconcile: each gets one
// comment, one message per team on Slack, a pending gate; once both teams approve
// (the review webhooks again spread over the replicas), each gate is green, still
// with one comment and no message sent twice. The read side answers the same from
// any replica.
func TestThreeReplicasBehindARoundRobinProxy(t *testing.T) {
	r := testutil.ExampleRepo(t)
	base, _ := r.Git.Head()
	r.Branch("change")
	r.Edit("contracts/orders/order-created/order_created.avsc", "\"type\": \"long\",\n      \"doc\": \"Order total", "\"type\": \"string\",\n      \"doc\": \"Order total")
	head1 := r.Commit("amount becomes a string")
	r.Edit("contracts/orders/order-created/order_created.avsc", "\"name\": \"currency\"", "\"name\": \"currency_code\"")
	head2 := r.Commit("currency becomes currency_code")

	fake := githubfake.New()
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.SetCloneURL("acme", "contracts", r.Dir)
	fake.AddToken("t", "contractbot-machine") // the machine user the token belongs to
	fake.AddTeamMember("acme", "data-warehouse", "dana")
	fake.AddTeamMember("acme", "data-platform", "pat")
	prs := map[int]string{}
	for _, head := range []string{head1.String(), head2.String()} {
		n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: head, BaseSHA: base.Hash().String(), BaseRef: "master"})
		prs[n] = head
	}
	sl, posted := testutil.SlackWithHistory(t)
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "s")
	t.Setenv("CONTRACTBOT_STATE_KEY", "one key for every replica")
	t.Setenv("GITHUB_TOKEN", "t")
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")

	var backends []*url.URL
	for range 3 {
		u, err := url.Parse(startServe(t, "--repo", r.Dir, "--github-url", fake.URL()+"/api/v3/", "--slack-api-url", sl.GetAPIURL(),
			"--reconcile", "acme/contracts", "--reconcile-every", "1s", "--workers", "2"))
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, u)
	}
	var next atomic.Uint64
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		i := (next.Add(1) - 1) % uint64(len(backends))
		w.Header().Set("X-Replica", backends[i].Host)
		httputil.NewSingleHostReverseProxy(backends[i]).ServeHTTP(w, req)
	}))
	defer lb.Close()

	deliver := func(event string, payload any) {
		t.Helper()
		for range 2 { // and its redelivery, which the proxy sends to the next replica
			resp, err := githubfake.Deliver(context.Background(), nil, lb.URL+"/webhook", "s", event, payload)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
				t.Fatalf("%s webhook: %s", event, resp.Status)
			}
		}
	}
	for n := range prs {
		deliver("pull_request", fake.PullRequestEvent("acme", "contracts", n, "opened", "olivia"))
	}
	gate := func(n int) string {
		for _, s := range fake.Statuses("acme", "contracts", prs[n]) { // newest first
			if s.GetContext() == "contractbot: master" {
				return s.GetState()
			}
		}
		return ""
	}
	// settle waits until every pull request's gate is want and the replicas have
	// each reconciled at least twice more since, so a duplicate would have been sent.
	settle := func(want string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			ok := true
			for n := range prs {
				ok = ok && gate(n) == want && len(fake.Comments("acme", "contracts", n)) > 0
			}
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the gates did not turn %s: %s / %s; GitHub saw %v", want, gate(1), gate(2), fake.CountRoute())
			}
			time.Sleep(50 * time.Millisecond)
		}
		listed := fake.Count("GET", "/repos/{owner}/{repo}/pulls")
		for fake.Count("GET", "/repos/{owner}/{repo}/pulls") < listed+6 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	once := func(stage string) {
		t.Helper()
		msgs := posted()
		for n := range prs {
			// One sticky comment; a replica that lost the race to create it replaced
			// its own by a pointer to it (docs/bot.md, "Converge"): counted, logged.
			sticky, retired := 0, 0
			for _, c := range fake.Comments("acme", "contracts", n) {
				switch body := c.GetBody(); {
				case strings.HasPrefix(body, "<!-- contractbot:comment -->"):
					sticky++
				case strings.HasPrefix(body, "<!-- contractbot:duplicate -->"):
					retired++
				default:
					t.Errorf("%s: pull request #%d has a comment that is neither the sticky one nor a retired duplicate:\n%.300s", stage, n, body)
				}
			}
			if sticky != 1 {
				t.Errorf("%s: pull request #%d has %d sticky comments, want 1", stage, n, sticky)
			}
			if retired > len(backends)-1 {
				t.Errorf("%s: pull request #%d has %d retired duplicates; at most one per other replica can lose the first race", stage, n, retired)
			}
			t.Logf("%s: pull request #%d: 1 sticky comment, %d retired duplicates", stage, n, retired)
			ref := fmt.Sprintf("acme/contracts#%d", n)
			for _, ch := range []string{"#dw-realtime", "#data-platform"} {
				sent := 0
				for _, m := range msgs {
					if m.Channel == ch && strings.Contains(m.Text, ref) && m.ThreadTimestamp == "" {
						sent++
					}
				}
				if sent != 1 {
					t.Errorf("%s: %s got %d messages about %s, want 1", stage, ch, sent, ref)
				}
			}
		}
	}
	settle("pending")
	once("asked")

	for n := range prs {
		for _, who := range []string{"dana", "pat"} {
			id := fake.AddReview("acme", "contracts", n, who, "APPROVED", time.Now())
			deliver("pull_request_review", fake.ReviewEvent("acme", "contracts", n, id, "submitted"))
		}
	}
	settle("success")
	once("approved")

	// The read side: each replica answers with the same commit and the same registry.
	seen := map[string]string{}
	for range len(backends) {
		resp, err := http.Get(lb.URL + "/registry/subjects")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "orders.order-created-value") {
			t.Errorf("GET /registry/subjects from %s: %d %s", resp.Header.Get("X-Replica"), resp.StatusCode, body)
		}
		seen[resp.Header.Get("X-Replica")] = resp.Header.Get("X-Contractbot-Commit") + " " + string(body)
	}
	if len(seen) != len(backends) {
		t.Errorf("the proxy reached %d replicas, want %d", len(seen), len(backends))
	}
	for _, v := range seen {
		for _, w := range seen {
			if v != w {
				t.Errorf("replicas answer differently:\n%s\n%s", v, w)
			}
		}
	}
}
