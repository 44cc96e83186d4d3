package web

import (
	"flag"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/inert"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (and the screenshots under docs/img/)")

// pagesNow is the clock of the page tests: before the example calendar's entries.
var pagesNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// orderCreatedV2 adds a field to the example's orders.order-created-value: a second
// version, so the subject page has a diff to show.
func orderCreatedV2(t *testing.T, dir string) {
	t.Helper()
	edit(t, dir, "contracts/orders/order-created/order_created.avsc", `"fields": [`,
		`"fields": [
    {
      "name": "sales_region",
      "type": ["null", "string"],
      "default": null,
      "doc": "Sales region of the store or shop; null before regions were introduced."
    },`)
}

// edit replaces the first occurrence of old in a file of dir.
func edit(t *testing.T, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exampleRepo makes a Git repository of the example tree (one commit), then one more
// commit per change, at fixed times so that hashes and pages are stable.
func exampleRepo(t *testing.T, changes ...func(t *testing.T, dir string)) *git.Repository {
	t.Helper()
	r := testutil.NewRepo(t)
	dir, repo := r.Dir, r.Git
	testutil.CopyExample(t, dir)
	r.When = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	commit := func(msg string) {
		t.Helper()
		r.Commit(msg)
		r.When = r.When.Add(24 * time.Hour)
	}
	commit("example")
	for _, c := range changes {
		c(t, dir)
		commit("change")
	}
	return repo
}

func pagesServer(t testing.TB, repo *git.Repository) *httptest.Server {
	return pagesServerWith(t, repo, nil)
}

// pagesServerWith serves the pages with a sign-off source (nil: not connected).
func pagesServerWith(t testing.TB, repo *git.Repository, signOffs SignOffSource) *httptest.Server {
	mux := http.NewServeMux()
	(&Pages{Tree: &Tree{Repo: repo}, Clock: clock.Func(func() time.Time { return pagesNow }),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SignOffs: signOffs}).Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/web -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the page served; if the change is intended, run go test ./internal/web -update and review the diff\n%s", p, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n  want " + w + "\n  got  " + g
		}
	}
	return ""
}

func TestPagesGolden(t *testing.T) {
	srv := pagesServerWith(t, exampleRepo(t, orderCreatedV2), fakeSignOffs())
	for _, c := range []struct{ path, file string }{
		{"/", "catalog.html"},
		{"/subjects?domain=orders&q=order", "catalog-filtered.html"},
		{"/subjects/orders.order-created-value?diff=1..2", "subject-orders.order-created-value.html"},
		{"/subjects/orders.order-snapshot-value", "subject-orders.order-snapshot-value.html"},
		{"/calendar?view=month&date=2026-12-01", "calendar-month.html"},
		{"/calendar?view=week&date=2026-12-08&team=orders", "calendar-week-orders.html"},
		{"/teams", "teams.html"},
		{"/teams/orders", "team-orders.html"},
		{"/signoffs", "signoffs.html"},
	} {
		t.Run(c.file, func(t *testing.T) {
			resp, body := get(t, srv, c.path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d\n%s", c.path, resp.StatusCode, body)
			}
			golden(t, c.file, body)
		})
	}
	// Without the bot the sign-off page says how to connect it.
	resp, body := get(t, pagesServer(t, exampleRepo(t)), "/signoffs")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /signoffs without the bot: %d", resp.StatusCode)
	}
	golden(t, "signoffs-not-connected.html", body)
}

