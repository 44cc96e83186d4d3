// Package synth generates synthetic contract repositories for tests and benchmarks: a
// tree that validates under the agreed file format (docs/contract-format.md; teams,
// subjects in Avro and Protobuf, consumers with field-level reads and multi-hop
// lineage, calendar entries and freezes) and a history of commits on branch main in
// which later commits edit a few schemas, consumers or contracts each.
//
// Generation is deterministic for a seed. It writes Git objects directly (no worktree
// operations): objects are built in memory, unchanged subtrees are reused between
// commits, and everything is written as one packfile at the end, so 10,000 subjects and
// 5,000 commits take seconds, not minutes.
package synth

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Options says what to generate. Zero values take the defaults noted.
type Options struct {
	Subjects            int       // contract folders (default 100); includes the shared common-types subject when ProtobufShare > 0
	Commits             int       // commits on main (default 1: the initial tree only)
	ConsumersPerSubject int       // consumer files per subject (default 2; negative: none)
	Seed                int64     // random seed: same seed and options, same repository
	Domains             int       // domain folders (default Subjects/50, at least 1, at most 1000)
	ProtobufShare       float64   // share of subjects in Protobuf, 0..1 (default 0: all Avro)
	Checkout            bool      // also write the final tree (and a matching Git index) into dir
	Start               time.Time // time of the first commit (default 2026-01-05T09:00:00Z)
}

// Stats says what was generated.
type Stats struct {
	Subjects      int           // contract folders
	Avro          int           // Avro subjects
	Protobuf      int           // Protobuf subjects (including the common-types subject)
	Consumers     int           // consumer files
	LineageEdges  int           // consumer `produces` entries
	Teams         int           // teams in teams.yaml
	CalendarFiles int           // calendar entries (freezes.yaml not counted)
	Commits       int           // commits on main
	Objects       int           // Git objects written
	Head          plumbing.Hash // the commit main points at (zero for WriteTree)
	Files         int           // files in the final tree
	Elapsed       time.Duration // wall time
}

const (
	// Branch is the branch Generate creates.
	Branch = "main"
	// ChainLength is the length of the lineage chains: consumer 0 of a subject at chain
	// position p < ChainLength-1 produces the next subject of the chain.
	ChainLength = 4
)

func (o Options) withDefaults() Options {
	if o.Subjects <= 0 {
		o.Subjects = 100
	}
	if o.Commits <= 0 {
		o.Commits = 1
	}
	if o.ConsumersPerSubject == 0 {
		o.ConsumersPerSubject = 2
	}
	if o.ConsumersPerSubject < 0 {
		o.ConsumersPerSubject = 0
	}
	if o.Domains <= 0 {
		o.Domains = o.Subjects / 50
	}
	o.Domains = max(1, min(o.Domains, 1000, o.Subjects))
	if o.ProtobufShare < 0 {
		o.ProtobufShare = 0
	}
	if o.ProtobufShare > 1 {
		o.ProtobufShare = 1
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	}
	return o
}

func (g *gen) run() error {
	g.plan()
	g.initialTree()
	if err := g.commit(fmt.Sprintf("synth: %d subjects, %d consumers", g.stats.Subjects, g.stats.Consumers)); err != nil {
		return err
	}
	for i := 1; i < g.o.Commits; i++ {
		n := 1 + g.rng.IntN(3)
		msgs := make([]string, 0, n)
		for j := 0; j < n; j++ {
			msgs = append(msgs, g.edit())
		}
		if err := g.commit(fmt.Sprintf("synth: %d edit(s)\n\n%s", n, strings.Join(msgs, "\n"))); err != nil {
			return err
		}
	}
	g.stats.Files = g.root.countFiles()
	return nil
}

// Generate creates a Git repository in dir (which must not hold one yet) with the
// generated history on branch main, HEAD pointing at it. With opts.Checkout the final
// tree is also written to dir with a matching index, as after a clone.
func Generate(dir string, opts Options) (*git.Repository, error) {
	repo, _, err := GenerateStats(dir, opts)
	return repo, err
}

// GenerateStats is Generate that also reports what it made.
func GenerateStats(dir string, opts Options) (*git.Repository, Stats, error) {
	t0 := time.Now()
	g := newGen(opts.withDefaults(), true)
	if err := g.run(); err != nil {
		return nil, Stats{}, err
	}
	if _, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(Branch)}}); err != nil {
		return nil, Stats{}, err
	}
	if err := writePack(filepath.Join(dir, ".git", "objects", "pack"), g.store.objs); err != nil {
		return nil, Stats{}, err
	}
	// reopen so the storage sees the new pack
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, Stats{}, err
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(Branch), g.head)); err != nil {
		return nil, Stats{}, err
	}
	if g.o.Checkout {
		if err := g.root.writeFiles(dir); err != nil {
			return nil, Stats{}, err
		}
		if err := repo.Storer.SetIndex(g.index(dir)); err != nil {
			return nil, Stats{}, err
		}
	}
	g.stats.Commits = g.commits
	g.stats.Objects = len(g.store.objs)
	g.stats.Head = g.head
	g.stats.Elapsed = time.Since(t0)
	return repo, g.stats, nil
}

// WriteTree writes the tree Generate would check out (after opts.Commits commits'
// edits) into dir as plain files, without Git.
func WriteTree(dir string, opts Options) (Stats, error) {
	t0 := time.Now()
	g := newGen(opts.withDefaults(), false)
	if err := g.run(); err != nil {
		return Stats{}, err
	}
	if err := g.root.writeFiles(dir); err != nil {
		return Stats{}, err
	}
	g.stats.Commits = g.commits
	g.stats.Elapsed = time.Since(t0)
	return g.stats, nil
}
