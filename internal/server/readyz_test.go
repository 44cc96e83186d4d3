package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadyzSaysWhyNotReady: /readyz answers 503 "not ready: <reason>" while the read
// side says it cannot answer yet (the registry indexing), 200 "ready" once it can, and
// 200 "degraded: <reason>" while it serves an older commit.
func TestReadyzSaysWhyNotReady(t *testing.T) {
	var r readiness
	r.notReady.Store("indexing: the embedded registry is indexing the history of main up to 0123456789ab (for 3s)")
	r.degraded.Store("")
	notReady, degraded := &r.notReady, &r.degraded
	s := New(Config{Readiness: &r})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l, time.Second) }()
	defer func() { cancel(); <-done }()
	get := func() (int, string) {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			resp, err := http.Get("http://" + l.Addr().String() + "/readyz")
			if err == nil {
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if string(b) != "not ready\n" { // Serve has not flagged itself yet
					return resp.StatusCode, string(b)
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("/readyz: %v", err)
			}
		}
	}
	for _, step := range []struct {
		notReady, degraded string
		code               int
		body               string
	}{
		{notReady.Load().(string), "", http.StatusServiceUnavailable, "not ready: " + notReady.Load().(string) + "\n"},
		{"", "", http.StatusOK, "ready\n"},
		{"", "the branch was rewritten", http.StatusOK, "degraded: the branch was rewritten\n"},
	} {
		notReady.Store(step.notReady)
		degraded.Store(step.degraded)
		if code, body := get(); code != step.code || body != step.body {
			t.Errorf("not ready %q, degraded %q: /readyz %d %q, want %d %q", step.notReady, step.degraded, code, body, step.code, step.body)
		}
	}
}

// readiness is a Readiness the test changes.
type readiness struct{ notReady, degraded atomic.Value }

func (r *readiness) NotReady() string { return r.notReady.Load().(string) }
func (r *readiness) Degraded() string { return r.degraded.Load().(string) }