func TestPagesHeadersAndErrors(t *testing.T) {
	srv := pagesServer(t, exampleRepo(t, orderCreatedV2))
	resp, _ := get(t, srv, "/subjects")
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "script-src") {
		t.Errorf("Content-Security-Policy %q: want no script at all", csp)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("X-Content-Type-Options: %q", resp.Header.Get("X-Content-Type-Options"))
	}
	if resp, body := get(t, srv, "/static/style.css"); resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") || !strings.Contains(body, ".hl-k") {
		t.Errorf("stylesheet: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, body := get(t, srv, "/subjects/no.such-subject"); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "no.such-subject") {
		t.Errorf("unknown subject: %d", resp.StatusCode)
	}
	if resp, _ := get(t, srv, "/no-such-page"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown page: %d", resp.StatusCode)
	}
	_, body := get(t, srv, "/subjects/orders.order-created-value?diff=1..9")
	if !strings.Contains(body, "the subject has versions 1 to 2") {
		t.Errorf("a diff of a version that does not exist is not explained")
	}
	_, body = get(t, srv, "/subjects/orders.order-created-value?from=1&to=2")
	if !strings.Contains(body, `<span class="add">`) || !strings.Contains(body, "sales_region") {
		t.Errorf("the from/to form does not show the diff")
	}
	// Filters: a page past the end shows the last page; no match says so.
	if _, body := get(t, srv, "/subjects?page=99"); !strings.Contains(body, "Showing 1–") {
		t.Errorf("page past the end: no rows")
	}
	if _, body := get(t, srv, "/subjects?q=GMV-Dashboard"); !strings.Contains(body, "Showing 1–1 of 1 subject") || !strings.Contains(body, `href="/subjects/dws.gmv-1min-value"`) {
		t.Errorf("a search by a consumer's name does not find the subject it reads")
	}
	if _, body := get(t, srv, "/subjects?q=zzzz-nothing"); !strings.Contains(body, "No subject matches") {
		t.Errorf("empty search result not said")
	}
}

// hostile puts markup into every text of the tree a page shows.
func hostile(t *testing.T, dir string) {
	const script = `<script>alert(1)</script>`
	const img = `"><img src=x onerror=alert(2)>`
	edit(t, dir, "contracts/orders/order-created/contract.yaml", "description: >-\n", "description: >-\n  "+script+" "+img+"\n")
	edit(t, dir, "contracts/orders/order-created/contract.yaml", "doc: buyer id, from the accounts service", `doc: '`+script+` `+strings.ReplaceAll(img, `'`, `''`)+`'`)
	edit(t, dir, "contracts/orders/order-created/consumers/dwd-order-detail.yaml", "description: >-\n", "description: >-\n  "+script+" "+img+"\n")
	edit(t, dir, "contracts/orders/order-created/order_created.avsc", `"doc": "Buyer account id`, `"doc": "</code><script>alert(3)</script> \"><img src=x onerror=alert(4)> Buyer account id`)
	edit(t, dir, "calendar/2026-12-08-split-order-amount.yaml", "title: Split order amount", "title: <script>alert(5)</script> Split order amount")
	edit(t, dir, "contracts/teams.yaml", "name: Order Platform", "name: '"+script+" "+strings.ReplaceAll(img, `'`, `''`)+"'")
}

// hostileSignOffs is a sign-off source whose every text carries markup.
func hostileSignOffs() fakeSource {
	const bad = `<script>alert(6)</script>"><img src=x onerror=alert(7)>`
	return fakeSource{prs: []PullRequestStatus{{Repo: bad, Number: 1, URL: "javascript:alert(8)", Title: bad, Class: bad, HeadSHA: bad,
		Teams: []TeamSignOff{{Team: "orders", Status: bad, ApprovedBy: bad, Deadline: pagesNow}, {Team: bad, Status: SignOffPending}}}}}
}

func TestPagesEscapeTheTree(t *testing.T) {
	srv := pagesServerWith(t, exampleRepo(t, hostile), hostileSignOffs())
	for _, path := range []string{"/teams", "/teams/orders", "/signoffs", "/subjects/orders.order-created-value", "/subjects?q=script", "/subjects/dw.order-detail-value",
		"/calendar?date=2026-12-01", "/calendar?view=week&date=2026-12-08&team=orders"} {
		resp, body := get(t, srv, path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		for _, bad := range []string{"<script", "<img"} {
			if i := strings.Index(body, bad); i >= 0 {
				t.Errorf("GET %s: unescaped %q at %q", path, bad, body[max(0, i-40):min(len(body), i+60)])
			}
		}
	}
	_, body := get(t, srv, "/subjects/orders.order-created-value")
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "&lt;/code&gt;&lt;script&gt;alert(3)", "&lt;script&gt;alert(5)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the subject page lacks the escaped text %q", want)
		}
	}
	if _, body := get(t, srv, "/calendar?date=2026-12-01"); !strings.Contains(body, "&lt;script&gt;alert(5)&lt;/script&gt; Split order amount") {
		t.Errorf("the calendar lacks the escaped entry title")
	}
	_, body = get(t, srv, "/signoffs")
	if !strings.Contains(body, "&lt;script&gt;alert(6)&lt;/script&gt;") || strings.Contains(body, "javascript:") {
		t.Errorf("the sign-off page does not escape the source's texts or keeps a javascript: link")
	}
	if _, body := get(t, srv, "/teams/orders"); !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the team page lacks the escaped team name")
	}
}

