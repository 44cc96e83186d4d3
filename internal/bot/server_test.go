package bot

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
)

// TestServeEndToEnd: GitHub (the fake) delivers a signed pull_request webhook to the
// running server on loopback; the bot answers at once and converges the pull request.
func TestServeEndToEnd(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake, n := fakeWithPR(t, remote, base, head, &now)

	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	b := botOn(t, fake, &now, log)
	srv := server.New(server.Config{WebhookSecret: []byte("s3cret"), Workers: 2, QueueSize: 10, Route: b, Log: log})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l, 5*time.Second) }()
	url := "http://" + l.Addr().String()
	waitFor(t, func() bool { return get(t, url+"/readyz") == http.StatusOK })

	resp, err := githubfake.Deliver(ctx, nil, url+"/webhook", "wrong", "pull_request", fake.PullRequestEvent("acme", "contracts", n, "opened", "olivia"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged delivery: %d", resp.StatusCode)
	}
	start := time.Now()
	resp, err = githubfake.Deliver(ctx, nil, url+"/webhook", "s3cret", "pull_request", fake.PullRequestEvent("acme", "contracts", n, "opened", "olivia"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery: %d", resp.StatusCode)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the webhook answered after %s; the work must leave the request", d)
	}
	waitFor(t, func() bool { return len(fake.Comments("acme", "contracts", n)) == 1 })
	if body := fake.Comments("acme", "contracts", n)[0].GetBody(); !strings.Contains(body, "BREAKING") {
		t.Errorf("comment: %s", body)
	}
	if code := get(t, url+"/healthz"); code != http.StatusOK {
		t.Errorf("healthz %d", code)
	}
	metrics := getBody(t, url+"/metrics")
	if !strings.Contains(metrics, `contractbot_webhook_deliveries_total{event="pull_request",outcome="queued"} 1`) ||
		!strings.Contains(metrics, `outcome="unauthorized"} 1`) {
		t.Errorf("metrics lack the deliveries:\n%s", metrics)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// testWriter sends log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
