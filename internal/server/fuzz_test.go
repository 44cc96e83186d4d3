package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// FuzzWebhook sends the endpoint arbitrary bodies and header values, signed or not.
// Whatever arrives: no panic; an answer from a fixed set; nothing reaches the router
// without a valid signature; metric labels stay within the fixed values; log lines
// stay short.
func FuzzWebhook(f *testing.F) {
	f.Add([]byte(`{"action":"opened","number":1}`), "pull_request", "72d3162e-cc78-11e3-81ab-4c9367dc0958", true, "")
	f.Add([]byte(`{"action":"opened"}`), "pull_request", "d1", false, "sha256=00")
	f.Add([]byte(`not json`), "push", "", true, "")
	f.Add([]byte(`{}`), "ping", "p", true, "")
	f.Add([]byte(`{}`), "", "x", true, "")
	f.Add([]byte{0xff, 0xfe, 0}, "pull_request\x00\n", strings.Repeat("é", 100), true, "")
	f.Add([]byte(strings.Repeat("[", 5000)), "issue_comment", "id", true, "")
	f.Add([]byte(`{}`), strings.Repeat("e", 300), strings.Repeat("d", 300), false, "sha1=abc")

	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	var logs lockedBuffer
	var routed atomic.Int64
	reg := prometheus.NewRegistry()
	w := &Webhook{Secret: secret, MaxBody: 64 << 10, Log: slog.New(slog.NewJSONHandler(&logs, nil)),
		Queue:   NewQueue(ctx, QueueConfig{Workers: 1, MaxPending: 10}),
		Metrics: NewWebhookMetrics(reg),
		Route: RouterFunc(func(d Delivery) (*Job, error) {
			routed.Add(1)
			var v map[string]any
			if err := json.Unmarshal(d.Payload, &v); err != nil {
				return nil, errors.New("payload is not a JSON object")
			}
			if d.Event != "pull_request" {
				return nil, nil
			}
			return &Job{Key: "pr", Run: func(context.Context) error { return nil }}, nil
		})}
	labels := append(slices.Clone(Events), EventUnverified, EventOther)
	answers := []int{http.StatusOK, http.StatusAccepted, http.StatusBadRequest, http.StatusUnauthorized,
		http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable}

	f.Fuzz(func(t *testing.T, body []byte, event, id string, signed bool, sig string) {
		valid := Sign(secret, body)
		if signed {
			sig = valid
		}
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		req.Header["X-Github-Event"] = []string{event}
		req.Header["X-Github-Delivery"] = []string{id}
		req.Header["X-Hub-Signature-256"] = []string{sig}
		before := routed.Load()
		logs.Reset()
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, req)
		if !slices.Contains(answers, rec.Code) {
			t.Fatalf("answered %d", rec.Code)
		}
		if sig != valid {
			if rec.Code != http.StatusUnauthorized && rec.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("unsigned request answered %d", rec.Code)
			}
			if routed.Load() != before {
				t.Fatal("an unsigned request reached the router")
			}
		}
		for _, line := range strings.Split(logs.String(), "\n") {
			if len(line) > 1024 {
				t.Fatalf("log line of %d bytes", len(line))
			}
		}
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, fam := range families {
			for _, m := range fam.GetMetric() {
				if v := label(m, "event"); v != "" && !slices.Contains(labels, v) {
					t.Fatalf("event label %q", v)
				}
			}
		}
	})
}
