package synth_test

import (
	"path/filepath"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/synth"
)

// The generated trees must pass the project's own loader (the reference for the file
// format), both as plain files and read from Git at every kind of revision.
func TestLoaderAcceptsGeneratedTrees(t *testing.T) {
	o := synth.Options{Subjects: 80, Commits: 30, ConsumersPerSubject: 2, Seed: 11, Domains: 6, ProtobufShare: 0.3}
	plain := t.TempDir()
	if _, err := synth.WriteTree(plain, o); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	repo, err := synth.Generate(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	srcs := []contract.Source{contract.NewDirSource(plain)}
	for _, rev := range []string{"main", "main~29", "main~10"} {
		gs, err := contract.NewGitSource(repo, rev)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, gs)
	}
	for _, src := range srcs {
		tree, err := contract.Load(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tree.Diagnostics {
			t.Errorf("%s: %s", src.Describe(), d)
		}
		if len(tree.Subjects) != o.Subjects {
			t.Errorf("%s: %d subjects, want %d", src.Describe(), len(tree.Subjects), o.Subjects)
		}
	}
}
