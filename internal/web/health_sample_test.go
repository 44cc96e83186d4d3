package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/report"
)

// TestHealthPageShowsSampledTopics: with serve's topic sampler, /report lists the
// topics whose data departs from the contract and the subject's page says so, and a
// new round's result reaches both although the commit did not change (the cached
// pages follow the round).
func TestHealthPageShowsSampledTopics(t *testing.T) {
	var round atomic.Int32
	sampled := func() (*report.Sampled, string) {
		if round.Load() == 0 {
			return &report.Sampled{Source: "serve's sampler, 2026-12-01 08:45 UTC", Topics: 2, Departing: []report.Departing{
				{Topic: "ods_order_snapshot", Subject: "orders.order-snapshot-value", Messages: 4, Conforming: 1, Kinds: []string{"undeclared-field", "missing-field"}}}}, "1"
		}
		return &report.Sampled{Source: "serve's sampler, 2026-12-01 09:00 UTC", Topics: 2, Departing: []report.Departing{}}, "2"
	}
	mux := http.NewServeMux()
	(&Pages{Tree: &Tree{Repo: exampleRepo(t)}, Clock: clock.Func(func() time.Time { return pagesNow }),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Sampler: samplerFunc(sampled)}).Mount(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	body := ""
	deadline := time.Now().Add(60 * time.Second)
	for _, body = get(t, srv, "/report"); strings.Contains(plain(body), "Being computed"); _, body = get(t, srv, "/report") {
		if time.Now().After(deadline) {
			t.Fatal("the history audit did not finish within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := `<li><code>ods_order_snapshot</code> (<a href="/subjects/orders.order-snapshot-value">orders.order-snapshot-value</a>): 1 of 4 messages conform; <code>undeclared-field</code>, <code>missing-field</code></li>`
	if !strings.Contains(plain(body), "Topics whose data departs from the contract") || !strings.Contains(plain(body), want) {
		t.Fatalf("the health page lacks the sampled topics:\n%s", body)
	}
	_, page := get(t, srv, "/subjects/orders.order-snapshot-value")
	if !strings.Contains(plain(page), "The messages on <code>ods_order_snapshot</code> depart from this contract: 1 of 4 sampled messages conform") {
		t.Errorf("the subject page does not say that its topic departs from the contract")
	}
	if _, other := get(t, srv, "/subjects/orders.order-created-value"); strings.Contains(other, "depart from this contract") {
		t.Errorf("another subject's page says its topic departs")
	}
	round.Store(1)
	if _, body = get(t, srv, "/report"); !strings.Contains(plain(body), "Every sampled message conforms to the contract.") {
		t.Errorf("the next round did not reach the page")
	}
	if _, page = get(t, srv, "/subjects/orders.order-snapshot-value"); strings.Contains(page, "depart from this contract") {
		t.Errorf("the next round did not reach the subject page")
	}
}

// samplerFunc is a Sampler that is a function.
type samplerFunc func() (*report.Sampled, string)

func (f samplerFunc) Sampled() (*report.Sampled, string) { return f() }
