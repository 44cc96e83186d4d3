package registry

import (
	"path/filepath"
	"testing"

	"github.com/contractbot/contractbot/internal/block"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/synth"
)

// BenchmarkPacked measures the version bodies as the registry keeps them (packed.go)
// on a generated repository (cmd/synthrepo's generator, seed 1, 20% Protobuf):
// the latest bodies' size raw, packed with the snapshot's dictionary and packed
// without one (B/raw, B/dict, B/nodict), and per body the cost of inflating it into a
// reused buffer against copying it (the "inflate" and "copy" sub-benchmarks, ns/op for
// all the bodies, ns/body reported).
//
//	CONTRACTBOT_BENCH_SUBJECTS=100000 go test ./internal/registry -run '^$' -bench Packed -benchtime 3x
func BenchmarkPacked(b *testing.B) {
	_, r := generatedRepo(b)
	srv, err := NewServer(Source{Repo: r.Repository})
	if err != nil {
		b.Fatal(err)
	}
	var latest []packed
	var raw [][]byte
	rawBytes, dictBytes, plainBytes := 0, 0, 0
	var scratch []byte
	for _, se := range srv.snap.Load().subjects {
		if se.deleted || len(se.versions) == 0 {
			continue
		}
		p := se.versions[len(se.versions)-1].body
		body := p.bytes()
		latest, raw = append(latest, p), append(raw, body)
		rawBytes += len(body)
		dictBytes += len(p.data)
		plainBytes += len(pack(nil, body, &scratch, &block.Block{}).data)
	}
	if len(latest) == 0 {
		b.Fatal("no latest version")
	}
	buf := make([]byte, 0, 1<<16)
	b.Run("inflate", func(b *testing.B) {
		for b.Loop() {
			for _, p := range latest {
				buf = p.into(buf)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(latest)), "ns/body")
		b.ReportMetric(float64(rawBytes), "B/raw")
		b.ReportMetric(float64(dictBytes), "B/dict")
		b.ReportMetric(float64(plainBytes), "B/nodict")
	})
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			for _, body := range raw {
				buf = append(buf[:0], body...)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(raw)), "ns/body")
	})
}

// generatedRepo is a repository of CONTRACTBOT_BENCH_SUBJECTS subjects (2,000 when
// unset) made by cmd/synthrepo's generator (seed 1, 20 commits, 20% Protobuf), open
// until the benchmark ends, and its folder.
func generatedRepo(b *testing.B) (string, *gitrepo.Repo) {
	dir := filepath.Join(b.TempDir(), "repo")
	if _, err := synth.Generate(dir, synth.Options{Subjects: envInt("CONTRACTBOT_BENCH_SUBJECTS", 2000), Commits: 20, Seed: 1, ProtobufShare: 0.2}); err != nil {
		b.Fatal(err)
	}
	r, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() })
	return dir, r
}
