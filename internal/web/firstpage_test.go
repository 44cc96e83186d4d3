package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
)

// TestSavedFirstPage: once Load has read a commit's rows, a restarted Pages on the
// same commit and build answers GET / from the saved page, byte for byte and with the
// ETag the made page has, before it makes any snapshot; another build, a query or
// another path make the page as before.
func TestSavedFirstPage(t *testing.T) {
	repo := exampleRepo(t)
	file := filepath.Join(t.TempDir(), "first.html")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	pages := func(build string) (*Pages, *httptest.Server) {
		p := &Pages{Tree: &Tree{Repo: repo, WithoutSchemas: true, Release: time.Hour}, Clock: clock.Func(func() time.Time { return pagesNow }),
			Log: quiet, FirstPage: file, Build: build}
		mux := http.NewServeMux()
		p.Mount(mux)
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return p, srv
	}
	first, srv1 := pages("b1")
	if err := first.Load(); err != nil {
		t.Fatal(err)
	}
	made, madeBody := get(t, srv1, "/")

	again, srv2 := pages("b1")
	resp, body := get(t, srv2, "/")
	if resp.StatusCode != 200 || body != madeBody || resp.Header.Get("ETag") != made.Header.Get("ETag") {
		t.Errorf("GET / after the restart: %d, ETag %s (want %s); the page differs from the one made:\n%s", resp.StatusCode, resp.Header.Get("ETag"), made.Header.Get("ETag"), firstDiff(madeBody, body))
	}
	if again.snap != nil || again.light.snap != nil {
		t.Error("the saved first page made a snapshot")
	}
	if resp, _ := get(t, srv2, "/?page=2"); resp.StatusCode != 200 || again.light.snap == nil {
		t.Error("a page with a query was not made from the summaries")
	}

	other, srv3 := pages("b2")
	if _, body := get(t, srv3, "/"); body == "" || other.light.snap == nil && other.snap == nil {
		t.Error("another build's page was served: the page must be made again")
	}
}
