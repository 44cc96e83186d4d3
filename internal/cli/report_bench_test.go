package cli

import (
	"os"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/synth"
)

// BenchmarkReport builds the health report of a synthetic repository of 10,000
// subjects and 5,000 commits (CONTRACTBOT_BENCH_REPO names an existing one, made by
// go run ./cmd/synthrepo -subjects 10000 -commits 5000 -seed 1 -repo DIR): the
// versions index of the whole history, the audit of every version, the tree at the
// head (without schemas), the report: what the command does (buildReport).
func BenchmarkReport(b *testing.B) {
	dir := os.Getenv("CONTRACTBOT_BENCH_REPO")
	if dir == "" {
		dir = b.TempDir()
		if _, err := synth.Generate(dir, synth.Options{Subjects: 10000, Commits: 5000, Seed: 1, ProtobufShare: 0.2}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := buildReport(dir, nil, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Subjects), "subjects")
	}
}
