package web

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conflicting adds an entry that overlaps the example's split-order-amount entry on
// the same subject (a conflict), and one in the year-end freeze.
func conflicting(t *testing.T, dir string) {
	t.Helper()
	err := os.WriteFile(filepath.Join(dir, "calendar", "2026-12-08-backfill-order-detail.yaml"), []byte(`title: Backfill order detail
kind: backfill
subjects: [dw.order-detail-value]
owner: data-warehouse
window:
  start: "2026-12-08T12:00"
  end: "2026-12-08T18:00"
  timezone: Europe/Berlin
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	err = os.WriteFile(filepath.Join(dir, "calendar", "2026-12-21-late-change.yaml"), []byte(`title: Late change
kind: schema-change
subjects: [orders.order-created-value]
owner: orders
window:
  start: "2026-12-21T10:00"
  end: "2026-12-21T11:00"
  timezone: Europe/Berlin
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
}

func TestCalendarPage(t *testing.T) {
	srv := pagesServer(t, exampleRepo(t, conflicting))
	_, body := get(t, srv, "/calendar?date=2026-12-08")
	for _, want := range []string{
		`<h2 id="h-conflicts">Conflicts</h2>`,
		`<li class="item entry conflict"><span class="tag bad">CONFLICT</span>`,
		"Conflicts with <code>calendar/2026-12-08-backfill-order-detail.yaml</code>",
		`<a href="/calendar?date=2026-11-01&amp;view=month" rel="prev">`,
		`<a href="/calendar?date=2027-01-01&amp;view=month" rel="next">`,
		`<a href="/calendar.ics">`,
		"December 2026",
		"(times in UTC)",
	} {
		if !strings.Contains(plain(body), want) {
			t.Errorf("month view lacks %q", want)
		}
	}
	// A week view in a zone given by tz; the team's zone otherwise.
	_, body = get(t, srv, "/calendar?view=week&date=2026-12-10&tz=Asia/Shanghai")
	if !strings.Contains(plain(body), "(times in Asia/Shanghai)") || !strings.Contains(plain(body), "Thu 10 Dec 14:00–15:30") {
		t.Errorf("week view in Asia/Shanghai does not show the state migration at 14:00–15:30")
	}
	_, body = get(t, srv, "/calendar?view=week&date=2026-12-10&team=analytics")
	if !strings.Contains(plain(body), "(times in America/New_York)") || !strings.Contains(plain(body), `href="/calendar/analytics.ics"`) {
		t.Errorf("a team's week view is not in the team's zone or lacks its feed")
	}
	// The year-end freeze is in force on 2027-01-01: the day is marked and lists it.
	_, body = get(t, srv, "/calendar?date=2027-01-01")
	if !strings.Contains(plain(body), `<td class=" frozen"`) || !strings.Contains(plain(body), "year-end") {
		t.Errorf("the year-end freeze is not shown in January")
	}
	// The weekly freeze is one row, "every Fri 18:00 → Mon 08:00", not one item per
	// occurrence; the days it covers are hatched and say which freeze.
	if n := strings.Count(body, "<strong>weekend</strong>"); n != 1 || !strings.Contains(plain(body), "every Fri 18:00 → Mon 08:00") ||
		!strings.Contains(plain(body), `title="In freeze weekend"`) {
		t.Errorf("the weekend freeze is listed %d times, want once as a recurring row", n)
	}
	// An entry in a freeze is marked.
	_, body = get(t, srv, "/calendar?view=week&date=2026-12-21")
	if !strings.Contains(plain(body), `<span class="tag bad">IN FREEZE</span> <strong>Late change</strong>`) || !strings.Contains(plain(body), "In freeze year-end") {
		t.Errorf("an entry in the year-end freeze is not marked")
	}
	// Bad parameters: explained, not fatal; an unknown team is a 404.
	for _, c := range []struct{ path, want string }{
		{"/calendar?date=tomorrow", "is not a date like 2026-12-08"},
		{"/calendar?tz=Mars/Olympus", "is not an IANA zone name"},
		{"/calendar?view=year", "is not known"},
	} {
		resp, body := get(t, srv, c.path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(plain(body), c.want) {
			t.Errorf("GET %s: %d, want a page that says %q", c.path, resp.StatusCode, c.want)
		}
	}
	if resp, _ := get(t, srv, "/calendar?team=nobody"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown team: %d", resp.StatusCode)
	}
}
