package cli

import (
	"log/slog"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/synth"
)

// BenchmarkReport builds the health report of a synthetic repository of 10,000
// subjects and 5,000 commits (CONTRACTBOT_BENCH_REPO names an existing one, made by
// go run ./cmd/synthrepo -subjects 10000 -commits 5000 -seed 1 -repo DIR) as the
// command does (buildReport): cold, the versions index of the whole history, the
// audit of every version, the tree at the head (without schemas) and the report;
// warm, with --cache-dir holding the index and the audit of the head.
func BenchmarkReport(b *testing.B) {
	dir := benchReportRepo(b)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(b *testing.B, cache *reportCache) {
		for b.Loop() {
			r, err := buildReport(dir, cache, at)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(r.Subjects), "subjects")
		}
	}
	b.Run("cold", func(b *testing.B) { run(b, nil) })
	b.Run("warm", func(b *testing.B) {
		cache := &reportCache{dir: b.TempDir(), build: "bench", log: slog.New(slog.DiscardHandler)}
		if _, err := buildReport(dir, cache, at); err != nil {
			b.Fatal(err)
		}
		run(b, cache)
	})
}

// BenchmarkReportPhases reports the live heap (after a forced collection) at the end
// of each phase of buildReport, in its order: the versions index built and audited
// with the history's handle open, that handle closed, the index let go but for what
// the report reads, then the tree at the head loaded (ix-MB, closed-MB, indexed-MB,
// tree-MB). The repository is CONTRACTBOT_BENCH_REPO's or
// the 10,000-subject one BenchmarkReport makes; docs/performance.md has the figures.
func BenchmarkReportPhases(b *testing.B) {
	dir := benchReportRepo(b)
	live := func() float64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc) / (1 << 20)
	}
	for b.Loop() {
		repo, branch, head, err := openDefaultBranch(dir)
		if err != nil {
			b.Fatal(err)
		}
		var cache *reportCache
		ix, bs, err := cache.indexAndAudit(repo, dir, branch, head)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(live(), "ix-MB")
		repo.Close()
		b.ReportMetric(live(), "closed-MB")
		indexed := report.IndexedOf(ix)
		b.ReportMetric(live(), "indexed-MB")
		tree, err := loadWithoutSchemas(dir, head)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(live(), "tree-MB")
		runtime.KeepAlive(indexed)
		runtime.KeepAlive(bs)
		runtime.KeepAlive(tree)
	}
}

// benchReportRepo is CONTRACTBOT_BENCH_REPO, or else a synthetic repository of 10,000
// subjects and 5,000 commits made for the benchmark.
func benchReportRepo(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("CONTRACTBOT_BENCH_REPO"); dir != "" {
		return dir
	}
	dir := b.TempDir()
	if _, err := synth.Generate(dir, synth.Options{Subjects: 10000, Commits: 5000, Seed: 1, ProtobufShare: 0.2}); err != nil {
		b.Fatal(err)
	}
	return dir
}
