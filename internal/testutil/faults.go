package testutil

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Stalled is an HTTP server that takes every request and never answers it (a
// stalled service): a request ends when its client gives up. After is written
// before the server stalls, so a test can stall a service in the middle of an answer.
func Stalled(t *testing.T, after func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if after != nil {
			after(w, r)
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv
}

// SyncBuffer is a bytes.Buffer that goroutines may write at once (a log's output).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
