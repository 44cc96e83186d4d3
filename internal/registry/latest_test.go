package registry

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A subject's latest version carries its length and an ETag, and answers
// If-None-Match with 304 (it is not immutable: the tag changes with the version).
func TestLatestRevalidates(t *testing.T) {
	_, ts, _ := newTestServer(t)
	path := ts.URL + "/subjects/orders.order-created-value/versions/latest"
	body, status, hdr := get(t, path)
	tag := hdr.Get("ETag")
	if status != 200 || len(tag) < 3 || hdr.Get("Content-Length") != strconv.Itoa(len(body)) {
		t.Fatalf("GET latest: %d, ETag %q, Content-Length %q for %d bytes", status, tag, hdr.Get("Content-Length"), len(body))
	}
	if _, _, h1 := get(t, ts.URL+"/subjects/orders.order-created-value/versions/1"); h1.Get("ETag") == tag {
		t.Errorf("latest (version 2) has the ETag of version 1: %s", tag)
	}
	for inm, want := range map[string]int{tag: 304, "W/" + tag: 304, `"stale"`: 200} {
		req, _ := http.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("If-None-Match", inm)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("ETag") != tag {
			t.Errorf("If-None-Match %s: %d, ETag %q; want %d, %q", inm, resp.StatusCode, resp.Header.Get("ETag"), want, tag)
		}
	}
}

// The answer Under gives the latest version without the registry's ServeMux is the
// one the ServeMux gives (status, body, headers), and every other request (errors,
// queries, escaped paths, other methods, a deleted subject) still goes through it.
func TestUnderAnswersAsTheMux(t *testing.T) {
	dir, repo := testRepo(t)
	if err := os.RemoveAll(filepath.Join(dir, "contracts/dws/gmv-1min")); err != nil {
		t.Fatal(err)
	}
	commitAll(t, repo, "gmv-1min: deleted", 3)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	under := srv.Under("/registry")
	viaMux := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(CommitHeader, srv.Head())
		srv.mux.ServeHTTP(w, r)
	}
	snap := srv.snap.Load()
	var paths []string
	for name := range snap.subjects {
		paths = append(paths, "/subjects/"+url.PathEscape(name)+"/versions/latest")
	}
	paths = append(paths,
		"/subjects/dws.gmv-1min-value/versions/latest",              // deleted
		"/subjects/dws.gmv-1min-value/versions/latest?deleted=true", // deleted, asked for
		"/subjects/nope/versions/latest",
		"/subjects/orders.order-created-value/versions/-1",
		"/subjects/orders.order-created-value/versions/latest?format=serialized",
		"/subjects/payments.payment-authorized-value/versions/latest?format=serialized",
		"/subjects/orders.order-created-value/versions/latest/schema",
		"/subjects/orders%2Eorder-created-value/versions/latest",
		"/subjects//versions/latest",
		"/subjects/a/b/versions/latest",
		"/schemas/ids/1",
	)
	if len(snap.subjects) < 5 {
		t.Fatalf("the test tree has %d subjects", len(snap.subjects))
	}
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		for _, p := range paths {
			fast, slow := httptest.NewRecorder(), httptest.NewRecorder()
			under.ServeHTTP(fast, httptest.NewRequest(method, "/registry"+p, nil))
			viaMux(slow, httptest.NewRequest(method, p, nil))
			if fast.Code != slow.Code || fast.Body.String() != slow.Body.String() {
				t.Errorf("%s %s: %d %.80q, the ServeMux %d %.80q", method, p, fast.Code, fast.Body, slow.Code, slow.Body)
			}
			for _, h := range []string{"Content-Type", "Content-Length", "Etag", "Cache-Control", CommitHeader} {
				if fast.Header().Get(h) != slow.Header().Get(h) {
					t.Errorf("%s %s: %s %q, the ServeMux %q", method, p, h, fast.Header().Get(h), slow.Header().Get(h))
				}
			}
		}
	}
}
