package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"

	"github.com/contractbot/contractbot/internal/server"
)

// servePprof serves Go's profiles (/debug/pprof/) on addr, a loopback address only:
// profiles show what the process holds and does, and a CPU profile costs CPU while
// it runs, so they are never beside the pages (docs/performance.md, "The embedded
// registry at 100,000 subjects").
func servePprof(ctx context.Context, addr string, log *slog.Logger) error {
	if err := loopbackOnly(addr); err != nil {
		return fmt.Errorf("--pprof-addr %q: %w", addr, err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := server.NewHTTPServer(mux)
	srv.WriteTimeout = 0 // a CPU profile or a trace lasts as long as it was asked to
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
			log.Error("the pprof listener stopped", "err", err)
		}
	}()
	log.Info("serving Go's profiles", "addr", l.Addr().String())
	return nil
}

// loopbackOnly refuses an address whose host is not a loopback IP or localhost.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("write HOST:PORT, e.g. 127.0.0.1:6060: %w", err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("profiles are served on a loopback address only; write 127.0.0.1:PORT or [::1]:PORT")
	}
	return nil
}
