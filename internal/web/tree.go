// Package web serves the read side of a contract repository over HTTP: the HTML pages
// (Pages: the catalog, a page per subject with its lineage, teams, the calendar,
// sign-offs, lineage and the health report) and the calendar's ICS feeds (Feeds). It
// reads the default branch of a local Git repository (Tree) and reloads when it
// moves.
package web

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/versions"
)

// ErrVersionsPending says that the versions index lent by Tree.Lend is not at the
// commit asked for yet: the pages show no versions for now and ask again.
var ErrVersionsPending = errors.New("the versions index is not ready yet")

// Follower follows the branch for the pages (serve passes the embedded registry,
// registry.Server), so the pages and it always show the same commit.
type Follower interface {
	// Head is the commit it serves (hex).
	Head() string
	// Degraded says why the commit it serves is not the branch's ("" when it is).
	Degraded() string
}

// Lender lends the pages a versions index that another part of the process keeps
// (serve passes the embedded registry, registry.Server).
type Lender interface {
	// WithIndex calls fn with the index and returns true when the index is at
	// head (hex); otherwise it returns false without calling fn.
	WithIndex(head string, fn func(*versions.Index)) bool
}

// Tree keeps the contract tree of a branch, loaded once per commit.
type Tree struct {
	Repo   *git.Repository
	Branch string // "" means HEAD
	// Follow, when set, names the commit to serve instead of resolving Branch, and
	// why it is not the branch's (every page shows it).
	Follow Follower
	// Lend, when set, lends the versions index: WithVersions then never builds one
	// of its own, and while the lender's index is not at head (still indexing), it
	// returns ErrVersionsPending.
	Lend Lender
	// WithoutSchemas loads the tree without reading its schemas (contract.
	// LoadWithoutSchemas): a subject's page then loads that subject alone with its
	// schema. serve sets it: the tree of 10,000 subjects loads in about half the time
	// and holds no schema text or field graph (docs/performance.md).
	WithoutSchemas bool
	// Release, when set, lets the loaded tree go once no one has asked for it in
	// that long; the next Current loads it again. serve sets it: the pages keep of a
	// commit only the catalog's rows, the lineage's producers and a few subjects'
	// folders, so that only the pages that read every subject (teams, calendar,
	// lineage, health) hold the whole tree, and for a while only. At 100,000 subjects
	// the tree without schemas is about 600 MB (docs/performance.md).
	Release time.Duration

	mu   sync.Mutex
	head plumbing.Hash
	tree *contract.Tree
	// lean: tree is ForReport's, not the whole tree.
	lean bool
	// used is when the tree was last asked for; release, the timer that lets it go
	// (armed while a tree is held).
	used    time.Time
	release *time.Timer
	armed   bool
	// ready is the commit whose tree is loaded, read without waiting for a load
	// under mu to finish (Ready).
	ready atomic.Pointer[plumbing.Hash]
	// whole is the commit whose whole tree was loaded last (nil when the last load was
	// ForReport's).
	whole atomic.Pointer[plumbing.Hash]
	seq   map[string]int

	// ixMu guards ix, the versions index, extended in place as the branch moves.
	ixMu sync.Mutex
	ix   *versions.Index
}

// WithVersions calls fn with the versions index of the branch's first-parent history
// up to head, building it on first use and extending it when the branch moves. fn
// must not keep the index: it changes on the next commit.
func (t *Tree) WithVersions(head plumbing.Hash, fn func(*versions.Index)) error {
	if t.Lend != nil {
		if t.Lend.WithIndex(head.String(), fn) {
			return nil
		}
		return ErrVersionsPending
	}
	t.ixMu.Lock()
	defer t.ixMu.Unlock()
	if t.ix == nil || t.ix.HeadHash() != head {
		if t.ix != nil {
			if err := t.ix.Extend(t.Repo, head); err == nil {
				fn(t.ix)
				return nil
			}
			t.ix = nil // rewritten history or a broken extension: index again from scratch
		}
		ix, err := versions.Build(t.Repo, head)
		if err != nil {
			return fmt.Errorf("index the versions up to %s: %w", head.String()[:12], err)
		}
		t.ix = ix
	}
	fn(t.ix)
	return nil
}

// versionsReady reports whether WithVersions has an index at head now without
// building one: always, unless the index is lent and not at head yet.
func (t *Tree) versionsReady(head plumbing.Hash) bool {
	return t.Lend == nil || t.Lend.WithIndex(head.String(), func(*versions.Index) {})
}

// ReadBlob reads a Git blob (a schema version's content) of the repository, refusing
// one over the schema size limit.
func (t *Tree) ReadBlob(h plumbing.Hash) ([]byte, error) {
	t.ixMu.Lock()
	defer t.ixMu.Unlock()
	return gitrepo.ReadBlob(t.Repo.Storer, h, contract.MaxSchemaBytes)
}

// Current returns the tree at the branch's current commit and that commit, loading
// it when the branch has moved since the last call.
func (t *Tree) Current() (*contract.Tree, plumbing.Hash, error) {
	return t.current(false)
}

