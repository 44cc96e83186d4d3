package web

import (
	"bytes"
	"encoding/gob"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/contract"
)

// TestPagesLetTheTreeGo: with Tree.Release set (serve sets it), the catalog's snapshot
// is made without loading the whole tree, and nothing the pages keep between requests
// holds the loaded tree once Tree lets it go: a subject's page, with its lineage both
// ways, is made from the catalog's rows and the subjects' folders loaded alone; the
// pages that read every subject load the tree. Every page is the same as with the tree
// kept.
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
	same("/")
	if loaded() != nil {
		t.Fatal("a subject's page or the catalog loaded the whole tree: the snapshot is made without it")
	}
	same("/teams")
	tree := loaded()
	if tree == nil {
		t.Fatal("the teams page loaded no tree")
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

// TestStreamedSnapshotIsTheTrees: the snapshot serve makes without loading the tree
// (Tree.Release: one pass over the subject folders) has the rows, producers, teams
// and calendar of the one made from the whole tree, also when two folders name one
// subject (the first folder's is kept, as Load keeps it) and a folder's contract.yaml
// does not parse.
func TestStreamedSnapshotIsTheTrees(t *testing.T) {
	repo := exampleRepo(t, func(t *testing.T, dir string) {
		if err := os.CopyFS(filepath.Join(dir, "contracts/zz/order-detail"), os.DirFS(filepath.Join(dir, "contracts/dw/order-detail"))); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "contracts/zz/broken"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "contracts/zz/broken/contract.yaml"), []byte("subject: [unclosed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	whole := &Pages{Tree: &Tree{Repo: repo, WithoutSchemas: true}, Log: quiet}
	want, _, err := whole.currentTree()
	if err != nil {
		t.Fatal(err)
	}
	p := &Pages{Tree: &Tree{Repo: repo, WithoutSchemas: true, Release: time.Hour}, Log: quiet}
	got, err := p.current()
	if err != nil {
		t.Fatal(err)
	}
	if p.Tree.tree != nil {
		t.Error("the streamed snapshot loaded the whole tree")
	}
	if len(want.rows) < 10 || !slices.ContainsFunc(want.rows, func(r row) bool { return r.dir == "contracts/dw/order-detail" }) {
		t.Fatalf("the tree's snapshot has %d rows, without contracts/dw/order-detail: the test's tree is not what it means", len(want.rows))
	}
	if !reflect.DeepEqual(got.rows, want.rows) {
		t.Errorf("rows differ:\n got %+v\nwant %+v", got.rows, want.rows)
	}
	if !reflect.DeepEqual(got.producers, want.producers) {
		t.Errorf("producers differ:\n got %v\nwant %v", got.producers, want.producers)
	}
	if !reflect.DeepEqual([][]string{got.domains, got.owners, got.formats}, [][]string{want.domains, want.owners, want.formats}) {
		t.Errorf("filter choices differ: got %v %v %v, want %v %v %v", got.domains, got.owners, got.formats, want.domains, want.owners, want.formats)
	}
	if len(got.skeleton.Teams) != len(want.skeleton.Teams) || len(got.skeleton.Entries) != len(want.skeleton.Entries) || len(got.skeleton.Freezes) != len(want.skeleton.Freezes) {
		t.Errorf("the skeleton has %d teams, %d entries, %d freezes; the tree's %d, %d, %d", len(got.skeleton.Teams), len(got.skeleton.Entries), len(got.skeleton.Freezes),
			len(want.skeleton.Teams), len(want.skeleton.Entries), len(want.skeleton.Freezes))
	}
}

// TestRowCache: with RowCache the streamed snapshot of a restart takes every folder
// whose tree is unchanged from the cache (a changed entry shows), and is the tree's
// snapshot when the cache is the one it saved.
func TestRowCache(t *testing.T) {
	repo := exampleRepo(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	file := filepath.Join(t.TempDir(), "rows")
	whole := &Pages{Tree: &Tree{Repo: repo, WithoutSchemas: true}, Log: quiet}
	want, _, err := whole.currentTree()
	if err != nil {
		t.Fatal(err)
	}
	stream := func() *snapshot {
		t.Helper()
		p := &Pages{Tree: &Tree{Repo: repo, WithoutSchemas: true, Release: time.Hour}, Log: quiet, RowCache: file}
		s, err := p.current()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, run := range []string{"cold", "warm"} {
		got := stream()
		if !reflect.DeepEqual(got.rows, want.rows) || !reflect.DeepEqual(got.producers, want.producers) {
			t.Errorf("%s: the rows or producers differ from the tree's:\n got %+v %v\nwant %+v %v", run, got.rows, got.producers, want.rows, want.producers)
		}
	}
	p := &Pages{Log: quiet, RowCache: file}
	rows := p.readRows()
	if len(rows) != len(want.rows) {
		t.Fatalf("the cache holds %d folders, want %d", len(rows), len(want.rows))
	}
	for h, c := range rows {
		c.Sum.Topic = "from-the-cache"
		rows[h] = c
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(rowFile{Format: rowCacheFormat, ByTree: rows}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range stream().rows {
		if r.Topic != "from-the-cache" {
			t.Fatalf("%s was read again though its folder is cached", r.Subject)
		}
	}
}

// TestHealthPageFromTheReportsTree: with Tree.Release the health page loads the tree
// as `contractbot report` does (Tree.ForReport, contract.LoadForReport) and is the
// same page as with the whole tree; a page that needs the whole tree then loads it.
func TestHealthPageFromTheReportsTree(t *testing.T) {
	repo := exampleRepo(t, gmvLong, gmvBackToInt)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	serve := func(tr *Tree) (*Pages, *httptest.Server) {
		p := &Pages{Tree: tr, Clock: clock.Func(func() time.Time { return pagesNow }), Log: quiet}
		mux := http.NewServeMux()
		p.Mount(mux)
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return p, srv
	}
	done := func(srv *httptest.Server) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, body := get(t, srv, "/report")
			if !strings.Contains(plain(body), "Being computed") {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatal("the history audit did not finish within 60 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	_, kept := serve(&Tree{Repo: repo, WithoutSchemas: true})
	p, srv := serve(&Tree{Repo: repo, WithoutSchemas: true, Release: time.Hour})
	want, got := done(kept), done(srv)
	if got != want {
		t.Errorf("the health page from the report's tree differs from the whole tree's:\n%s", firstDiff(want, got))
	}
	p.Tree.mu.Lock()
	lean := p.Tree.lean && p.Tree.tree != nil
	p.Tree.mu.Unlock()
	if !lean {
		t.Error("the health page did not load the report's tree")
	}
	same := func(path string) {
		t.Helper()
		_, w := get(t, kept, path)
		if _, g := get(t, srv, path); g != w {
			t.Errorf("%s after the report's tree differs:\n%s", path, firstDiff(w, g))
		}
	}
	same("/teams")
	same("/lineage")
	if p.Tree.lean {
		t.Error("the teams page did not load the whole tree")
	}
}
