package registry

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
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

// What a request under serve's "/registry" gets when Mounted.Answer is offered it
// before serve's ServeMux is what the ServeMux path gives it (serve's mux routing
// "/registry/" through http.StripPrefix to the registry): status, body and headers,
// for every subject's latest and numbered versions and for everything Answer must
// leave alone (errors, queries, escaped and unclean paths, other methods, a deleted
// subject, out-of-range versions), with and without If-None-Match.
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
	outer := func(h http.Handler) *http.ServeMux { // serve's mux, with one of its pages
		m := http.NewServeMux()
		m.Handle("/registry/", h)
		m.HandleFunc("GET /subjects/{subject}", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("page")) })
		return m
	}
	fastMux := outer(under)
	fast := func(w http.ResponseWriter, r *http.Request) {
		if !under.Answer(w, r) {
			fastMux.ServeHTTP(w, r)
		}
	}
	slow := outer(http.StripPrefix("/registry", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(CommitHeader, srv.Head())
		srv.mux.ServeHTTP(w, r)
	})))
	snap := srv.snap.Load()
	var paths []string
	for name, se := range snap.subjects {
		for _, v := range []string{"latest", "-1", "1", strconv.Itoa(len(se.versions)), strconv.Itoa(len(se.versions) + 1)} {
			paths = append(paths, "/subjects/"+url.PathEscape(name)+"/versions/"+v)
		}
	}
	const s = "/subjects/orders.order-created-value"
	paths = append(paths,
		"/subjects/dws.gmv-1min-value/versions/latest",              // deleted
		"/subjects/dws.gmv-1min-value/versions/1",                   // deleted
		"/subjects/dws.gmv-1min-value/versions/latest?deleted=true", // deleted, asked for
		"/subjects/nope/versions/latest",
		s+"/versions/0", s+"/versions/02", s+"/versions/+2", s+"/versions/-2", s+"/versions/x", s+"/versions/2147483648",
		s+"/versions/", s+"/versions", s+"/versions/latest/", s+"/versions/latest/schema", s+"/versions/1/referencedby",
		s+"/versions/latest?format=serialized", s+"/versions/latest?", s+"/versions/1?x=y",
		"/subjects/payments.payment-authorized-value/versions/latest?format=serialized",
		"/subjects/orders%2Eorder-created-value/versions/latest",
		"/subjects/orders%2Forder-created-value/versions/latest",
		s+"/versions/%6Catest",
		"/subjects//versions/latest", "/subjects/./versions/latest", "/subjects/../versions/latest",
		"/subjects/a/b/versions/latest", "/subjects/a/../orders.order-created-value/versions/latest",
		"/subjects/a/versions/latest/versions/latest",
		"/schemas/ids/1", "/subjects", "/",
	)
	if len(snap.subjects) < 5 {
		t.Fatalf("the test tree has %d subjects", len(snap.subjects))
	}
	tags := map[string]string{} // a path's ETag, for If-None-Match
	for _, inm := range []bool{false, true} {
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete} {
			for _, p := range paths {
				fw, sw := httptest.NewRecorder(), httptest.NewRecorder()
				fr, sr := httptest.NewRequest(method, "/registry"+p, nil), httptest.NewRequest(method, "/registry"+p, nil)
				if tag := tags[p]; inm && tag != "" {
					fr.Header.Set("If-None-Match", tag)
					sr.Header.Set("If-None-Match", "W/"+tag)
				}
				fast(fw, fr)
				slow.ServeHTTP(sw, sr)
				if fw.Code != sw.Code || fw.Body.String() != sw.Body.String() {
					t.Errorf("%s %s: %d %.80q, the ServeMux %d %.80q", method, p, fw.Code, fw.Body, sw.Code, sw.Body)
				}
				if !reflect.DeepEqual(fw.Header(), sw.Header()) {
					t.Errorf("%s %s: headers %v, the ServeMux %v", method, p, fw.Header(), sw.Header())
				}
				if method == http.MethodGet && !inm {
					tags[p] = fw.Header().Get("ETag")
				}
			}
		}
	}
}

// The reads Answer takes allocate nothing: the header values are prepared when the
// snapshot is built and set as canonical map entries.
func TestAnswerAllocatesNothing(t *testing.T) {
	_, repo := testRepo(t)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	under := srv.Under("/registry")
	w := &reusedWriter{h: http.Header{}}
	for _, p := range []string{"/subjects/orders.order-created-value/versions/latest", "/subjects/orders.order-created-value/versions/1"} {
		r := httptest.NewRequest(http.MethodGet, "/registry"+p, nil)
		allocs := testing.AllocsPerRun(200, func() {
			clear(w.h)
			if !under.Answer(w, r) || w.n == 0 {
				t.Fatalf("GET %s: not answered", p)
			}
		})
		if allocs > 0 {
			t.Errorf("GET %s: %.1f allocations a request, want 0", p, allocs)
		}
	}
}

// reusedWriter is a ResponseWriter that keeps its header map between requests, as
// net/http's does within a connection.
type reusedWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *reusedWriter) Header() http.Header         { return w.h }
func (w *reusedWriter) WriteHeader(code int)        { w.code = code }
func (w *reusedWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