// ForReport returns a tree at the branch's current commit for the health report: the
// loaded tree when one is held, else, when the pages do not keep the tree
// (Release, WithoutSchemas), one that keeps of each subject what the report reads
// (contract.LoadForReport, as `contractbot report` loads it), which Current replaces
// with the whole tree when a page needs it. At 100,000 subjects the health page's load
// was serve's peak of memory (docs/performance.md).
func (t *Tree) ForReport() (*contract.Tree, plumbing.Hash, error) {
	return t.current(t.Release > 0 && t.WithoutSchemas)
}

// current is Current, or ForReport when lean.
func (t *Tree) current(lean bool) (*contract.Tree, plumbing.Hash, error) {
	head, err := t.resolve()
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tree != nil && head == t.head && (lean || !t.lean) {
		t.used = time.Now()
		return t.tree, head, nil
	}
	src, err := contract.NewGitSource(t.Repo, head.String())
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	var tree *contract.Tree
	if t.WithoutSchemas {
		// Without schemas the tree reads nothing after its load: it need not keep
		// the source and every Git tree it read (contract.Releasable).
		r := contract.NewReleasable(src)
		if lean {
			tree, err = contract.LoadForReport(r)
		} else {
			tree, err = contract.LoadWithoutSchemas(r)
		}
		r.Release()
	} else {
		tree, err = contract.Load(src)
	}
	if err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("load the contract tree at %s: %w", head.String()[:12], err)
	}
	t.head, t.tree, t.lean, t.seq = head, tree, lean, nil
	t.ready.Store(&head)
	if lean {
		t.whole.Store(nil)
	} else {
		t.whole.Store(&head)
	}
	t.used = time.Now()
	if t.Release > 0 && !t.armed {
		t.armed = true
		if t.release == nil {
			t.release = time.AfterFunc(t.Release, t.letGo)
		} else {
			t.release.Reset(t.Release)
		}
	}
	return tree, head, nil
}

// Calendar returns teams.yaml and the calendar at the branch's current commit: the
// loaded tree when one is held, else a load of those files alone, no subject (its
// entries name subjects it did not load). A caller that only needs to know whether a
// window is near (serve's calendar reminders, every --reconcile-every) does not bring
// back the whole tree that Release let go: a minute of CPU at 100,000 subjects.
func (t *Tree) Calendar() (*contract.Tree, error) {
	head, err := t.resolve()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	held := t.tree
	if head != t.head {
		held = nil
	}
	t.mu.Unlock()
	if held != nil {
		return held, nil
	}
	src, err := contract.NewGitSource(t.Repo, head.String())
	if err != nil {
		return nil, err
	}
	cal, err := contract.LoadSubjectsIn(src, nil, contract.MapIndex(map[string]string{}))
	if err != nil {
		return nil, fmt.Errorf("load the calendar at %s: %w", head.String()[:12], err)
	}
	return cal, nil
}

// letGo drops the loaded tree when it has not been asked for in Release, else looks
// again when it would be. The memory goes back to the system at once: left to the
// collector's pace, an idle serve kept the tree's pages (hundreds of MB at 100,000
// subjects) until its next forced collection and the scavenger after it. The pages
// of the Git packs loading it mapped leave serve's resident set too (they stay in
// the page cache).
func (t *Tree) letGo() {
	t.mu.Lock()
	if idle := time.Since(t.used); t.tree != nil && idle < t.Release {
		t.release.Reset(t.Release - idle)
		t.mu.Unlock()
		return
	}
	held := t.tree != nil
	t.tree, t.armed = nil, false
	t.mu.Unlock()
	if held {
		debug.FreeOSMemory()
		gitrepo.DropMappedPages()
	}
}

// Sequences returns, for each calendar file of the tree at head, how many times its
// content changed along the branch's first-parent history: the iCalendar SEQUENCE,
// which must grow each time an event changes.
func (t *Tree) Sequences(tree *contract.Tree, head plumbing.Hash) map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seq != nil && head == t.head {
		return t.seq
	}
	paths := []string{contract.FreezesFile}
	for _, e := range tree.Entries {
		paths = append(paths, e.File)
	}
	seq := map[string]int{}
	found, err := versions.PathHistory(t.Repo, head, paths)
	if err != nil {
		return seq // no history: SEQUENCE 0, as before
	}
	for p, contents := range found {
		seq[p] = len(contents) - 1
	}
	if head == t.head {
		t.seq = seq
	}
	return seq
}

func (t *Tree) resolve() (plumbing.Hash, error) {
	if t.Follow != nil {
		return plumbing.NewHash(t.Follow.Head()), nil
	}
	return gitrepo.ResolveBranch(t.Repo, t.Branch)
}

// degraded says why the commit served is not the branch's ("" when it is, or
// without a Follower).
func (t *Tree) degraded() string {
	if t.Follow == nil {
		return ""
	}
	return t.Follow.Degraded()
}

// BranchName is the branch the pages say they show: Branch, short ("origin/HEAD").
func (t *Tree) BranchName() string {
	if t.Branch == "" {
		return "HEAD"
	}
	return plumbing.ReferenceName(t.Branch).Short()
}

// holdsWhole reports whether the whole tree at head was loaded (not ForReport's),
// without waiting for a load in progress.
func (t *Tree) holdsWhole(head plumbing.Hash) bool {
	h := t.whole.Load()
	return h != nil && *h == head
}

// Ready reports whether the tree at head is loaded, without waiting for a load in
// progress.
func (t *Tree) Ready(head plumbing.Hash) bool {
	h := t.ready.Load()
	return h != nil && *h == head
}
