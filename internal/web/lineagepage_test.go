package web

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// fakeObserved holds events as serve's store does: the generation is the count.
type fakeObserved struct {
	mu     sync.Mutex
	events []openlineage.RunEvent
}

func (f *fakeObserved) Observed() (int, int, []*openlineage.Observed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events), len(f.events), openlineage.Observe(f.events)
}

// adaptedEvent reads one of the events adapted from OpenLineage's examples.
func adaptedEvent(t *testing.T, file string) openlineage.RunEvent {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../lineage/openlineage/testdata/adapted", file))
	if err != nil {
		t.Fatal(err)
	}
	e, err := openlineage.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (f *fakeObserved) add(t *testing.T, file string) {
	t.Helper()
	e := adaptedEvent(t, file)
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}

func lineageServer(t *testing.T, repo *git.Repository, observed ObservedLineage) *httptest.Server {
	mux := http.NewServeMux()
	(&Pages{Tree: &Tree{Repo: repo}, Clock: clock.Func(func() time.Time { return pagesNow }),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Observed: observed}).Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// The declared coverage always; the observed part says how to send events until some
// arrive, then lists the drift of the events adapted from OpenLineage's Flink and
// Spark examples: dwd-order-detail reads event_time, which its file does not declare,
// and never coupon_code, which it does; order-fraud-rules has no consumer file.
func TestLineagePage(t *testing.T) {
	repo := exampleRepo(t)
	resp, body := get(t, lineageServer(t, repo, nil), "/lineage")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /lineage: %d", resp.StatusCode)
	}
	golden(t, "lineage-not-collecting.html", body)

	obs := &fakeObserved{}
	srv := lineageServer(t, repo, obs)
	if _, body := get(t, srv, "/lineage"); !strings.Contains(plain(body), "No OpenLineage event received yet") {
		t.Errorf("before any event:\n%s", body)
	}
	for _, f := range []string{"flink-dwd-order-detail-start.json", "flink-dwd-order-detail-complete.json", "spark-order-fraud-rules-complete.json"} {
		obs.add(t, f)
	}
	resp, body = get(t, srv, "/lineage")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /lineage: %d", resp.StatusCode)
	}
	golden(t, "lineage-observed.html", body)
	for _, want := range []string{
		`<code>contracts/orders/order-created/consumers/order-fraud-rules.yaml</code> <span class="tag bad">missing</span>`,
		`<td data-label="Field"><code>event_time</code></td>`,
		`<td data-label="Field"><code>coupon_code</code></td>`,
	} {
		if !strings.Contains(plain(body), want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// The page is rendered once per commit and generation of the observed events: the
// same generation is served from memory (304 to a client that holds it), a new event
// changes the page and its ETag.
func TestLineagePageFollowsTheEvents(t *testing.T) {
	obs := &fakeObserved{}
	obs.add(t, "flink-dwd-order-detail-start.json")
	srv := lineageServer(t, exampleRepo(t), obs)
	first, body1 := get(t, srv, "/lineage")
	etag := first.Header.Get("ETag")
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/lineage", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if etag == "" || resp.StatusCode != http.StatusNotModified {
		t.Fatalf("same generation: %d with ETag %q, want 304", resp.StatusCode, etag)
	}
	obs.add(t, "spark-order-fraud-rules-complete.json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag || string(b) == body1 || !strings.Contains(plain(string(b)), "order-fraud-rules") {
		t.Errorf("after a new event: %d, ETag %q (was %q), page changed %v", resp.StatusCode, resp.Header.Get("ETag"), etag, string(b) != body1)
	}
}

// A job that maps no field is listed as a black box, linked to its entry.
func TestLineagePageBlackBox(t *testing.T) {
	blackBox := func(t *testing.T, dir string) {
		edit(t, dir, "contracts/dw/order-detail/consumers/dws-gmv-1min.yaml", `produces:
  dws.gmv-1min-value:
    window_start: [created_at]
    window_end: [created_at]
    channel: [channel]
    gmv_cents: [amount_cents]
    order_count: [order_id]
    buyer_count: [user_id]
`, "")
	}
	_, body := get(t, lineageServer(t, exampleRepo(t, blackBox), nil), "/lineage")
	for _, want := range []string{
		`<strong>75%</strong> of jobs (flink-job, spark-job) map their output field by field: 3 of 4 jobs.`,
		`<li><a href="/subjects/dw.order-detail-value#consumer-dws-gmv-1min">dws-gmv-1min</a> · team <a href="/teams/data-warehouse">data-warehouse</a></li>`,
	} {
		if !strings.Contains(plain(body), want) {
			t.Errorf("the page lacks %s\n%s", want, body)
		}
	}
}

// wideEvent is the Flink event adapted from OpenLineage's example with n more output
// fields, each made from an input field the contract does not have: the shape of a
// hostile or runaway event.
func wideEvent(t *testing.T, n int) openlineage.RunEvent {
	t.Helper()
	e := adaptedEvent(t, "flink-dwd-order-detail-complete.json")
	cl := e.Outputs[0].Facets.ColumnLineage
	in := cl.Fields["order_id"].InputFields[0]
	for i := range n {
		f := cl.Fields["order_id"]
		in.Field = fmt.Sprintf("x%d", i)
		f.InputFields = []openlineage.InputField{in}
		cl.Fields[fmt.Sprintf("f%d", i)] = f
	}
	return e
}

// However many rows an event makes, the lineage page shows the first healthRows of
// each table, says how many more there are and which command lists them all, and
// heads each table with the whole count.
func TestLineagePageCapsLongTables(t *testing.T) {
	defer func(n int) { healthRows = n }(healthRows)
	healthRows = 2
	obs := &fakeObserved{events: []openlineage.RunEvent{wideEvent(t, 50)}}
	_, body := get(t, lineageServer(t, exampleRepo(t), obs), "/lineage")
	if rows := strings.Count(body, `<tr><th scope="row">`); rows > healthRows*len(driftKinds) {
		t.Errorf("%d rows on the page, want at most %d a table", rows, healthRows)
	}
	if !strings.Contains(plain(body), "more not shown: <code>contractbot lineage verify</code> lists them all.") || !strings.Contains(plain(body), "(50)") {
		t.Errorf("the page does not head a table with its 50 rows and count those not shown:\n%s", body)
	}
}

// A job name comes from whoever posts events: the page shows it escaped, and the
// consumer file it suggests is made of the name's letters and digits only.
func TestLineagePageEscapesJobNames(t *testing.T) {
	e := adaptedEvent(t, "spark-order-fraud-rules-complete.json")
	e.Job.Name = `<script>alert(1)</script>`
	_, body := get(t, lineageServer(t, exampleRepo(t), &fakeObserved{events: []openlineage.RunEvent{e}}), "/lineage")
	if strings.Contains(plain(body), "<script>alert") || !strings.Contains(plain(body), "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(plain(body), "consumers/script-alert-1-script.yaml") {
		t.Errorf("the job name is not escaped, or the suggested file is not sanitised:\n%s", body)
	}
}

// serve loads the tree without schemas (Tree.WithoutSchemas): the page still shows
// what lint --stats and lineage verify show, the produced fields mapped and a read of
// a field the schema lacks as not-in-schema, byte for byte what a tree loaded with its
// schemas gives. It said "No produced subjects." and called such reads undeclared.
func TestLineagePageWithoutSchemas(t *testing.T) {
	repo := exampleRepo(t)
	obs := &fakeObserved{}
	for _, f := range []string{"flink-dwd-order-detail-start.json", "flink-dwd-order-detail-complete.json", "spark-order-fraud-rules-complete.json"} {
		obs.add(t, f)
	}
	pages := func(withoutSchemas bool, observed ObservedLineage) *httptest.Server {
		mux := http.NewServeMux()
		(&Pages{Tree: &Tree{Repo: repo, WithoutSchemas: withoutSchemas}, Clock: clock.Func(func() time.Time { return pagesNow }),
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Observed: observed}).Mount(mux)
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv
	}
	for _, observed := range []ObservedLineage{nil, obs} {
		_, want := get(t, pages(false, observed), "/lineage")
		_, got := get(t, pages(true, observed), "/lineage")
		if got != want {
			t.Errorf("observed %v: the page of a tree without schemas differs from the one with:\n%s", observed != nil, got)
		}
		if strings.Contains(got, "No produced subjects.") {
			t.Errorf("observed %v: the page says no subject is produced", observed != nil)
		}
	}
}

// Events that name no topic a contract declares compare nothing: the page says so, as
// lineage verify does (exit 3), and lists the datasets it could not map.
func TestLineagePageComparedNothing(t *testing.T) {
	e := adaptedEvent(t, "flink-dwd-order-detail-start.json")
	for i := range e.Inputs {
		e.Inputs[i].Namespace = "postgres://pg:5432"
	}
	obs := &fakeObserved{events: []openlineage.RunEvent{e}}
	_, body := get(t, lineageServer(t, exampleRepo(t), obs), "/lineage")
	for _, want := range []string{"compared nothing", "<li><code>ods_order_events (postgres://pg:5432)</code></li>"} {
		if !strings.Contains(plain(body), want) {
			t.Errorf("the page lacks %s:\n%s", want, body)
		}
	}
}
