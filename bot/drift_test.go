package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestDriftAlertsOnce: an empty registry has drifted from Git; the watch alerts the
// platform channel once, and again only when the drift changes.
func TestDriftAlertsOnce(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CopyExample(t, dir)
	wt, _ := repo.Worktree()
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("example", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}); err != nil {
		t.Fatal(err)
	}
	// An empty registry, as Confluent's answers it.
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		switch r.URL.Path {
		case "/subjects":
			io.WriteString(w, "[]")
		case "/config":
			io.WriteString(w, `{"compatibilityLevel":"BACKWARD"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error_code":40401,"message":"Subject not found."}`)
		}
	}))
	defer reg.Close()
	client, err := registry.NewClient(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	sl, posted := slackWithHistory(t)
	w := &DriftWatch{Repo: repo, Registry: client, Channel: "#data-platform",
		Notify: &SlackNotifier{Client: slack.New("xoxb-test", slack.OptionAPIURL(sl.GetAPIURL()))},
		Log:    slog.New(slog.NewTextHandler(io.Discard, nil))}
	for i := 0; i < 2; i++ {
		if err := w.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	msgs := posted()
	if len(msgs) != 1 || msgs[0].Channel != "#data-platform" || !strings.Contains(msgs[0].Text, "drifted from Git") || !strings.Contains(msgs[0].Text, "orders.order-created-value") {
		t.Fatalf("alerts: %+v", msgs)
	}
}