// TestPagesOnGeneratedTree serves a generated repository: paging through the catalog
// visits every subject once, in order, and every subject page renders.
func TestPagesOnGeneratedTree(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a repository")
	}
	repo, err := synth.Generate(t.TempDir(), synth.Options{Subjects: 240, Commits: 5, Seed: 3, ProtobufShare: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	srv := pagesServer(t, repo)
	link := regexp.MustCompile(`<th scope="row"><a href="/subjects/([^"]+)">`)
	var seen []string
	next := "/subjects"
	for pages := 0; next != ""; pages++ {
		if pages > 10 {
			t.Fatal("the catalog does not end")
		}
		resp, body := get(t, srv, html.UnescapeString(next))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", next, resp.StatusCode)
		}
		rows := link.FindAllStringSubmatch(body, -1)
		if len(rows) == 0 || len(rows) > PageSize {
			t.Fatalf("GET %s: %d rows", next, len(rows))
		}
		for _, r := range rows {
			seen = append(seen, r[1])
		}
		next = ""
		if m := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(body); m != nil {
			next = m[1]
		}
	}
	if len(seen) != 240 || !slices.IsSorted(seen) || len(slices.Compact(slices.Clone(seen))) != len(seen) {
		t.Fatalf("paging visited %d subjects (sorted %v), want each of 240 once in order", len(seen), slices.IsSorted(seen))
	}
	for _, s := range seen {
		resp, body := get(t, srv, "/subjects/"+s)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<svg") {
			t.Fatalf("GET /subjects/%s: %d", s, resp.StatusCode)
		}
	}
	// The calendar, the team list and every team page render.
	_, body := get(t, srv, "/teams")
	teams := regexp.MustCompile(`<th scope="row"><a href="(/teams/[^"]+)">`).FindAllStringSubmatch(body, -1)
	if len(teams) == 0 {
		t.Fatal("the generated tree has no team on /teams")
	}
	paths := []string{"/calendar", "/calendar?view=week", "/signoffs"}
	for _, m := range teams {
		paths = append(paths, m[1], "/calendar?team="+strings.TrimPrefix(m[1], "/teams/"))
	}
	for _, p := range paths {
		if resp, _ := get(t, srv, p); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", p, resp.StatusCode)
		}
	}
}

