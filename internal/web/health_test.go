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

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/testutil"
)

// gmvLong and gmvBackToInt give the example tree the history the health report looks
// for: order_count of dws.gmv-1min-value widened to long, then narrowed to int again
// at BACKWARD (a registry would refuse it); with the narrowing, a new subject nobody
// reads and user_id of dw.order-detail-value deprecated while two consumers read it.
func gmvLong(t *testing.T, dir string) {
	edit(t, dir, "contracts/dws/gmv-1min/gmv_1min.avsc", `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
}

func gmvBackToInt(t *testing.T, dir string) {
	edit(t, dir, "contracts/dws/gmv-1min/gmv_1min.avsc", `"name": "order_count", "type": "long", "doc": "Number of orders created in the window."`,
		`"name": "order_count", "type": "int", "doc": "Number of orders created in the window (an int again)."`)
	write(t, dir, "contracts/orders/order-cancelled/contract.yaml", "subject: orders.order-cancelled-value\nformat: avro\nschema: order_cancelled.avsc\ncompatibility: BACKWARD\nowner: orders\ntopic: ods_order_cancelled\nkeys: {business: [order_id], event_time: cancelled_at, update_time: cancelled_at}\n")
	write(t, dir, "contracts/orders/order-cancelled/order_cancelled.avsc", `{"type": "record", "name": "OrderCancelled", "fields": [
  {"name": "order_id", "type": "string", "doc": "Order number."},
  {"name": "cancelled_at", "type": "long", "doc": "When the order was cancelled, ms since epoch (UTC)."}
]}
`)
	deprecateUserID(t, dir)
}

// deprecateUserID deprecates user_id of dw.order-detail-value (read by
// clickhouse-order-detail of analytics and dws-gmv-1min of data-warehouse) and
// amount_cents, with a replacement and a remove_after already past (read by
// dws-gmv-1min).
func deprecateUserID(t *testing.T, dir string) {
	edit(t, dir, "contracts/dw/order-detail/contract.yaml", "fields:\n  user_id:\n    pii: true\n",
		"fields:\n  channel:\n    deprecated: {since: \"2026-10-01\", remove_after: \"2026-11-30\", replacement: currency}\n  user_id:\n    pii: true\n    deprecated: {since: \"2026-11-15\", remove_after: \"2027-03-01\"}\n")
}

// TestHealthPage: /report shows the health report of the served commit; its history
// part is computed in the background after the first page and shown as being
// computed until then, and the finished page is rendered once and served with an
// ETag. Goldens health-computing.html and health.html.
func TestHealthPage(t *testing.T) {
	srv := pagesServer(t, exampleRepo(t, gmvLong, gmvBackToInt))
	resp, body := get(t, srv, "/report")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != "" {
		t.Fatalf("GET /report first: %d, ETag %q (a page still being computed is not cached)", resp.StatusCode, resp.Header.Get("ETag"))
	}
	if !strings.Contains(plain(body), "Being computed") {
		t.Fatalf("the first /report does not wait for the history audit, so it should say it is being computed:\n%s", body)
	}
	golden(t, "health-computing.html", body)

	deadline := time.Now().Add(60 * time.Second)
	for strings.Contains(plain(body), "Being computed") {
		if time.Now().After(deadline) {
			t.Fatal("the history audit did not finish within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
		resp, body = get(t, srv, "/report")
	}
	for _, want := range []string{"orders.order-cancelled-value", "dws.gmv-1min-value</a> version 3", "TYPE_MISMATCH", "clickhouse-order-detail", `aria-current="page">Health`,
		"Automation (from the Git history): 3 commit(s) of the branch changed contracts/"} {
		if !strings.Contains(plain(body), want) {
			t.Errorf("the health page lacks %q", want)
		}
	}
	// the page derives from Git what contractbot report derives from Git, and says
	// what it lacks in the automation section, not as "not derived here"
	if strings.Contains(plain(body), "automation rate and sign-off latency: they come from") {
		t.Errorf("the finished page still says the automation is not derived here")
	}
	golden(t, "health.html", body)
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("the finished health page has no ETag")
	}
	req, _ := http.NewRequest("GET", srv.URL+"/report", nil)
	req.Header.Set("If-None-Match", etag)
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusNotModified {
		t.Errorf("GET /report with its ETag: %d, want 304", r2.StatusCode)
	}
}

// write creates a file of dir with its folders.
func write(t *testing.T, dir, file, content string) {
	t.Helper()
	p := filepath.Join(dir, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTeamDeprecatedReads: a team's page warns of the deprecated fields its consumers
// still read (field, since, remove_after, replacement, which consumer), the soonest
// remove_after first; a team that reads none has no such section. Golden
// team-data-warehouse.html.
func TestTeamDeprecatedReads(t *testing.T) {
	srv := pagesServer(t, exampleRepo(t, deprecateUserID))
	_, body := get(t, srv, "/teams/data-warehouse")
	golden(t, "team-data-warehouse.html", body)
	section := plain(body)[strings.Index(plain(body), `id="h-deprecated"`):]
	section = section[:strings.Index(section, "</section>")]
	// channel goes on 2026-11-30, user_id on 2027-03-01: channel first.
	ch, uid := strings.Index(section, "<code>channel</code>"), strings.Index(section, "<code>user_id</code>")
	if ch < 0 || uid < 0 || ch > uid {
		t.Errorf("the deprecated reads are not sorted by remove_after (channel at %d, user_id at %d):\n%s", ch, uid, section)
	}
	for _, want := range []string{"dws-gmv-1min", "2026-10-01", "2026-11-30", "<code>currency</code>", "DUE"} {
		if !strings.Contains(section, want) {
			t.Errorf("the team's deprecated reads lack %q", want)
		}
	}
	if strings.Contains(section, "clickhouse-order-detail") {
		t.Errorf("data-warehouse's page lists analytics' consumer clickhouse-order-detail")
	}
	if _, body := get(t, srv, "/teams/orders"); strings.Contains(plain(body), `id="h-deprecated"`) {
		t.Errorf("the orders team reads no deprecated field, yet its page warns of some")
	}
}

// TestHealthPageCapsLongLists: past healthRows a list of the health page shows its
// first rows and counts the others (10,000 subjects of which thousands are unused
// made a 918 KiB page); the heading still counts them all.
func TestHealthPageCapsLongLists(t *testing.T) {
	defer func(n int) { healthRows = n }(healthRows)
	healthRows = 1
	srv := pagesServer(t, exampleRepo(t, deprecateUserID))
	_, body := get(t, srv, "/report")
	section := plain(body)[strings.Index(plain(body), `id="h-deprecated"`):]
	section = section[:strings.Index(section, "</section>")]
	if !strings.Contains(section, "Deprecated fields still read (4)") || !strings.Contains(section, "3 more not shown") {
		t.Errorf("the deprecated reads should count 4 and say that 3 are not shown:\n%s", section)
	}
	if rows := strings.Count(section, "<tr"); rows != 2 { // the header and one read
		t.Errorf("%d table rows, want the header and 1 read:\n%s", rows, section)
	}
}

// TestHealthPageFollowsTheBranch: when the branch moves, the health page of the new
// commit is computed again, from the previous commit's audit (only the versions the
// branch gained are checked), and finds the break the new commit made; a commit that
// is not a descendant (a rewritten branch) is audited from scratch.
func TestHealthPageFollowsTheBranch(t *testing.T) {
	r := testutil.ExampleRepo(t)
	gmvLong(t, r.Dir)
	first := r.Commit("order_count long")
	gmvBackToInt(t, r.Dir)
	second := r.Commit("order_count int again")
	head := first
	mux := http.NewServeMux()
	p := &Pages{Tree: &Tree{Repo: r.Git, Follow: following{&head}},
		Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	p.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	finished := func() string {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, body := get(t, srv, "/report"); !strings.Contains(plain(body), "Being computed") {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatal("the history audit did not finish within 60 s")
			}
		}
	}
	if body := finished(); !strings.Contains(plain(body), "Every version on the branch passed its level") {
		t.Fatalf("at the first commit no version broke its level:\n%s", body)
	}
	p.auditing.Lock()
	prev := p.previousAudit(second)
	p.auditing.Unlock()
	if prev == nil || prev.Head != first.String() {
		t.Fatalf("the audit of %s is not reused for its child %s: %+v", first, second, prev)
	}
	head = second
	body := finished()
	if !strings.Contains(plain(body), "dws.gmv-1min-value</a> version 3") || !strings.Contains(plain(body), "TYPE_MISMATCH") {
		t.Errorf("after the branch moved the page does not show the break the new commit made:\n%s", body)
	}
	// A commit beside the branch is not a descendant of the last audit.
	r.Branch("rewrite")
	r.Edit("contracts/dws/gmv-1min/gmv_1min.avsc", "(an int again)", "(rewritten)")
	aside := r.Commit("a rewritten history")
	p.auditing.Lock()
	if p.audited.Head != second.String() {
		t.Errorf("the last audit is of %s, want %s", p.audited.Head, second)
	}
	p.audited.Head = first.String() // as if the branch had been rewritten from first on
	p.auditing.Unlock()
	if got := p.previousAudit(aside); got == nil {
		t.Errorf("%s descends from %s: its audit should be reused", aside, first)
	}
	p.auditing.Lock()
	p.audited.Head = aside.String()
	p.auditing.Unlock()
	if got := p.previousAudit(second); got != nil {
		t.Errorf("%s is not a first-parent ancestor of %s, yet its audit would be reused", aside, second)
	}
}
