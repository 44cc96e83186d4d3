package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// openFDs counts the process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors here: %v", err)
	}
	return len(entries)
}

// TestConnectionCapHoldsDescriptors: 1,000 connections that never send a request
// take at most MaxConns descriptors of the server's (the rest wait in the kernel's
// accept queue); a request is served once they go.
func TestConnectionCapHoldsDescriptors(t *testing.T) {
	const capConns, flood = 50, 1000
	s := New(Config{MaxConns: capConns})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx, l, time.Second)
	addr := l.Addr().String()
	waitFor(t, func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	before := openFDs(t)
	var conns []net.Conn
	for range flood {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			break // the accept queue is full: the kernel refuses, the server holds nothing
		}
		conns = append(conns, c)
	}
	time.Sleep(300 * time.Millisecond) // let the server accept what it will
	server := openFDs(t) - before - len(conns)
	if server > capConns+10 {
		t.Errorf("%d half-open connections took %d descriptors of the server's, over its cap of %d", len(conns), server, capConns)
	}
	for _, c := range conns {
		c.Close()
	}
	client := &http.Client{Timeout: 15 * time.Second}
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("after the flood: %v", err)
	}
	resp.Body.Close()
}

// TestBodiesPerClient: one address may have n requests with a body in flight; the
// next gets 429 with Retry-After, while its GETs and another address's bodies pass.
func TestBodiesPerClient(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	h := limitPerClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.RemoteAddr != "10.0.0.2:1" {
			started.Done()
			<-release
		}
		io.WriteString(w, "ok")
	}), 2)
	req := func(method, remote string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/webhook", strings.NewReader("{}"))
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	started.Add(2)
	done := make(chan struct{}, 2)
	for _, port := range []string{"1", "2"} {
		go func() { req(http.MethodPost, "10.0.0.1:"+port); done <- struct{}{} }()
	}
	started.Wait()
	if w := req(http.MethodPost, "10.0.0.1:3"); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Errorf("a third body from one address: %d, want 429 with Retry-After", w.Code)
	}
	if w := req(http.MethodGet, "10.0.0.1:4"); w.Code != http.StatusOK {
		t.Errorf("a GET from that address: %d", w.Code)
	}
	if w := req(http.MethodPost, "10.0.0.2:1"); w.Code != http.StatusOK {
		t.Errorf("a body from another address: %d", w.Code)
	}
	close(release)
	<-done
	<-done
	if w := req(http.MethodPost, "10.0.0.2:1"); w.Code != http.StatusOK {
		t.Errorf("after the others finished: %d", w.Code)
	}
}
