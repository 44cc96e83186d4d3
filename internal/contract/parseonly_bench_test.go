package contract_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/parsefloor"
)

// cpuTime is the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLintVsParseOnly runs contract.LoadForLint (lint, no cache) and the parse-only
// floor (internal/parsefloor) on the generated tree alternately, and reports the CPU
// time and wall time of each per run and the ratio lint / parse-only of their CPU
// times.
func BenchmarkLintVsParseOnly(b *testing.B) {
	dir, _ := benchTree(b)
	var lintCPU, parseCPU, lintWall, parseWall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		c0, w0 := cpuTime(), time.Now()
		tree, err := contract.LoadForLint(contract.NewDirSource(dir), nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n := tree.Diagnostics.Errors(); n > 0 {
			b.Fatalf("%d errors in the generated tree, first: %s", n, tree.Diagnostics[0])
		}
		lintCPU, lintWall = lintCPU+cpuTime()-c0, lintWall+time.Since(w0)
		tree = nil
		runtime.GC()
		c0, w0 = cpuTime(), time.Now()
		n, err := parsefloor.Run(dir)
		if err != nil {
			b.Fatal(err)
		}
		if n < 3*benchSubjects() {
			b.Fatalf("parse-only read %d files", n)
		}
		parseCPU, parseWall = parseCPU+cpuTime()-c0, parseWall+time.Since(w0)
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(per(lintCPU), "lint-cpu-s/op")
	b.ReportMetric(per(parseCPU), "parse-only-cpu-s/op")
	b.ReportMetric(per(lintWall), "lint-wall-s/op")
	b.ReportMetric(per(parseWall), "parse-only-wall-s/op")
	b.ReportMetric(lintCPU.Seconds()/parseCPU.Seconds(), "cpu-ratio")
}
