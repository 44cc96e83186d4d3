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
