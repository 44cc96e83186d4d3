package synth

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkGenerate generates 10,000 subjects and 5,000 commits (scaled by
// CONTRACTBOT_BENCH_SCALE; -short means 0.1):
//
//	go test ./internal/synth -run '^$' -bench . -benchtime 1x -benchmem
func BenchmarkGenerate(b *testing.B) {
	scale := 1.0
	if s, err := strconv.ParseFloat(os.Getenv("CONTRACTBOT_BENCH_SCALE"), 64); err == nil && s > 0 {
		scale = s
	} else if testing.Short() {
		scale = 0.1
	}
	for _, checkout := range []bool{false, true} {
		name := "repo"
		if checkout {
			name = "repo+checkout"
		}
		b.Run(name, func(b *testing.B) {
			o := Options{Subjects: int(10000 * scale), Commits: int(5000 * scale), ConsumersPerSubject: 2, Seed: 1,
				ProtobufShare: 0.2, Checkout: checkout}
			b.ReportAllocs()
			var st Stats
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "repo")
				b.StartTimer()
				var err error
				if _, st, err = GenerateStats(dir, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Commits)*float64(b.N)/b.Elapsed().Seconds(), "commits/s")
			b.ReportMetric(float64(st.Objects), "objects")
		})
	}
}
