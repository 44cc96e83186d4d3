package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/testutil"
)

func TestCalendarFeeds(t *testing.T) {
	r := testutil.ExampleRepo(t)
	dir, repo := r.Dir, r.Git
	commit := func(msg string) { t.Helper(); r.Commit(msg) }
	mux := http.NewServeMux()
	(&Feeds{Tree: &Tree{Repo: repo}, Clock: clock.Fixed(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: "https://contracts.example.com/"}).Mount(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	get := func(path, etag string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		req.Host = "evil.example" // links come from PublicURL, never from the request
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := get("/calendar.ics", "")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/calendar") {
		t.Fatalf("feed: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cal, err := ical.NewDecoder(strings.NewReader(body)).Decode()
	if err != nil {
		t.Fatalf("the feed does not parse as iCalendar: %v", err)
	}
	if !strings.Contains(body, "Split order amount") || len(cal.Events()) < 3 {
		t.Errorf("feed lacks the planned entries (%d events)", len(cal.Events()))
	}
	weekly := 0
	for _, ev := range cal.Events() {
		u := ev.Props.Get(ical.PropURL)
		if u == nil || !strings.HasPrefix(u.Value, "https://contracts.example.com/calendar?view=week&date=") {
			summary, _ := ev.Props.Text(ical.PropSummary)
			t.Errorf("event %q has no link to its calendar page: %v", summary, u)
		}
		if ev.Props.Get(ical.PropRecurrenceRule) != nil {
			weekly++
		}
	}
	if strings.Contains(body, "evil.example") {
		t.Error("the feed links to the request's Host header")
	}
	if weekly != 1 {
		t.Errorf("%d recurring events, want 1: the weekend freeze once, with an RRULE", weekly)
	}
	if r, _ := get("/calendar.ics", resp.Header.Get("ETag")); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", r.StatusCode)
	}
	if r, b := get("/calendar/analytics.ics", ""); r.StatusCode != http.StatusOK || !strings.Contains(b, "BEGIN:VCALENDAR") {
		t.Errorf("team feed: %d", r.StatusCode)
	}
	if r, _ := get("/calendar/nobody.ics", ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("unknown team: %d, want 404", r.StatusCode)
	}
	// A new commit with a new entry: the feed follows the branch.
	entry := `title: Backfill order attributes
kind: backfill
subjects: [orders.order-created-value]
owner: orders
window: {start: "2026-12-15T10:00", end: "2026-12-15T12:00", timezone: Europe/Berlin}
`
	if err := os.WriteFile(filepath.Join(dir, "calendar", "2026-12-15-backfill-attributes.yaml"), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	commit("plan a backfill")
	if _, b := get("/calendar.ics", ""); !strings.Contains(b, "Backfill order attributes") {
		t.Error("the feed did not follow the new commit")
	}
	// Moving the window bumps that event's SEQUENCE; the others keep theirs.
	entryFile := filepath.Join(dir, "calendar", "2026-12-15-backfill-attributes.yaml")
	if err := os.WriteFile(entryFile, []byte(strings.Replace(entry, "12:00", "13:00", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	commit("longer backfill")
	_, b := get("/calendar.ics", "")
	cal2, err := ical.NewDecoder(strings.NewReader(b)).Decode()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range cal2.Events() {
		summary, _ := ev.Props.Text(ical.PropSummary)
		seq := ev.Props.Get(ical.PropSequence)
		got := "0"
		if seq != nil {
			got = seq.Value
		}
		want := "0"
		if summary == "Backfill order attributes" {
			want = "1"
		}
		if got != want && (strings.HasPrefix(summary, "Backfill") || strings.HasPrefix(summary, "Split")) {
			t.Errorf("%q: SEQUENCE %s, want %s", summary, got, want)
		}
	}
}
