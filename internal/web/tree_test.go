package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/versions"
)

// TestSharedVersions: with an index lent at the right commit (serve lends the embedded
// registry's), the pages build no versions index of their own and still show each
// subject's latest version. While the lent index is at another commit (the registry
// still indexing), they build none either: the pages say the history is being indexed,
// and the next request after the index reaches the commit shows the versions.
func TestSharedVersions(t *testing.T) {
	r := testutil.ExampleRepo(t)
	head, err := gitrepo.ResolveBranch(r.Git, "")
	if err != nil {
		t.Fatal(err)
	}
	lent, err := versions.Build(r.Git, head)
	if err != nil {
		t.Fatal(err)
	}
	at := plumbing.NewHash("0123456789012345678901234567890123456789") // still indexing
	asked := 0
	tree := &Tree{Repo: r.Git, Lend: lenderFunc(func(h string, fn func(*versions.Index)) bool {
		asked++
		if h != at.String() {
			return false
		}
		fn(lent)
		return true
	})}
	p := &Pages{Tree: tree, Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	p.Mount(mux)
	get := func(path string) string {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, w.Code)
		}
		return w.Body.String()
	}
	const indexing, v1 = "being indexed", `data-label="Latest">v1<`
	for _, path := range []string{"/", "/subjects/orders.order-created-value"} {
		if body := get(path); !strings.Contains(body, indexing) {
			t.Errorf("%s while the index is elsewhere does not say it is being indexed", path)
		}
	}
	if s := p.snap; asked == 0 || s == nil || s.versions != nil || !s.versionsPending || tree.ix != nil {
		t.Fatalf("lent elsewhere: asked %d times, snapshot %v; built its own index: %v", asked, s != nil, tree.ix != nil)
	}
	at = head // the lender's index reaches the commit
	catalog := get("/")
	if strings.Contains(catalog, indexing) || !strings.Contains(catalog, v1) {
		t.Errorf("once the index is at the commit the catalog still lacks the versions:\n%s", catalog)
	}
	if s := p.snap; s.versions == nil || s.versionsPending || len(s.versions["orders.order-created-value"]) != 1 || tree.ix != nil {
		t.Errorf("lent at the head: versions %v, pending %v, built its own index: %v", s.versions["orders.order-created-value"], s.versionsPending, tree.ix != nil)
	}
}
