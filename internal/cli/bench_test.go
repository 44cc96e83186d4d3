package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/verdict"
)

// BenchmarkCheck evaluates a change touching 100 subjects in a generated repository of
// 10,000 subjects (CONTRACTBOT_BENCH_SUBJECTS to change it) with 50 commits of history:
// the cost must follow the change, not the repository.
func BenchmarkCheck(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("CONTRACTBOT_BENCH_SUBJECTS")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	repo, err := synth.Generate(dir, synth.Options{Subjects: n, Commits: 50, Seed: 7, ProtobufShare: 0.2, Checkout: true})
	if err != nil {
		b.Fatal(err)
	}
	_ = repo
	changed := touchSchemas(b, dir, 100)
	// go-git's worktree commit rescans all 40,000 files; the git command is quicker
	// for this one-off setup step.
	cmd := exec.Command("git", "-C", dir, "-c", "user.name=b", "-c", "user.email=b@example.com",
		"commit", "-q", "-a", "-m", "add an optional field to 100 subjects")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git commit: %v\n%s", err, out)
	}
	runtime.GC()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		r, err := evaluateChange(dir, "HEAD", "HEAD~1", "", "", now, "")
		if err != nil {
			b.Fatal(err)
		}
		if got := countModified(r); got != len(changed) {
			b.Fatalf("%d subjects evaluated as modified, want %d", got, len(changed))
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapSys)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MB-heap-sys")
}

func countModified(r *verdict.Report) int {
	n := 0
	for _, s := range r.Subjects {
		if s.Kind == verdict.Modified {
			n++
		}
	}
	return n
}

// touchSchemas adds an optional field to the first k Avro schemas (in path order)
// and returns their paths relative to dir.
func touchSchemas(b *testing.B, dir string, k int) []string {
	b.Helper()
	var files []string
	err := filepath.Walk(filepath.Join(dir, "contracts"), func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".avsc") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(files)
	var out []string
	for _, f := range files[:k] {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		s := string(data)
		i := strings.Index(s, `"fields"`)
		j := strings.Index(s[i:], "[")
		s = s[:i+j+1] + `{"name": "bench_note", "type": ["null", "string"], "default": null}, ` + s[i+j+1:]
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, f)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}
