package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestUnverifiedRequestsKeepNothing: 100 unsigned requests with 900 KB header values
// (event, delivery id, signature) and 20 signed ones whose headers were swapped for
// such values (GitHub signs the body only) leave /metrics under 1 MB with the
// deliveries counted under fixed label values, and put no more than a bounded prefix
// of any header in the log. The requests go to the handler directly, as if
// MaxHeaderBytes were not set, to show the handler itself keeps nothing.
func TestUnverifiedRequestsKeepNothing(t *testing.T) {
	var logs lockedBuffer
	var routed []Delivery
	var mu sync.Mutex
	srv := New(Config{WebhookSecret: secret, Workers: 1, Log: slog.New(slog.NewJSONHandler(&logs, nil)),
		Route: RouterFunc(func(d Delivery) (*Job, error) {
			mu.Lock()
			defer mu.Unlock()
			routed = append(routed, d)
			return nil, nil
		})})

	huge := func(i int) string { return strings.Repeat(string(rune('a'+i%26)), 900<<10) }
	body := `{"action":"opened"}`
	post := func(event, id, sig string, want int) {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", id)
		req.Header.Set("X-Hub-Signature-256", sig)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Fatalf("%d, want %d", rec.Code, want)
		}
	}
	for i := range 100 { // unsigned, every header value distinct
		post(huge(i), huge(i+1), "sha256="+huge(i+2), http.StatusUnauthorized)
	}
	for i := range 20 { // signed body, headers swapped: the delivery id is refused
		post(huge(i), huge(i+1), Sign(secret, []byte(body)), http.StatusBadRequest)
	}
	if len(routed) != 0 {
		t.Errorf("%d deliveries with a 900 KB delivery id reached the router", len(routed))
	}

	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	metrics := rec.Body.Bytes()
	if len(metrics) > 1<<20 {
		t.Errorf("/metrics is %d bytes, want under 1 MB", len(metrics))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(metrics))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range families["contractbot_webhook_deliveries_total"].GetMetric() {
		got[label(m, "event")+"/"+label(m, "outcome")] = m.GetCounter().GetValue()
	}
	want := map[string]float64{"unverified/unauthorized": 100, "other/bad_request": 20}
	if len(got) != len(want) || got["unverified/unauthorized"] != 100 || got["other/bad_request"] != 20 {
		t.Errorf("deliveries by label: %v, want %v", got, want)
	}
	for _, fam := range families {
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if len(l.GetValue()) > 64 {
					t.Errorf("metric %s has a label value of %d bytes", fam.GetName(), len(l.GetValue()))
				}
			}
		}
	}

	out := logs.String()
	if len(out) > 200<<10 {
		t.Errorf("the log grew by %d bytes for 120 requests", len(out))
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 1024 {
			t.Errorf("a log line of %d bytes: %.200s...", len(line), line)
			break
		}
	}
}

// TestServeRefusesHugeHeaders: the server's own listener answers a header block past
// MaxHeaderBytes with 431 before any handler runs.
func TestServeRefusesHugeHeaders(t *testing.T) {
	srv := New(Config{WebhookSecret: secret, Route: RouterFunc(func(Delivery) (*Job, error) { t.Error("routed"); return nil, nil })})
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = NewHTTPServer(srv)
	ts.Start()
	defer ts.Close()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/webhook", strings.NewReader("{}"))
	req.Header.Set("X-GitHub-Event", strings.Repeat("x", 900<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("900 KB header: %d, want 431", resp.StatusCode)
	}
	// Headers a browser or GitHub sends pass.
	req, _ = http.NewRequestWithContext(context.Background(), http.MethodGet, ts.URL+"/healthz", nil)
	req.Header.Set("Cookie", strings.Repeat("c", 8<<10))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("8 KB cookie: %d, want 200", resp.StatusCode)
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}
