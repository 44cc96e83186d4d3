package versions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Benchmarks run over a synthetic repository of 10,000 subjects and 5,000 commits,
// generated once per process (outside the timed loops) in a temporary directory.
// CONTRACTBOT_BENCH_SCALE scales both numbers (e.g. 0.1 in CI); -short means 0.1.
//
//	go test ./internal/versions -run '^$' -bench . -benchtime 1x -benchmem

var (
	benchOnce sync.Once
	benchDir  string
	benchOpts synth.Options
	benchErr  error
	benchHead plumbing.Hash
	benchGen  time.Duration
)

func benchScale() float64 {
	if s := os.Getenv("CONTRACTBOT_BENCH_SCALE"); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
			return f
		}
	}
	if testing.Short() {
		return 0.1
	}
	return 1
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func benchRepo(b *testing.B) (*git.Repository, plumbing.Hash) {
	b.Helper()
	benchOnce.Do(func() {
		sc := benchScale()
		benchOpts = synth.Options{Subjects: int(10000 * sc), Commits: int(5000 * sc), ConsumersPerSubject: 2, Seed: 1, ProtobufShare: 0.2}
		benchDir, benchErr = os.MkdirTemp("", "contractbot-versions-bench-")
		if benchErr != nil {
			return
		}
		var st synth.Stats
		_, st, benchErr = synth.GenerateStats(filepath.Join(benchDir, "repo"), benchOpts)
		benchHead, benchGen = st.Head, st.Elapsed
		runtime.GC() // do not bill the generator's garbage to the first timed run
		fmt.Fprintf(os.Stderr, "bench repository: %d subjects, %d commits, %d objects, generated in %s\n",
			st.Subjects, st.Commits, st.Objects, st.Elapsed.Round(time.Millisecond))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	// a fresh handle each time: no warm go-git object cache from an earlier run
	repo, err := gitrepo.Open(filepath.Join(benchDir, "repo", ".git"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { repo.Close() })
	return repo.Repository, benchHead
}

func BenchmarkBuild(b *testing.B) {
	repo, head := benchRepo(b)
	b.ReportAllocs()
	b.ResetTimer()
	var ix *Index
	for i := 0; i < b.N; i++ {
		var err error
		if ix, err = Build(repo, head); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if ix.Commits != benchOpts.Commits || len(ix.Subjects()) != benchOpts.Subjects {
		b.Fatalf("indexed %d commits, %d subjects", ix.Commits, len(ix.Subjects()))
	}
	b.ReportMetric(float64(ix.Commits)*float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	b.ReportMetric(float64(len(ix.Schemas)), "schemas")
}

func BenchmarkExtendOneCommit(b *testing.B) {
	repo, head := benchRepo(b)
	c, err := repo.CommitObject(head)
	if err != nil {
		b.Fatal(err)
	}
	base, err := Build(repo, c.ParentHashes[0])
	if err != nil {
		b.Fatal(err)
	}
	cached, err := json.Marshal(base)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(cached))/(1<<20), "cacheMB")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ix := &Index{}
		if err := json.Unmarshal(cached, ix); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := ix.Extend(repo, head); err != nil {
			b.Fatal(err)
		}
		if ix.Head != head.String() {
			b.Fatal("not extended")
		}
	}
}

// BenchmarkLoadCachedIndex measures what the bot pays to restore a cached index.
func BenchmarkLoadCachedIndex(b *testing.B) {
	repo, head := benchRepo(b)
	ix, err := Build(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	data, _ := json.Marshal(ix)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out Index
		if err := json.Unmarshal(data, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtendOneCommitCold is what a fresh bot replica pays per event: open the
// repository (pack index load), restore the cached index from JSON, extend by one.
func BenchmarkExtendOneCommitCold(b *testing.B) {
	repo, head := benchRepo(b)
	c, err := repo.CommitObject(head)
	if err != nil {
		b.Fatal(err)
	}
	base, err := Build(repo, c.ParentHashes[0])
	if err != nil {
		b.Fatal(err)
	}
	cached, _ := json.Marshal(base)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := gitrepo.Open(filepath.Join(benchDir, "repo", ".git"))
		if err != nil {
			b.Fatal(err)
		}
		ix := &Index{}
		if err := json.Unmarshal(cached, ix); err != nil {
			b.Fatal(err)
		}
		if err := ix.Extend(r.Repository, head); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// BenchmarkCacheRestore is what a start pays to restore the cached index: the cache
// file's decode (gob, after its checksum) against json.Unmarshal of the same index.
func BenchmarkCacheRestore(b *testing.B) {
	repo, head := benchRepo(b)
	ix, err := Build(repo, head)
	if err != nil {
		b.Fatal(err)
	}
	file, err := encodeCache(cacheHeader{Format: CacheFormat, Head: ix.Head}, ix)
	if err != nil {
		b.Fatal(err)
	}
	js, err := json.Marshal(ix)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("gob", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, got, err := decodeCache(file); err != nil || got.Head != ix.Head {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(js)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var got Index
			if err := json.Unmarshal(js, &got); err != nil || got.Head != ix.Head {
				b.Fatal(err)
			}
		}
	})
}
