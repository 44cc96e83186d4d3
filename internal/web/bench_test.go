package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/versions"
)

// BenchmarkCatalog measures the server time of catalog requests on a generated
// repository of 10,000 subjects (CONTRACTBOT_BENCH_SUBJECTS to change it): the first
// page, a filtered page, a text search and a subject page. The tree, the versions
// index and the row list are built once per commit, before the timer starts.
//
//	go test ./internal/web -run '^$' -bench BenchmarkCatalog -benchtime 200x
func BenchmarkCatalog(b *testing.B) {
	repo, head, n := benchRepo(b, 20)
	// The index first, then the first catalog page from the subjects' summaries and
	// the full tree (serve itself now makes the first page before the registry
	// indexes: scripts/serve-start.sh measures that, docs/performance.md).
	start := time.Now()
	ix, err := versions.Build(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	indexed := time.Now()
	p := &Pages{Tree: &Tree{Repo: repo, Lend: sharedIndex(ix)},
		Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	p.Mount(mux)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if w.Code != http.StatusOK {
		b.Fatalf("first page: %d", w.Code)
	}
	firstPage := time.Now()
	if _, _, err := p.Tree.Current(); err != nil {
		b.Fatal(err)
	}
	loaded := time.Now()
	s, err := p.current()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d subjects: the versions index (the registry's, before serve listens) %v; the first catalog page from summaries %v; the full tree %v; its rows %v", n,
		indexed.Sub(start).Round(time.Millisecond), firstPage.Sub(indexed).Round(time.Millisecond),
		loaded.Sub(firstPage).Round(time.Millisecond), time.Since(loaded).Round(time.Millisecond))
	if len(s.rows) < n {
		b.Fatalf("%d rows, want %d", len(s.rows), n)
	}
	// The pages audit the history for the health page after their first page of a
	// commit; the figures below are of the pages without that work beside them.
	p.afterPage()
	waitAudit(s)
	sub := s.rows[len(s.rows)/2]
	for _, c := range []struct{ name, path string }{
		{"first-page", "/"},
		{"domain-and-page-3", "/subjects?domain=" + sub.Domain + "&page=3"},
		{"text-search", "/subjects?q=" + sub.Subject[:6]},
		{"last-page", "/subjects?page=200"},
		{"subject", "/subjects/" + sub.Subject},
		{"calendar-month", "/calendar?view=month&date=2026-12-01"},
		{"calendar-week", "/calendar?view=week&date=2026-12-07"},
		{"teams", "/teams"},
		{"team", "/teams/" + sub.Owner},
		{"signoffs", "/signoffs"},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("GET %s: %d", c.path, w.Code)
				}
			}
		})
	}
}

// BenchmarkCatalogVsBare compares, over loopback HTTP with parallel clients, the
// catalog's first page of a generated repository (CONTRACTBOT_BENCH_SUBJECTS, default
// 10,000) with a bare net/http handler writing a body of the same size: the ratio
// bare/catalog time per request is the catalog's share of a bare handler's throughput.
//
//	go test ./internal/web -run '^$' -bench CatalogVsBare -benchtime 3000x
func BenchmarkCatalogVsBare(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("CONTRACTBOT_BENCH_SUBJECTS")); err == nil && v > 0 {
		n = v
	}
	repo, err := synth.Generate(b.TempDir(), synth.Options{Subjects: n, Commits: 20, Seed: 7, ProtobufShare: 0.2})
	if err != nil {
		b.Fatal(err)
	}
	// As serve runs it: the commit comes from the embedded registry's atomic head, not
	// from reading the branch's reference on every request.
	head, err := gitrepo.ResolveBranch(repo, "")
	if err != nil {
		b.Fatal(err)
	}
	p := &Pages{Tree: &Tree{Repo: repo, Follow: following{&head}},
		Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	p.Mount(mux)
	pages := httptest.NewServer(mux)
	defer pages.Close()
	resp, err := http.Get(pages.URL + "/")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}))
	defer bare.Close()
	b.Logf("catalog first page: %d bytes", len(body))
	perOp := map[string]float64{}
	for _, c := range []struct{ name, url string }{{"bare", bare.URL + "/"}, {"catalog", pages.URL + "/"}} {
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := http.Get(c.url)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
			perOp[c.name] = float64(time.Since(start)) / float64(b.N)
		})
	}
	if perOp["catalog"] > 0 {
		b.Logf("catalog throughput / bare handler throughput: %.2f", perOp["bare"]/perOp["catalog"])
	}
}

// benchRepo generates the benchmarks' repository: 10,000 subjects
// (CONTRACTBOT_BENCH_SUBJECTS to change it), 20% Protobuf, with commits commits
// (CONTRACTBOT_BENCH_COMMITS to change it), and returns its head and size.
func benchRepo(b *testing.B, commits int) (*git.Repository, plumbing.Hash, int) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("CONTRACTBOT_BENCH_SUBJECTS")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("CONTRACTBOT_BENCH_COMMITS")); err == nil && v > 0 {
		commits = v
	}
	repo, err := synth.Generate(b.TempDir(), synth.Options{Subjects: n, Commits: commits, Seed: 7, ProtobufShare: 0.2})
	if err != nil {
		b.Fatal(err)
	}
	head, err := gitrepo.ResolveBranch(repo, "")
	if err != nil {
		b.Fatal(err)
	}
	return repo, head, n
}

// sharedIndex lends the pages an index built beforehand, as serve lends them the
// embedded registry's.
func sharedIndex(ix *versions.Index) Lender {
	return lenderFunc(func(h string, fn func(*versions.Index)) bool {
		if h != ix.HeadHash().String() {
			return false
		}
		fn(ix)
		return true
	})
}

// lenderFunc is a Lender that is a function.
type lenderFunc func(head string, fn func(*versions.Index)) bool

func (f lenderFunc) WithIndex(head string, fn func(*versions.Index)) bool { return f(head, fn) }

// following follows the commit *at, which the test may move, as serve's pages follow
// the embedded registry's; it is never degraded.
type following struct{ at *plumbing.Hash }

func (f following) Head() string   { return f.at.String() }
func (following) Degraded() string { return "" }
