package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

var secret = []byte("It's a Secret to Everybody")

type hookFixture struct {
	srv    *httptest.Server
	routed atomic.Int32
	ran    atomic.Int32
	m      *WebhookMetrics
	queue  *Queue
	block  chan struct{}
}

func newHook(t *testing.T, maxPending int, blocking bool) *hookFixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := &hookFixture{block: make(chan struct{})}
	if !blocking {
		close(f.block)
	}
	f.queue = NewQueue(ctx, QueueConfig{Workers: 1, MaxPending: maxPending})
	f.m = NewWebhookMetrics(prometheus.NewRegistry())
	w := &Webhook{
		Secret: secret, MaxBody: 1 << 10, Queue: f.queue, Metrics: f.m,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Route: RouterFunc(func(d Delivery) (*Job, error) {
			f.routed.Add(1)
			if bytes.Contains(d.Payload, []byte("not json")) {
				return nil, errors.New("invalid character")
			}
			if d.Event != "pull_request" {
				return nil, nil
			}
			key := string(d.Payload)
			return &Job{Key: key, Run: func(context.Context) error { <-f.block; f.ran.Add(1); return nil }}, nil
		}),
	}
	f.srv = httptest.NewServer(w)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *hookFixture) post(t *testing.T, event, id, body, sig string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL, strings.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	if sig != "" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestWebhookSignature(t *testing.T) {
	f := newHook(t, 10, false)
	body := `{"action":"opened"}`
	for name, sig := range map[string]string{
		"missing": "",
		"forged":  Sign([]byte("wrong secret"), []byte(body)),
		"not hex": "sha256=zz",
		"sha1":    "sha1=" + strings.TrimPrefix(Sign(secret, []byte(body)), "sha256="),
	} {
		if resp := f.post(t, "pull_request", "d-"+name, body, sig); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s signature: status %d, want 401", name, resp.StatusCode)
		}
	}
	if f.routed.Load() != 0 {
		t.Errorf("a body with a bad signature was parsed %d times", f.routed.Load())
	}
	if got := testutil.ToFloat64(f.m.Deliveries.WithLabelValues(EventUnverified, "unauthorized")); got != 4 {
		t.Errorf("unauthorized count %v, want 4", got)
	}
	// GitHub's documented example: secret "It's a Secret to Everybody", body "Hello, World!".
	if got := Sign(secret, []byte("Hello, World!")); got != "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" {
		t.Errorf("signature of GitHub's example: %s", got)
	}
}

func TestWebhookOutcomes(t *testing.T) {
	f := newHook(t, 10, false)
	sign := func(b string) string { return Sign(secret, []byte(b)) }
	if resp := f.post(t, "ping", "p1", "{}", sign("{}")); resp.StatusCode != http.StatusOK {
		t.Errorf("ping: %d", resp.StatusCode)
	}
	if resp := f.post(t, "star", "s1", "{}", sign("{}")); resp.StatusCode != http.StatusAccepted {
		t.Errorf("unknown event: %d, want 202", resp.StatusCode)
	}
	if resp := f.post(t, "pull_request", "m1", "not json", sign("not json")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed payload: %d, want 400", resp.StatusCode)
	}
	big := strings.Repeat("x", 2<<10)
	if resp := f.post(t, "pull_request", "b1", big, sign(big)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d, want 413", resp.StatusCode)
	}
	for i := 0; i < 3; i++ { // the same delivery three times
		if resp := f.post(t, "pull_request", "dup", "pr-1", sign("pr-1")); resp.StatusCode != http.StatusAccepted {
			t.Errorf("delivery %d: %d", i, resp.StatusCode)
		}
	}
	// A signed but malformed delivery is refused; its id stays deliverable, so the
	// valid delivery GitHub sends with that id later is queued, not a duplicate.
	if resp := f.post(t, "pull_request", "m2", "not json", sign("not json")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed payload: %d, want 400", resp.StatusCode)
	}
	if resp := f.post(t, "pull_request", "m2", "pr-2", sign("pr-2")); resp.StatusCode != http.StatusAccepted {
		t.Errorf("valid delivery after a malformed one with its id: %d, want 202", resp.StatusCode)
	}
	f.queue.Drain()
	if got := testutil.ToFloat64(f.m.Deliveries.WithLabelValues("pull_request", "queued")); got != 2 {
		t.Errorf("queued %v, want 2 (dup once, m2 once)", got)
	}
	if f.ran.Load() != 2 {
		t.Errorf("jobs ran %d times, want 2 (a duplicated delivery runs once)", f.ran.Load())
	}
	if got := testutil.ToFloat64(f.m.Deliveries.WithLabelValues("pull_request", "duplicate")); got != 2 {
		t.Errorf("duplicates counted %v, want 2", got)
	}
}

func TestWebhookQueueFull(t *testing.T) {
	f := newHook(t, 1, true)
	sign := func(b string) string { return Sign(secret, []byte(b)) }
	f.post(t, "pull_request", "a", "pr-1", sign("pr-1")) // taken by the worker, blocks
	waitFor(t, func() bool { return f.queue.Len() == 0 })
	f.post(t, "pull_request", "b", "pr-2", sign("pr-2")) // waits
	resp := f.post(t, "pull_request", "c", "pr-3", sign("pr-3"))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("full queue: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if got := testutil.ToFloat64(f.m.QueueFull); got != 1 {
		t.Errorf("queue-full count %v", got)
	}
	close(f.block)
	waitFor(t, func() bool { return f.ran.Load() == 2 })
	// GitHub redelivers the refused one with the same id: it must not be a duplicate.
	if resp := f.post(t, "pull_request", "c", "pr-3", sign("pr-3")); resp.StatusCode != http.StatusAccepted {
		t.Errorf("redelivery after 503: %d", resp.StatusCode)
	}
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
