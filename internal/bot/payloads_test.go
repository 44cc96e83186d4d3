package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
)

// TestRouteGitHubExamplePayloads routes GitHub's published example payloads: the ones
// the bot acts on become jobs for the right pull request, the others are ignored.
func TestRouteGitHubExamplePayloads(t *testing.T) {
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for file, want := range map[string]string{
		"pull_request.opened.json":           "Codertocat/Hello-World#2",
		"pull_request.synchronize.json":      "Codertocat/Hello-World#",
		"pull_request.labeled.json":          "",
		"pull_request_review.submitted.json": "Codertocat/Hello-World#2",
		"pull_request_review.dismissed.json": "Codertocat/Hello-World#",
		"issue_comment.created.json":         "", // a comment without a command
		"ping.event.json":                    "",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "webhooks", file))
		if err != nil {
			t.Fatal(err)
		}
		event := file[:len(file)-len(filepath.Ext(file))]
		event = event[:len(event)-len(filepath.Ext(event))]
		job, err := b.Route(server.Delivery{Event: event, Payload: data})
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		switch {
		case want == "" && job != nil:
			t.Errorf("%s: started a job for %s", file, job.Key)
		case want != "" && (job == nil || len(job.Key) < len(want) || job.Key[:len(want)] != want):
			t.Errorf("%s: job %v, want a key starting %q", file, job, want)
		}
	}
}

// TestPublishedPayloadEndToEnd delivers GitHub's example pull_request.opened payload,
// pointed at the fake's repository, and the bot converges the pull request.
func TestPublishedPayloadEndToEnd(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)

	var payload map[string]any
	data, err := os.ReadFile("testdata/webhooks/pull_request.opened.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &payload); err != nil {
		t.Fatal(err)
	}
	payload["number"] = n
	payload["pull_request"].(map[string]any)["number"] = n
	repo := payload["repository"].(map[string]any)
	repo["name"] = "contracts"
	repo["owner"].(map[string]any)["login"] = "acme"

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := botOn(t, fake, &now, log)
	srv := server.New(server.Config{WebhookSecret: []byte("s"), Workers: 1, QueueSize: 5, Route: b, Log: log})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	resp, err := githubfake.Deliver(context.Background(), nil, ts.URL+"/webhook", "s", "pull_request", payload)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d", resp.StatusCode)
	}
	waitFor(t, func() bool { return len(fake.Comments("acme", "contracts", n)) == 1 })
}
