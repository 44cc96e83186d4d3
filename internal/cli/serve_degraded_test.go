package cli

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestServeDegradedAfterRewrite: the default branch is force-pushed under a running
// serve. The registry and the pages keep serving the last good commit, /readyz says
// degraded with the reason, the metric says so, and every page shows the banner.
func TestServeDegradedAfterRewrite(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	r := testutil.ExampleRepo(t)
	served, rewrite := rewritable(t, r)
	base := startServe(t, "--repo", r.Dir)
	rewrite()

	get := func(path string) (int, string, http.Header) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	var ready string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, ready, _ = get("/readyz"); strings.HasPrefix(ready, "degraded:") {
			break
		}
	}
	if !strings.HasPrefix(ready, "degraded: The branch") || !strings.Contains(ready, "was rewritten") || !strings.Contains(ready, served.String()[:12]) {
		t.Fatalf("/readyz after a rewrite: %q", ready)
	}
	if _, metrics, _ := get("/metrics"); !strings.Contains(metrics, `contractbot_registry_degraded{cause="history_rewritten"} 1`) {
		t.Errorf("the metrics do not say degraded:\n%s", grepLines(metrics, "contractbot_registry"))
	}
	if _, _, h := get("/registry/subjects"); h.Get(registry.CommitHeader) != served.String() {
		t.Errorf("the registry serves %s, want the last good commit %s", h.Get(registry.CommitHeader), served)
	}
	status, catalog, _ := get("/subjects")
	if status != 200 || !strings.Contains(catalog, `<p class="degraded" role="alert">`) ||
		!strings.Contains(catalog, "serve commit <code>"+served.String()[:12]+"</code>") {
		t.Errorf("the catalog does not show the banner:\n%s", catalog)
	}
}

// rewritable commits a second commit on r and returns it, with a function that then
// rewrites the branch: back to the first commit, and another commit on top of it.
func rewritable(t *testing.T, r *testutil.Repo) (plumbing.Hash, func()) {
	t.Helper()
	first, err := r.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(r.Dir, "contracts/users/user-profile/contract.yaml"), "tier:", "signoff_hours: 48\ntier:")
	served := testutil.CommitAll(t, r.Git, "a second commit", r.When.Add(time.Minute))
	return served, func() {
		// The rewrite is made on another branch and the served one moved to it at
		// once: a refresh between a reset and a commit would see a second rewrite.
		wt, _ := r.Git.Worktree()
		if err := wt.Checkout(&git.CheckoutOptions{Hash: first.Hash(), Branch: "refs/heads/rewrite", Create: true, Force: true}); err != nil {
			t.Fatal(err)
		}
		edit(t, filepath.Join(r.Dir, "contracts/users/user-profile/contract.yaml"), "tier:", "signoff_hours: 72\ntier:")
		if _, err := wt.Add("."); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: r.When.Add(2 * time.Minute)}
		h, err := wt.Commit("the rewrite", &git.CommitOptions{Author: sig, Committer: sig, Parents: []plumbing.Hash{first.Hash()}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Git.Storer.SetReference(plumbing.NewHashReference(first.Name(), h)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeAlertsDegradedOnSlack: with Slack configured and no --ops-channel, a
// rewritten branch under a running serve is told once to the platform team's channel
// (teams.yaml's), however many refreshes fail after it.
func TestServeAlertsDegradedOnSlack(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")
	sl, posted := testutil.SlackWithHistory(t)
	r := testutil.ExampleRepo(t)
	served, rewrite := rewritable(t, r)
	startServe(t, "--repo", r.Dir, "--slack-api-url", sl.GetAPIURL(), "--reconcile-every", "24h")
	rewrite()
	var alerts []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(alerts) == 0; time.Sleep(50 * time.Millisecond) {
		alerts = degradedPosts(posted())
	}
	time.Sleep(2500 * time.Millisecond) // two more refreshes, which fail the same way
	msgs := posted()
	alerts = degradedPosts(msgs)
	if len(alerts) != 1 || !strings.Contains(alerts[0], "was rewritten") || !strings.Contains(alerts[0], served.String()[:12]) {
		t.Fatalf("degraded alerts: %q", alerts)
	}
	for _, m := range msgs {
		if strings.Contains(m.Text, "registry is degraded") && m.Channel != "#data-platform" {
			t.Errorf("the alert went to %s, want the platform team's #data-platform", m.Channel)
		}
	}
}

// degradedPosts are the texts of the degraded-registry alerts among msgs.
func degradedPosts(msgs []slack.Message) []string {
	var out []string
	for _, m := range msgs {
		if strings.Contains(m.Text, "registry is degraded") {
			out = append(out, m.Text)
		}
	}
	return out
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
