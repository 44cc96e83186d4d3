package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestServeShowsOriginsDefaultBranch: in a clone with an unpushed commit on master and
// a feature branch checked out (with a commit of its own), serve's pages and registry
// both show origin/master's commit, name it, and never the checked-out branch.
func TestServeShowsOriginsDefaultBranch(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	origin := testutil.ExampleRepo(t)
	pushed, err := origin.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cloned, err := git.PlainClone(dir, false, &git.CloneOptions{URL: origin.Dir})
	if err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(dir, "contracts/users/user-profile/contract.yaml"), "subject: users.user-profile-value", "subject: users.unpushed-value")
	local := testutil.CommitAll(t, cloned, "an unpushed local commit", origin.When)
	wt, err := cloned.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true}); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "subject: orders.order-created-value", "subject: orders.feature-value")
	feature := testutil.CommitAll(t, cloned, "a commit on the feature branch", origin.When)

	base := startServe(t, "--repo", dir)
	get := func(path string) (string, http.Header) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b), resp.Header
	}
	subjects, h := get("/registry/subjects")
	if got := h.Get(registry.CommitHeader); got != pushed.Hash().String() {
		t.Errorf("the registry serves %s, want origin/master's %s (local %s, feature %s)", got, pushed.Hash(), local, feature)
	}
	catalog, _ := get("/subjects")
	for what, body := range map[string]string{"registry": subjects, "catalog": catalog} {
		if !strings.Contains(body, "users.user-profile-value") || !strings.Contains(body, "orders.order-created-value") {
			t.Errorf("the %s lacks origin's subjects:\n%s", what, body)
		}
		if strings.Contains(body, "users.unpushed-value") || strings.Contains(body, "orders.feature-value") {
			t.Errorf("the %s shows local commits:\n%s", what, body)
		}
	}
	if want := "Branch <code>origin/master</code> at commit <code>" + pushed.Hash().String()[:12] + "</code>"; !strings.Contains(catalog, want) {
		t.Errorf("the catalog's footer does not say %q", want)
	}
}

// startServe runs serve with args on a free loopback port until the test ends and
// returns its base URL once /readyz answers 200.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := New()
	var stderr bytes.Buffer
	cmd.SetErr(&stderr)
	cmd.SetOut(io.Discard)
	cmd.SetArgs(append([]string{"serve", "--addr", addr, "--cache-dir", t.TempDir()}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not become ready:\n%s", stderr.String())
		}
	}
}
