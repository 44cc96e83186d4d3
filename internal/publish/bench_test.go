package publish

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/publish/publishtest"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/versions"
)

// BenchmarkPublish publishes a merge that touches 100 subjects of a generated
// repository of 10,000 subjects (CONTRACTBOT_BENCH_SUBJECTS to change it) with 50
// commits of history, everything before it already published: index the history,
// evaluate the merge, set 100 levels, look up and register 100 versions in a registry
// on loopback (registry.Client over HTTP), append and fsync 100 events, mark the
// commit. Each iteration starts from an empty registry and a fresh state.
func BenchmarkPublish(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("CONTRACTBOT_BENCH_SUBJECTS")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	if _, err := synth.Generate(dir, synth.Options{Subjects: n, Commits: 50, Seed: 7, ProtobufShare: 0.2, Checkout: true}); err != nil {
		b.Fatal(err)
	}
	touchSchemas(b, dir, 100)
	cmd := exec.Command("git", "-C", dir, "-c", "user.name=b", "-c", "user.email=b@example.com",
		"commit", "-q", "-a", "-m", "Add an optional field to 100 subjects (#1)")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git commit: %v\n%s", err, out)
	}
	// Opened as the command opens it (pack files kept open).
	r, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	repo := r.Repository
	ref, err := repo.Reference(plumbing.NewBranchReferenceName(synth.Branch), true)
	if err != nil {
		b.Fatal(err)
	}
	head, err := repo.CommitObject(ref.Hash())
	if err != nil {
		b.Fatal(err)
	}
	var total, index time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tmp := b.TempDir()
		m, err := OpenFileMarker(filepath.Join(tmp, "state.json"))
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Mark(context.Background(), head.ParentHashes[0].String(), Summary{}); err != nil {
			b.Fatal(err)
		}
		sink, err := events.OpenFile(filepath.Join(tmp, "events.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		fake := publishtest.NewRegistry()
		srv := httptest.NewServer(fake)
		c, err := registry.NewClient(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		p := &Publisher{Repo: repo, Registry: c, Sink: sink, Marker: m, Source: "bench"}
		b.StartTimer()
		t0 := time.Now()
		sums, err := p.Publish(context.Background(), head.Hash)
		total += time.Since(t0)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if len(sums) != 1 || len(sums[0].Published) != 100 || fake.Registrations() != 100 {
			b.Fatalf("published %d commit(s), %d registrations, want 1 and 100", len(sums), fake.Registrations())
		}
		srv.Close()
		sink.Close()
		// The share spent indexing the history (which the bot keeps between pushes).
		t1 := time.Now()
		if _, err := versions.Build(repo, head.ParentHashes[0]); err != nil {
			b.Fatal(err)
		}
		index += time.Since(t1)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/publish")
	b.ReportMetric(float64(index.Milliseconds())/float64(b.N), "ms/index-history")
}

// touchSchemas adds an optional field to the first k Avro schemas (in path order).
func touchSchemas(b *testing.B, dir string, k int) {
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
	}
}
