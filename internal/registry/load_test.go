package registry

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/versions"
)

// TestLoadThroughput measures the embedded registry on loopback: GET
// /subjects/{s}/versions/latest and GET /schemas/ids/{id}, 64 concurrent clients, each
// against a real http.Server on 127.0.0.1:0, as a ratio to a bare net/http handler
// that writes a fixed body of the same size, measured in the same run (phases
// interleaved over several rounds). Bounded in time and count; run it with
//
//	CONTRACTBOT_REGISTRY_LOAD=1 go test ./internal/registry -run TestLoadThroughput -v
//
// CONTRACTBOT_REGISTRY_LOAD_SUBJECTS (default 1000), _SECONDS per phase (default 2)
// and _ROUNDS (default 3) change the size; _MIN_RATIO (default 0.5) is the target.
func TestLoadThroughput(t *testing.T) {
	if os.Getenv("CONTRACTBOT_REGISTRY_LOAD") == "" {
		t.Skip("set CONTRACTBOT_REGISTRY_LOAD=1 to run the load measurement")
	}
	subjects := envInt("CONTRACTBOT_REGISTRY_LOAD_SUBJECTS", 1000)
	phase := time.Duration(envInt("CONTRACTBOT_REGISTRY_LOAD_SECONDS", 2)) * time.Second
	rounds := envInt("CONTRACTBOT_REGISTRY_LOAD_ROUNDS", 3)
	minRatio, _ := strconv.ParseFloat(envOr("CONTRACTBOT_REGISTRY_LOAD_MIN_RATIO", "0.5"), 64)
	const clients = 64

	dir := filepath.Join(t.TempDir(), "repo")
	if _, err := synth.Generate(dir, synth.Options{Subjects: subjects, Commits: subjects / 2, Seed: 1, ProtobufShare: 0.2}); err != nil {
		t.Fatal(err)
	}
	r, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	srv, err := NewServer(Source{Repo: r.Repository})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("NewServer (index %d commits, %d subjects, %d ids, build the snapshot): %s",
		srv.ix.Commits, len(srv.snap.Load().subjects), len(srv.snap.Load().ids), time.Since(start).Round(time.Millisecond))

	start = time.Now()
	if _, err := srv.b.build(srv.ix, func(v versions.Version) ([]byte, error) { return srv.ix.Schema(r.Repository, v) }); err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot rebuild when nothing changed (the part of Refresh after Extend): %s", time.Since(start).Round(time.Microsecond))

	snap := srv.snap.Load()
	var latestPaths, idPaths []string
	size := 0
	for name, se := range snap.subjects {
		if !se.deleted {
			latestPaths = append(latestPaths, "/subjects/"+url.PathEscape(name)+"/versions/latest")
			size += se.versions[len(se.versions)-1].body.size
		}
	}
	for i, e := range snap.ids {
		if e != nil {
			idPaths = append(idPaths, "/schemas/ids/"+strconv.Itoa(i+1))
		}
	}
	fixed := make([]byte, size/len(latestPaths))
	for i := range fixed {
		fixed[i] = 'x'
	}
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ContentType)
		_, _ = w.Write(fixed)
	})
	bareURL := serveLoopback(t, bare)
	regURL := serveLoopback(t, srv)

	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	run := func(base string, paths []string) float64 {
		var n atomic.Int64
		var failed atomic.Value
		ctx, cancel := context.WithTimeout(context.Background(), phase)
		defer cancel()
		var wg sync.WaitGroup
		t0 := time.Now()
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := c; ctx.Err() == nil && i < c+10_000_000; i += clients {
					resp, err := hc.Get(base + paths[i%len(paths)])
					if err != nil {
						failed.Store(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						failed.Store(fmt.Errorf("HTTP %d", resp.StatusCode))
						return
					}
					n.Add(1)
				}
			}()
		}
		wg.Wait()
		if err, _ := failed.Load().(error); err != nil {
			t.Fatalf("load against %s: %v", base, err)
		}
		return float64(n.Load()) / time.Since(t0).Seconds()
	}
	var sumBare, sumLatest, sumID float64
	for round := 1; round <= rounds; round++ {
		b := run(bareURL, []string{"/"})
		l := run(regURL, latestPaths)
		i := run(regURL, idPaths)
		sumBare, sumLatest, sumID = sumBare+b, sumLatest+l, sumID+i
		t.Logf("round %d: bare %.0f req/s, latest %.0f req/s (%.2f), by id %.0f req/s (%.2f)", round, b, l, l/b, i, i/b)
	}
	rl, ri := sumLatest/sumBare, sumID/sumBare
	t.Logf("%d clients, body %d bytes, %s per phase, %d rounds: bare %.0f req/s; latest %.0f req/s = %.2f of bare; by id %.0f req/s = %.2f of bare",
		clients, len(fixed), phase, rounds, sumBare/float64(rounds), sumLatest/float64(rounds), rl, sumID/float64(rounds), ri)
	if rl < minRatio || ri < minRatio {
		t.Errorf("throughput ratio under %.2f: latest %.2f, by id %.2f", minRatio, rl, ri)
	}
}

func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
