package registry

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"testing"

	"github.com/contractbot/contractbot/internal/versions"
)

// BenchmarkCollect measures what the embedded registry costs every collection of the
// process that serves it: a registry started as serve starts it (from the versions
// cache of an earlier start) on a generated repository (cmd/synthrepo's generator,
// seed 1, 20% Protobuf), then forced collections with it live: ns/op is one
// collection, ms-cpu/op the collector's CPU time in it (the runtime's estimate, on
// every core), objects the live heap's objects and MB/live its bytes. The mark phase
// visits every live object, and serve collects every few seconds under load
// (docs/performance.md, "The embedded registry at 100,000 subjects").
//
//	CONTRACTBOT_BENCH_SUBJECTS=100000 go test ./internal/registry -run '^$' -bench Collect -benchtime 10x
//
// CONTRACTBOT_BENCH_HEAPPROFILE=FILE also writes a heap profile with the registry live.
func BenchmarkCollect(b *testing.B) {
	dir, r := generatedRepo(b)
	cache := &versions.Cache{Dir: b.TempDir(), Repo: dir, Branch: "refs/heads/main"}
	if _, err := NewServer(Source{Repo: r.Repository, Cache: cache}); err != nil { // writes the cache
		b.Fatal(err)
	}
	srv, err := NewServer(Source{Repo: r.Repository, Cache: cache}) // starts from it, as serve's warm start
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/objects:objects"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	cpu := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(cpu)
	before := cpu[0].Value.Float64()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	metrics.Read(cpu)
	b.ReportMetric((cpu[0].Value.Float64()-before)*1e3/float64(b.N), "ms-cpu/op")
	if path := os.Getenv("CONTRACTBOT_BENCH_HEAPPROFILE"); path != "" { // what the objects are
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
		_ = f.Close()
	}
	b.ReportMetric(float64(sample[0].Value.Uint64()), "objects")
	b.ReportMetric(float64(sample[1].Value.Uint64())/1e6, "MB/live")
	runtime.KeepAlive(srv)
}
