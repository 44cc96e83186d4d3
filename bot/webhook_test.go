package bot

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
	f.queue = NewQueue(ctx, 1, maxPending, nil)
	f.m = NewWebhookMetrics(prometheus.NewRegistry())
	w := &Webhook{
		Secret: secret, MaxBody: 1 << 10, Queue: f.queue, Metrics: f.m,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Route: func(d Delivery) (*Job, error) {
			f.routed.Add(1)
			if bytes.Contains(d.Payload, []byte("not json")) {
				return nil, errors.New("invalid character")
			}
			if d.Event != "pull_request" {
				return nil, nil
			}
			key := string(d.Payload)
			return &Job{Key: key, Run: func(context.Context) { <-f.block; f.ran.Add(1) }}, nil
		},
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
	if got := testutil.ToFloat64(f.m.Deliveries.WithLabelValues("pull_request", "unauthorized")); got != 4 {
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
	f.queue.Drain()
	if f.ran.Load() != 1 {
		t.Errorf("a duplicated delivery ran %d times, want once", f.ran.Load())
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

func TestQueueOrdersAndSupersedes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var superseded atomic.Int32
	q := NewQueue(ctx, 2, 100, func(string) { superseded.Add(1) })
	var mu sync.Mutex
	var log []string
	gate := make(chan struct{})
	job := func(key, name string, wait bool) *Job {
		return &Job{Key: key, Run: func(context.Context) {
			if wait {
				<-gate
			}
			mu.Lock()
			log = append(log, name)
			mu.Unlock()
		}}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(q.Submit(job("pr-1", "a1", true)))
	waitFor(t, func() bool { return q.Len() == 0 }) // a1 running
	must(q.Submit(job("pr-1", "a2", false)))        // waits behind a1
	must(q.Submit(job("pr-1", "a3", false)))        // replaces a2
	must(q.Submit(job("pr-2", "b1", false)))        // another pull request runs meanwhile
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(log) == 1 })
	close(gate)
	q.Drain()
	if strings.Join(log, ",") != "b1,a1,a3" || superseded.Load() != 1 {
		t.Errorf("ran %v (superseded %d), want b1,a1,a3 with a2 superseded", log, superseded.Load())
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
