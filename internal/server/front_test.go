package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// hot is a Front answering GET and HEAD /hot with prepared header values; its mux
// route answers "mux".
type hot struct{}

var (
	hotType = []string{"text/plain"}
	hotBody = []byte("front")
)

func (h *hot) Mount(mux *http.ServeMux) {
	mux.HandleFunc("/hot", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "mux") })
}

func (h *hot) Answer(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/hot" {
		return false
	}
	w.Header()["Content-Type"] = hotType
	_, _ = w.Write(hotBody)
	return true
}

// A Front is offered GET and HEAD requests before the mux, with nosniff set; other
// methods and the requests it leaves alone reach the mux.
func TestFrontAnswersBeforeTheMux(t *testing.T) {
	s := New(Config{Mounts: []Mounter{&hot{}}})
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, "/hot", "front"},
		{http.MethodHead, "/hot", "front"},
		{http.MethodPost, "/hot", "mux"},
		{http.MethodGet, "/healthz", "ok\n"},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(c.method, c.path, nil))
		if w.Body.String() != c.body || w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: %q, nosniff %q; want %q from the %s", c.method, c.path, w.Body, w.Header().Get("X-Content-Type-Options"), c.body, map[bool]string{true: "front", false: "mux"}[c.body == "front"])
		}
	}
}

// What the server itself does in front of a Front (nosniff, the limits' method test)
// allocates nothing.
func TestFrontPathAllocatesNothing(t *testing.T) {
	s := New(Config{Mounts: []Mounter{&hot{}}})
	w := &reusedWriter{h: http.Header{}}
	r := httptest.NewRequest(http.MethodGet, "/hot", nil)
	allocs := testing.AllocsPerRun(200, func() {
		clear(w.h)
		s.ServeHTTP(w, r)
	})
	if allocs > 0 || w.n != len("front") {
		t.Errorf("GET /hot: %.1f allocations a request, %d bytes; want 0, 5", allocs, w.n)
	}
}

// reusedWriter keeps its header map between requests, as net/http's does within a
// connection.
type reusedWriter struct {
	h http.Header
	n int
}

func (w *reusedWriter) Header() http.Header         { return w.h }
func (w *reusedWriter) WriteHeader(int)             {}
func (w *reusedWriter) Write(b []byte) (int, error) { w.n = len(b); return len(b), nil }
