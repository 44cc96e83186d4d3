package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestTreeWithoutSchemas: pages over a tree loaded without schemas (as serve loads it)
// are the pages over the full tree: each subject page loads its subject's schema.
func TestTreeWithoutSchemas(t *testing.T) {
	r := testutil.ExampleRepo(t)
	serve := func(without bool) func(string) string {
		p := &Pages{Tree: &Tree{Repo: r.Git, WithoutSchemas: without}, Clock: clock.Func(func() time.Time { return pagesNow }),
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		mux := http.NewServeMux()
		p.Mount(mux)
		return func(path string) string {
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
			if w.Code != http.StatusOK {
				t.Fatalf("GET %s (without schemas: %v): %d", path, without, w.Code)
			}
			return w.Body.String()
		}
	}
	full, light := serve(false), serve(true)
	tree, _, err := (&Tree{Repo: r.Git}).Current()
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/", "/teams"}
	for _, sub := range tree.Subjects {
		paths = append(paths, subjectHref(sub.Subject))
	}
	for _, p := range paths {
		if a, b := full(p), light(p); a != b {
			t.Errorf("%s differs when the tree is loaded without schemas", p)
		}
	}
	if len(paths) < 5 {
		t.Fatalf("only %d pages compared", len(paths))
	}
}
