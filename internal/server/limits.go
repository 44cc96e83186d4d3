package server

import (
	"net"
	"net/http"
	"sync"
)

// DefaultMaxConns bounds the connections serve holds at once (Config.MaxConns): past
// it, new connections wait in the kernel's accept queue instead of taking a file
// descriptor each, so a flood of connections that never send a request (they are
// closed after ReadHeaderTimeout) cannot exhaust the process's descriptors. Measured
// in docs/performance.md ("Connection floods").
const DefaultMaxConns = 4096

// DefaultBodiesPerClient bounds the requests with a body (POST, PUT, PATCH) one
// client address has in flight at once (Config.BodiesPerClient); past it, 429 with
// Retry-After. GitHub sends a delivery at a time per hook and an OpenLineage client an
// event at a time per job, far below it.
const DefaultBodiesPerClient = 16

// perClient answers 429 to a client address that already has n requests with a
// body in flight; other requests pass.
type perClient struct {
	next http.Handler
	n    int

	mu       sync.Mutex
	inFlight map[string]int
}

func limitPerClient(next http.Handler, n int) http.Handler {
	return &perClient{next: next, n: n, inFlight: map[string]int{}}
}

func (p *perClient) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		p.next.ServeHTTP(w, r)
		return
	}
	// The connection's address: a header (X-Forwarded-For) is the sender's to choose.
	client, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		client = r.RemoteAddr
	}
	p.mu.Lock()
	if p.inFlight[client] >= p.n {
		p.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many requests from this address at once; send it again in a second", http.StatusTooManyRequests)
		return
	}
	p.inFlight[client]++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if p.inFlight[client]--; p.inFlight[client] == 0 {
			delete(p.inFlight, client)
		}
		p.mu.Unlock()
	}()
	p.next.ServeHTTP(w, r)
}
