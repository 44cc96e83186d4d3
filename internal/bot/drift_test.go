package bot

import (
	"context"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestDriftAlertsOnce: an empty registry has drifted from Git; the watch alerts the
// platform channel once, and again only when the drift changes.
func TestDriftAlertsOnce(t *testing.T) {
	repo := testutil.ExampleRepo(t).Git
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
		Notify: botslack.New("xoxb-test", sl.GetAPIURL()),
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
