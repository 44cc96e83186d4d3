package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/contract"
)

// TestPagesLetTheTreeGo: with Tree.Release set (serve sets it), nothing the pages keep
// between requests holds the loaded tree once Tree lets it go: a subject's page, with
// its lineage both ways, is made from the catalog's rows and the subjects' folders
// loaded alone, without loading the tree again; the pages that read every subject load
// it again. Every page is the same as with the tree kept.
func TestPagesLetTheTreeGo(t *testing.T) {
	repo := exampleRepo(t)
	serve := func(p *Pages) *httptest.Server {
		mux := http.NewServeMux()
		p.Mount(mux)
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	kept := serve(&Pages{Tree: &Tree{Repo: repo, WithoutSchemas: true}, Clock: clock.Func(func() time.Time { return pagesNow }), Log: quiet})
	p := &Pages{Tree: &Tree{Repo: repo, WithoutSchemas: true, Release: time.Hour}, Clock: clock.Func(func() time.Time { return pagesNow }), Log: quiet}
	srv := serve(p)
	same := func(path string) {
		t.Helper()
		want, wantBody := get(t, kept, path)
		got, body := get(t, srv, path)
		if got.StatusCode != want.StatusCode || body != wantBody {
			t.Errorf("%s: %d, want %d; the page differs from the one made with the tree kept:\n%s", path, got.StatusCode, want.StatusCode, firstDiff(wantBody, body))
		}
	}
	loaded := func() *contract.Tree {
		p.Tree.mu.Lock()
		defer p.Tree.mu.Unlock()
		return p.Tree.tree
	}

	same("/subjects/orders.order-created-value")
	tree := loaded()
	if tree == nil {
		t.Fatal("the first page loaded no tree")
	}
	var producer *contract.Consumer // one that the lineage's upstream hops show
	for _, c := range tree.Subject("dw.order-detail-value").Consumers {
		if len(c.Produces) > 0 {
			producer = c
		}
	}
	if producer == nil {
		t.Fatal("no consumer of dw.order-detail-value produces a subject: pick another")
	}
	weakTree, weakProducer := weak.Make(tree), weak.Make(producer) // the variables are dead from here
	p.Tree.mu.Lock()
	p.Tree.used = time.Now().Add(-2 * time.Hour) // as if unused for longer than Release
	p.Tree.mu.Unlock()
	p.Tree.letGo()
	if loaded() != nil {
		t.Fatal("Tree did not let the tree go")
	}
	runtime.GC()
	if weakTree.Value() != nil || weakProducer.Value() != nil {
		t.Error("something the pages keep still holds the tree after Tree let it go")
	}

	// Upstream two hops, downstream one: every other subject's folder read alone.
	same("/subjects/dws.gmv-1min-value")
	same("/subjects/dw.order-detail-value")
	same("/")
	if loaded() != nil {
		t.Error("a subject's page or the catalog loaded the whole tree again")
	}
	for _, path := range []string{"/teams", "/calendar", "/lineage", "/subjects/no.such-subject"} {
		same(path)
	}
}

// TestCalendarLeavesTheTreeAlone: serve's calendar reminders ask Tree.Calendar each
// round; with no tree held it loads teams.yaml and the calendar alone (the same
// entries and teams as the whole tree's) and holds nothing, so the tree Release let go
// is not loaded again; with the tree held it answers with that tree.
func TestCalendarLeavesTheTreeAlone(t *testing.T) {
	repo := exampleRepo(t)
	whole, _, err := (&Tree{Repo: repo, WithoutSchemas: true}).Current()
	if err != nil {
		t.Fatal(err)
	}
	tr := &Tree{Repo: repo, WithoutSchemas: true, Release: time.Hour}
	cal, err := tr.Calendar()
	if err != nil {
		t.Fatal(err)
	}
	tr.mu.Lock()
	held := tr.tree
	tr.mu.Unlock()
	if held != nil {
		t.Fatal("Calendar loaded the whole tree")
	}
	if len(cal.Subjects) != 0 {
		t.Errorf("Calendar loaded %d subjects, want none", len(cal.Subjects))
	}
	if len(whole.Entries) == 0 || len(cal.Entries) != len(whole.Entries) {
		t.Fatalf("Calendar has %d entries, the tree %d (want the same, at least one)", len(cal.Entries), len(whole.Entries))
	}
	for i, e := range whole.Entries {
		c := cal.Entries[i]
		if c.File != e.File || !c.Start.Equal(e.Start) || !c.End.Equal(e.End) || c.Owner != e.Owner || strings.Join(c.Subjects, ",") != strings.Join(e.Subjects, ",") {
			t.Errorf("entry %d: Calendar's %s %v-%v %s %v, the tree's %s %v-%v %s %v", i, c.File, c.Start, c.End, c.Owner, c.Subjects, e.File, e.Start, e.End, e.Owner, e.Subjects)
		}
	}
	if len(cal.Teams) != len(whole.Teams) || len(cal.Freezes) != len(whole.Freezes) {
		t.Errorf("Calendar has %d teams and %d freezes, the tree %d and %d", len(cal.Teams), len(cal.Freezes), len(whole.Teams), len(whole.Freezes))
	}
	loaded, _, err := tr.Current()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := tr.Calendar(); err != nil || again != loaded {
		t.Errorf("with the tree held, Calendar = %p (%v), want the held tree %p", again, err, loaded)
	}
}
