package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/versions"
)

// BenchmarkHealth measures the health page on a generated repository of 10,000
// subjects and 20 commits (CONTRACTBOT_BENCH_SUBJECTS and CONTRACTBOT_BENCH_COMMITS
// to change it), set up as serve sets the pages up (the registry's index lent, the
// tree loaded): the first page, which starts the history audit and does not wait
// for it; the audit in the background (wall and the process's CPU time while it
// runs); subject pages rendered while the audit runs and after it; the first finished /report
// (rendered) and the next ones (from memory).
//
//	go test ./internal/web -run '^$' -bench BenchmarkHealth -benchtime 200x
func BenchmarkHealth(b *testing.B) {
	repo, head, n := benchRepo(b, 20)
	ix, err := versions.Build(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	p := &Pages{Tree: &Tree{Repo: repo, Follow: following{&head}, Lend: sharedIndex(ix)},
		Clock: clock.Func(func() time.Time { return pagesNow }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	p.Mount(mux)
	get := func(path string) string {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", path, w.Code)
		}
		return w.Body.String()
	}
	s, err := p.current()
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime()
	start := time.Now()
	get("/") // starts the audit after it is written
	firstPage := time.Since(start)
	if _, _, done := s.health.result(); done {
		b.Fatal("the audit finished before the first page returned: it ran in the request")
	}
	// Subject pages (each a different subject: none served from memory) while the
	// audit runs, then as many after it: what the audit costs the pages.
	var during, after time.Duration
	next := 0
	subject := func() time.Duration {
		t0 := time.Now()
		get("/subjects/" + s.rows[next%len(s.rows)].Subject)
		next++
		return time.Since(t0)
	}
	for {
		if _, _, done := s.health.result(); done {
			break
		}
		during += subject()
	}
	audit, auditCPU := time.Since(start), cpuTime()-cpu0
	pagesDuring := next
	for range pagesDuring {
		after += subject()
	}
	if pagesDuring > 0 {
		b.Logf("%d subject pages while the audit ran: %v each on average; the next %d after it: %v each", pagesDuring,
			(during / time.Duration(pagesDuring)).Round(time.Microsecond), pagesDuring, (after / time.Duration(pagesDuring)).Round(time.Microsecond))
	}
	broken, auditErr, _ := s.health.result()
	if auditErr != nil {
		b.Fatal(auditErr)
	}
	start = time.Now()
	body := get("/report")
	if strings.Contains(body, "Being computed") {
		b.Fatal("/report still says the history is being computed")
	}
	b.Logf("%d subjects, %d commits: first page %v (the audit not waited for); the audit in the background %v wall, %v CPU of the process (%d breaks); the first finished /report %v (%d KiB)",
		n, ix.Commits, firstPage.Round(time.Millisecond), audit.Round(time.Millisecond), auditCPU.Round(time.Millisecond), len(broken), time.Since(start).Round(time.Millisecond), len(body)>>10)
	b.ResetTimer()
	for b.Loop() {
		get("/report")
	}
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitAudit waits for the health page's history audit of s to finish.
func waitAudit(s *snapshot) {
	for {
		if _, _, done := s.health.result(); done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
