package cli

import (
	"os"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/versions"
)

// BenchmarkReport builds the health report of a synthetic repository of 10,000
// subjects and 5,000 commits (CONTRACTBOT_BENCH_REPO names an existing one, made by
// go run ./cmd/synthrepo -subjects 10000 -commits 5000 -seed 1 -repo DIR): the
// versions index of the whole history, the audit of every version, the tree at the
// head, the report.
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
		var r *report.Report
		err := withHistory(dir, func(repo *gitrepo.Repo, ix *versions.Index, bs []history.Break) error {
			src, err := contract.NewGitSource(repo.Repository, ix.Head)
			if err != nil {
				return err
			}
			tree, err := contract.Load(src)
			if err != nil {
				return err
			}
			r = report.Build(tree, ix, bs, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Subjects), "subjects")
	}
}