// TestPagesServedFromMemory: the catalog and a subject page are rendered once per
// commit and then served from memory with an ETag; If-None-Match gets 304 and no body;
// a new commit changes the ETag and the page.
func TestPagesServedFromMemory(t *testing.T) {
	r := testutil.ExampleRepo(t)
	p := &Pages{Tree: &Tree{Repo: r.Git}, Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	p.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	for _, path := range []string{"/subjects?owner=orders", "/subjects/orders.order-created-value"} {
		resp1, body1 := get(t, srv, path)
		etag := resp1.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s: no ETag", path)
		}
		n := 0
		for _, c := range p.caches() {
			c.mu.Lock()
			n += len(c.pages)
			c.mu.Unlock()
		}
		if n == 0 {
			t.Errorf("%s: not kept in memory", path)
		}
		resp2, body2 := get(t, srv, path)
		if body2 != body1 || resp2.Header.Get("ETag") != etag {
			t.Errorf("%s: the second answer differs from the first", path)
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("If-None-Match", etag)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified || len(b) != 0 {
			t.Errorf("%s with If-None-Match: %d and %d bytes, want 304 and none", path, resp.StatusCode, len(b))
		}
	}
	resp, _ := get(t, srv, "/subjects?owner=orders")
	before := resp.Header.Get("ETag")
	r.Edit("contracts/orders/order-created/contract.yaml", "tier: core", "tier: standard")
	r.Commit("demote")
	resp, body := get(t, srv, "/subjects?owner=orders")
	if resp.Header.Get("ETag") == before || !strings.Contains(body, "standard") {
		t.Errorf("after a commit the catalog still has the old ETag or content")
	}
}

// caches returns the page caches of the snapshots the pages hold.
func (p *Pages) caches() []*pageCache {
	var out []*pageCache
	p.mu.Lock()
	if p.snap != nil {
		out = append(out, &p.snap.cache)
	}
	p.mu.Unlock()
	p.light.mu.Lock()
	if p.light.snap != nil {
		out = append(out, &p.light.snap.cache)
	}
	p.light.mu.Unlock()
	return out
}

// TestFirstCatalogPageBeforeTheTree: before the tree of a commit is loaded the catalog
// is served from the subjects' summaries (no schema parsed), and it is the same page
// the full tree gives once loaded.
func TestFirstCatalogPageBeforeTheTree(t *testing.T) {
	repo := exampleRepo(t, orderCreatedV2)
	p := &Pages{Tree: &Tree{Repo: repo}, Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	p.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	for _, path := range []string{"/", "/subjects?q=order&domain=orders"} {
		_, lightBody := get(t, srv, path)
		p.mu.Lock()
		full := p.snap
		p.mu.Unlock()
		if full != nil || p.light.snap == nil {
			t.Fatalf("%s: the first catalog page loaded the whole tree", path)
		}
		if _, err := p.current(); err != nil { // the full tree, as the next request after the load sees it
			t.Fatal(err)
		}
		_, fullBody := get(t, srv, path)
		if lightBody != fullBody {
			t.Errorf("%s: the page from summaries differs from the page of the full tree:\n%s", path, firstDiff(fullBody, lightBody))
		}
		p.mu.Lock()
		p.snap = nil
		p.mu.Unlock()
		p.Tree.mu.Lock()
		p.Tree.tree = nil
		p.Tree.ready.Store(nil)
		p.Tree.mu.Unlock()
	}
}

// Once serve has loaded the full tree (LoadTree), the catalog is the full tree's and
// the light snapshot and its summaries are let go, without waiting for a catalog
// request.
func TestLoadTreeLetsTheLightSnapshotGo(t *testing.T) {
	p := &Pages{Tree: &Tree{Repo: exampleRepo(t, orderCreatedV2)}, Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := p.Prime(); err != nil {
		t.Fatal(err)
	}
	if p.light.snap == nil || p.light.sums == nil {
		t.Fatal("Prime made no light snapshot")
	}
	if err := p.Load(); err != nil {
		t.Fatal(err)
	}
	p.light.mu.Lock()
	defer p.light.mu.Unlock()
	if p.light.snap != nil || p.light.sums != nil {
		t.Error("the light snapshot is still held after the full tree loaded")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.snap == nil {
		t.Error("no catalog snapshot of the full tree")
	}
}

// TestPagesShortenLongNames: a field with a 70,000-character name is listed on the
// subject page shortened with an ellipsis, and the page still has its later sections.
func TestPagesShortenLongNames(t *testing.T) {
	long := strings.Repeat("a", 70_000)
	srv := pagesServer(t, exampleRepo(t, func(t *testing.T, dir string) {
		edit(t, dir, "contracts/orders/order-created/order_created.avsc", `"fields": [`,
			`"fields": [{"name": "`+long+`", "type": ["null", "string"], "default": null},`)
	}))
	resp, body := get(t, srv, "/subjects/orders.order-created-value")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the subject page: %d", resp.StatusCode)
	}
	shown := `<code><span title="` + strings.Repeat("a", inert.MaxName-1) + `…">` + strings.Repeat("a", maxPart-1) + "…</span></code>"
	if !strings.Contains(body, shown) || strings.Contains(outsidePre(body), strings.Repeat("a", inert.MaxName)) {
		t.Errorf("the fields table does not shorten a 70,000-character name")
	}
}

// plain is a page without its <wbr> tags (names.go's ident puts them inside
// identifiers), for tests that look for a name in a page.
func plain(body string) string { return strings.ReplaceAll(body, "<wbr>", "") }

// outsidePre is a page without its preformatted blocks (a schema's text, a diff),
// which show a file as it is written.
func outsidePre(body string) string {
	return regexp.MustCompile(`(?s)<pre[ >].*?</pre>`).ReplaceAllString(body, "<pre></pre>")
}
