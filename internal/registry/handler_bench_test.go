package registry

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkHandler measures the handler alone (no network): routing, the snapshot
// look-up and writing the precomputed body.
//
//	go test ./internal/registry -run '^$' -bench Handler -benchmem
func BenchmarkHandler(b *testing.B) {
	_, repo := testRepo(b)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/subjects/orders.order-created-value/versions/latest", "/schemas/ids/3"} {
		b.Run(path, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// BenchmarkUnder measures a latest version under serve's "/registry": answered
// before serve's ServeMux (Mounted.Answer), and routed by a ServeMux to the mounted
// registry as it was before.
//
//	go test ./internal/registry -run '^$' -bench Under -benchmem
func BenchmarkUnder(b *testing.B) {
	_, repo := testRepo(b)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		b.Fatal(err)
	}
	under := srv.Under("/registry")
	mux := http.NewServeMux()
	mux.Handle("/registry/", under)
	for _, p := range []string{"GET /{$}", "GET /subjects", "GET /subjects/{subject}", "GET /teams/{team}", "GET /calendar/{file}"} {
		mux.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	r := httptest.NewRequest(http.MethodGet, "/registry/subjects/orders.order-created-value/versions/latest", nil)
	w := &reusedWriter{h: http.Header{}}
	for name, h := range map[string]http.HandlerFunc{
		"answer": func(w http.ResponseWriter, r *http.Request) {
			if !under.Answer(w, r) {
				mux.ServeHTTP(w, r)
			}
		},
		"mux": mux.ServeHTTP,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h(w, r)
			}
		})
	}
}
