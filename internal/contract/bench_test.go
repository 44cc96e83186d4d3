package contract_test

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/synth"
)

// benchSubjects is the size of the generated tree: 10,000 unless
// CONTRACTBOT_BENCH_SUBJECTS says otherwise (CI runs the benchmarks smaller).
func benchSubjects() int {
	if n, err := strconv.Atoi(os.Getenv("CONTRACTBOT_BENCH_SUBJECTS")); err == nil && n > 0 {
		return n
	}
	return 10000
}

var (
	benchOnce sync.Once
	benchDir  string
	benchRepo *git.Repository
	benchErr  error
)

// benchTree generates one repository for all loader benchmarks of a run.
func benchTree(b *testing.B) (string, *git.Repository) {
	b.Helper()
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "contractbot-bench-")
		if benchErr != nil {
			return
		}
		benchRepo, benchErr = synth.Generate(benchDir, synth.Options{
			Subjects: benchSubjects(), Commits: 20, ConsumersPerSubject: 2, Seed: 1,
			ProtobufShare: 0.2, Checkout: true,
		})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir, benchRepo
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// openFast opens the generated repository as the commands do (pack files kept open).
func openFast(b *testing.B) *git.Repository {
	dir, _ := benchTree(b)
	r, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return r.Repository
}

// BenchmarkLintDir loads and validates the whole generated tree from a directory.
func BenchmarkLintDir(b *testing.B) {
	dir, _ := benchTree(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tree, err := contract.Load(contract.NewDirSource(dir))
		if err != nil {
			b.Fatal(err)
		}
		if n := tree.Diagnostics.Errors(); n > 0 {
			b.Fatalf("%d errors in the generated tree, first: %s", n, tree.Diagnostics[0])
		}
		b.ReportMetric(float64(len(tree.Subjects)), "subjects")
	}
}

// BenchmarkLintRevision does the same from Git objects (HEAD), without the checkout.
func BenchmarkLintRevision(b *testing.B) {
	repo := openFast(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src, err := contract.NewGitSource(repo, "HEAD")
		if err != nil {
			b.Fatal(err)
		}
		tree, err := contract.Load(src)
		if err != nil {
			b.Fatal(err)
		}
		if n := tree.Diagnostics.Errors(); n > 0 {
			b.Fatalf("%d errors, first: %s", n, tree.Diagnostics[0])
		}
	}
}

// BenchmarkLoadSubjectAtRevision loads one subject at HEAD~1 of the big repository.
func BenchmarkLoadSubjectAtRevision(b *testing.B) {
	dir, _ := benchTree(b)
	repo := openFast(b)
	domains, err := os.ReadDir(filepath.Join(dir, "contracts"))
	if err != nil {
		b.Fatal(err)
	}
	var subjectDir string
	for _, d := range domains {
		if d.IsDir() {
			names, _ := os.ReadDir(filepath.Join(dir, "contracts", d.Name()))
			subjectDir = "contracts/" + d.Name() + "/" + names[len(names)-1].Name()
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src, err := contract.NewGitSource(repo, "HEAD~1")
		if err != nil {
			b.Fatal(err)
		}
		tree, err := contract.LoadSubject(src, subjectDir)
		if err != nil {
			b.Fatal(err)
		}
		if len(tree.Subjects) != 1 || tree.Diagnostics.Errors() > 0 {
			b.Fatalf("%s: %d subjects, %v", subjectDir, len(tree.Subjects), tree.Diagnostics)
		}
	}
}
