package registry

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	"github.com/prometheus/client_golang/prometheus"
	promtest "github.com/prometheus/client_golang/prometheus/testutil"
)

// syncBuffer is a log sink safe for the registry's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// After the branch's history is rewritten the registry keeps serving the last good
// commit and says it is degraded: Status and Degraded give the reason, the metric is
// 1, one error is logged and one alert raised however often it refreshes; when the
// branch is restored it follows again.
func TestDegradedAfterRewrite(t *testing.T) {
	dir, repo := testRepo(t)
	var logs syncBuffer
	alerts := make(chan Status, 10)
	srv, err := NewServer(Source{Repo: repo, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		OnDegraded: func(st Status) { alerts <- st }})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := srv.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	if srv.Degraded() != "" || srv.Status().Degraded {
		t.Fatalf("degraded at start: %+v", srv.Status())
	}
	served := srv.Head()
	ref, _ := repo.Head()
	c, _ := repo.CommitObject(ref.Hash())
	wt, _ := repo.Worktree()
	edit(t, filepath.Join(dir, "contracts/users/user-profile/user_profile.avsc"), `"doc"`, `"doc": "Rewritten.", "x-doc"`)
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	rewritten, err := wt.Commit("rewrite", &git.CommitOptions{Parents: []plumbing.Hash{c.ParentHashes[0]},
		Author: &gitobject.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := srv.Refresh(); err == nil {
			t.Fatal("a rewritten branch was followed")
		}
	}
	st := srv.Status()
	if !st.Degraded || st.Cause != CauseHistoryRewritten || st.Serving != served || st.BranchHead != rewritten.String() ||
		!strings.Contains(st.Reason, "was rewritten") || !strings.Contains(st.Reason, served[:12]) || srv.Degraded() != st.Reason {
		t.Fatalf("status after a rewrite: %+v", st)
	}
	if got := promtest.ToFloat64(srv.health.degraded.WithLabelValues(CauseHistoryRewritten)); got != 1 {
		t.Errorf("contractbot_registry_degraded{cause=history_rewritten} = %v, want 1", got)
	}
	if got := promtest.ToFloat64(srv.health.failures.WithLabelValues(CauseHistoryRewritten)); got != 5 {
		t.Errorf("refresh failures = %v, want 5", got)
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d error lines for one cause, want 1:\n%s", n, logs.String())
	}
	select {
	case a := <-alerts:
		if a.Cause != CauseHistoryRewritten || a.Serving != served {
			t.Errorf("alert %+v", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no alert")
	}
	select {
	case a := <-alerts:
		t.Errorf("a second alert for the same cause: %+v", a)
	case <-time.After(100 * time.Millisecond):
	}

	// The branch restored: followed again, the metric back to 0.
	if err := repo.Storer.SetReference(plumbing.NewHashReference(ref.Name(), ref.Hash())); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Refresh(); err != nil {
		t.Fatal(err)
	}
	if srv.Status().Degraded || srv.Degraded() != "" {
		t.Errorf("still degraded after the branch was restored: %+v", srv.Status())
	}
	if got := promtest.ToFloat64(srv.health.degraded.WithLabelValues(CauseHistoryRewritten)); got != 0 {
		t.Errorf("degraded gauge = %v after recovery", got)
	}
	if !strings.Contains(logs.String(), "following the branch again") {
		t.Errorf("no recovery line:\n%s", logs.String())
	}
}
