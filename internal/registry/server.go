package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/guard"
	"github.com/contractbot/contractbot/internal/versions"
)

// Source is the Git side of the embedded registry: a repository and the branch whose
// first-parent history it serves.
type Source struct {
	Repo *git.Repository
	// Branch is the branch followed: a short name ("main") or a full reference name
	// ("refs/remotes/origin/main"). Empty means HEAD.
	Branch string
	// Logger receives the registry's state changes (nil: slog.Default()): one error
	// per distinct cause of degradation, not one per failed refresh.
	Logger *slog.Logger
	// OnDegraded, when set, is called once per distinct cause of degradation (and
	// branch head) with the registry's Status: the place to raise an alert.
	OnDegraded func(Status)
	// Cache, when set, keeps the versions index on disk: the first index is restored
	// from it and extended by the commits made since (versions.Cache), and it is saved
	// again at most every CacheEvery (default a minute) as the branch moves.
	Cache      *versions.Cache
	CacheEvery time.Duration
}

// Server is the embedded read-only registry: an http.Handler answering the read side
// of the Confluent Schema Registry REST API from the versions index of a Git
// repository. Requests read an immutable snapshot through an atomic pointer, so any
// number of them run at once, also while Refresh builds the next snapshot.
type Server struct {
	src Source
	mux *http.ServeMux
	log *slog.Logger

	snap atomic.Pointer[snapshot]

	health *health

	gitMu sync.Mutex // serialises Git object reads (go-git storage is not safe for concurrent use)
	// trees keeps the trees decoded while a snapshot is built (findEntry); guarded
	// by gitMu, nil otherwise.
	trees map[plumbing.Hash]*object.Tree

	mu sync.Mutex // one refresh at a time; guards ix and b
	ix *versions.Index
	b  builder
	// ixMu lets WithIndex read ix while a refresh builds a snapshot from it: Extend
	// holds it for writing, WithIndex for reading; indexed is set once ix holds a
	// first index, before which WithIndex does not wait.
	ixMu     sync.RWMutex
	indexed  atomic.Bool
	lastSave time.Time
	// starting is what the registry says while it builds its first snapshot (Start);
	// begun is set once its first index may start (Follow waits for it).
	starting atomic.Pointer[startState]
	begun    atomic.Bool
	// ready is closed once the first snapshot is served (Ready).
	ready     chan struct{}
	readyOnce sync.Once
}

// startState is the registry before its first snapshot: the commit it indexes, since
// when, and the last failure ("" while none).
type startState struct {
	head  string
	since time.Time
	err   string
}

// NewServer indexes the branch of src and returns the registry serving it.
func NewServer(src Source) (*Server, error) {
	s := newServer(src)
	s.begun.Store(true)
	if _, err := s.Refresh(); err != nil {
		return nil, err
	}
	return s, nil
}

// Start returns the registry at once and indexes the branch in the background, once
// after is closed (nil: at once; serve lets the first catalog page be made first):
// until the first snapshot is ready, Head names the commit being indexed, every API
// request is answered 503 in Confluent's error shape and NotReady says why. It fails
// only when the branch cannot be resolved. A failed first index is retried by Follow.
func Start(src Source, after <-chan struct{}) (*Server, error) {
	s := newServer(src)
	head, err := s.resolve()
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", s.branchName(), err)
	}
	s.starting.Store(&startState{head: head.String(), since: time.Now()})
	go func() {
		if after != nil {
			<-after
		}
		s.begun.Store(true)
		_ = guard.Do(s.log, "embedded registry: index the branch", func() error {
			if _, err := s.Refresh(); err != nil {
				s.log.Error("embedded registry: indexing the branch failed; retrying", "branch", s.branchName(), "err", err)
			}
			return nil
		})
	}()
	return s, nil
}

func newServer(src Source) *Server {
	s := &Server{src: src, log: src.Logger, ix: versions.New(), health: newHealth(), ready: make(chan struct{})}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.b.contractAt = func(v versions.Version) ([]byte, error) {
		return s.readAt(v.Commit, path.Dir(v.Path)+"/"+contract.ContractFile)
	}
	if src.Cache != nil {
		s.b.contractsFile, s.b.log = strings.TrimSuffix(src.Cache.Path(), ".idx")+".contracts.json", s.log
	}
	s.routes()
	return s
}

// WithIndex calls fn with the registry's versions index and returns true when the index
// is at head (a commit as Head spells it); false, without calling fn, when it is at
// another commit or the first index is not built yet (it does not wait for that). fn
// must not keep the index: the next refresh extends it.
func (s *Server) WithIndex(head string, fn func(*versions.Index)) bool {
	if !s.indexed.Load() {
		return false
	}
	s.ixMu.RLock()
	defer s.ixMu.RUnlock()
	if s.ix.Head != head {
		return false
	}
	fn(s.ix)
	return true
}

// Head returns the commit the registry serves (before the first snapshot of Start,
// the commit it indexes).
func (s *Server) Head() string {
	if snap := s.snap.Load(); snap != nil {
		return snap.head
	}
	return s.starting.Load().head
}

// NotReady returns "" once the registry serves, else a sentence that starts with
// "indexing" and says which commit it indexes, for how long, and the last failure.
func (s *Server) NotReady() string {
	if s.snap.Load() != nil {
		return ""
	}
	st := s.starting.Load()
	msg := fmt.Sprintf("indexing: the embedded registry is indexing the history of %s up to %.12s (for %s)",
		plumbing.ReferenceName(s.branchName()).Short(), st.head, time.Since(st.since).Round(time.Second))
	if st.err != "" {
		msg += "; the last attempt failed: " + st.err
	}
	return msg
}

// Refresh extends the index to the branch's current commit and swaps in a new snapshot;
// it reports whether the served commit changed. The bot calls it on a push event;
// Follow calls it periodically. A rewritten branch (versions.ErrHistoryRewritten) is
// refused: the registry keeps serving the last good snapshot and says it is degraded
// (Status, Degraded, the metrics) until a refresh succeeds.
func (s *Server) Refresh() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	head, changed, err := s.refresh()
	if s.snap.Load() != nil {
		s.record(head, err)
	} else if st := s.starting.Load(); st != nil && err != nil {
		s.starting.Store(&startState{head: st.head, since: st.since, err: err.Error()})
	}
	if err == nil && changed {
		s.saveCache()
	}
	return changed, err
}

// saveCache writes the index to src.Cache when it is due (at most every CacheEvery).
func (s *Server) saveCache() {
	every := s.src.CacheEvery
	if every == 0 {
		every = time.Minute
	}
	if s.src.Cache == nil || time.Since(s.lastSave) < every {
		return
	}
	s.lastSave = time.Now()
	if err := s.src.Cache.Save(s.ix); err != nil {
		s.log.Warn("embedded registry: could not save the versions index; a restart indexes the history again", "err", err)
	}
}

// refresh is Refresh without the record; head is the branch's commit (zero when it
// cannot be resolved).
func (s *Server) refresh() (plumbing.Hash, bool, error) {
	head, err := s.resolve()
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	changed, err := s.extendTo(head)
	return head, changed, err
}

func (s *Server) extendTo(head plumbing.Hash) (bool, error) {
	if s.snap.Load() != nil && head.String() == s.ix.Head {
		return false, nil
	}
	s.gitMu.Lock()
	err := s.extendIndex(head)
	s.gitMu.Unlock()
	if err != nil {
		return false, fmt.Errorf("index %s at %s: %w", s.branchName(), head, err)
	}
	s.gitMu.Lock()
	s.trees = map[plumbing.Hash]*object.Tree{}
	s.gitMu.Unlock()
	snap, err := s.b.build(s.ix, func(v versions.Version) ([]byte, error) {
		s.gitMu.Lock()
		defer s.gitMu.Unlock()
		return s.ix.Schema(s.src.Repo, v)
	})
	s.gitMu.Lock()
	s.trees = nil
	s.gitMu.Unlock()
	if err != nil {
		return false, fmt.Errorf("read schemas of %s at %s: %w", s.branchName(), head, err)
	}
	s.snap.Store(snap)
	s.readyOnce.Do(func() { close(s.ready) })
	return true, nil
}

// Ready is closed once the registry serves its first snapshot (NotReady is "").
func (s *Server) Ready() <-chan struct{} { return s.ready }

// extendIndex brings the index to head: the first time from src.Cache when set (which
// saves it), else by Extend. The caller holds mu and gitMu.
func (s *Server) extendIndex(head plumbing.Hash) error {
	s.ixMu.Lock()
	defer s.ixMu.Unlock()
	defer func() { s.indexed.Store(s.ix.Head != "") }()
	if s.ix.Head == "" && s.src.Cache != nil {
		ix, restored, err := s.src.Cache.Index(s.src.Repo, head)
		if err != nil {
			return err
		}
		s.ix, s.lastSave = ix, time.Now()
		s.log.Info("embedded registry: versions index ready", "from_cache", restored, "commits", ix.Commits, "head", ix.Head)
		return nil
	}
	return s.ix.Extend(s.src.Repo, head)
}

// Follow calls Refresh every interval until ctx ends; a new commit is served within
// one interval of reaching the branch. A failure is logged once per distinct cause
// (Status says the rest).
func (s *Server) Follow(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if !s.begun.Load() {
				continue // Start's first index has not begun
			}
			// Failures are recorded by Refresh: one log line per distinct cause. A
			// panic (a commit no one foresaw) loses this round only.
			_ = guard.Do(s.log, "embedded registry: follow the branch", func() error {
				if changed, err := s.Refresh(); err == nil && changed {
					s.log.Info("embedded registry: serving a new commit", "branch", s.branchName(), "head", s.Head())
				}
				return nil
			})
		}
	}
}

func (s *Server) branchName() string {
	if s.src.Branch == "" {
		return "HEAD"
	}
	return s.src.Branch
}

// resolve finds the commit the branch points at.
func (s *Server) resolve() (plumbing.Hash, error) {
	s.gitMu.Lock()
	defer s.gitMu.Unlock()
	return gitrepo.ResolveBranch(s.src.Repo, s.src.Branch)
}

// readAt reads a file of the repository at a commit (a version's contract.yaml, a
// Protobuf import).
func (s *Server) readAt(commit, path string) ([]byte, error) {
	s.gitMu.Lock()
	defer s.gitMu.Unlock()
	c, err := object.GetCommit(s.src.Repo.Storer, plumbing.NewHash(commit))
	if err != nil {
		return nil, err
	}
	e, err := s.findEntry(c.TreeHash, path)
	if err != nil || !e.Mode.IsFile() {
		if err == nil || errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, fmt.Errorf("%s not found at %.12s: %w", path, commit, object.ErrFileNotFound)
		}
		return nil, err
	}
	return gitrepo.ReadBlob(s.src.Repo.Storer, e.Hash, contract.MaxSchemaBytes)
}

// findEntry finds path in the tree root, one folder at a time. While a snapshot is
// built (trees is set) each tree is decoded once: the versions of one commit, and
// the commits that changed one folder, share the rest of their trees. The caller
// holds gitMu.
func (s *Server) findEntry(root plumbing.Hash, path string) (*object.TreeEntry, error) {
	t, err := s.tree(root, true)
	for depth, rest := 1, path; err == nil; depth++ {
		name, more, found := strings.Cut(rest, "/")
		var e *object.TreeEntry
		if e, err = t.FindEntry(name); err != nil || !found {
			return e, err
		}
		if e.Mode != filemode.Dir {
			return nil, object.ErrDirectoryNotFound
		}
		t, err = s.tree(e.Hash, depth < sharedDepth)
		rest = more
	}
	return nil, err
}

// Trees nearer the root than sharedDepth (the root, contracts/, a domain's folder)
// are kept while a snapshot is built, at most maxTrees of them: a subject's own
// folder is read once.
const (
	sharedDepth = 3
	maxTrees    = 512
)

func (s *Server) tree(h plumbing.Hash, keep bool) (*object.Tree, error) {
	if t := s.trees[h]; t != nil {
		return t, nil
	}
	t, err := object.GetTree(s.src.Repo.Storer, h)
	if err == nil && keep && s.trees != nil {
		if len(s.trees) >= maxTrees {
			clear(s.trees)
		}
		s.trees[h] = t
	}
	return t, err
}

// CommitHeader names, on every response, the commit the registry served when the
// request arrived.
const CommitHeader = "X-Contractbot-Commit"

// ServeHTTP answers one registry request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/subjects/"); ok && s.hot(w, r, rest) {
		return
	}
	w.Header().Set(CommitHeader, s.Head())
	if reason := s.NotReady(); reason != "" {
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, CodeNotReady, "The registry is not ready yet ("+reason+"). Retry in a few seconds.")
		return
	}
	s.mux.ServeHTTP(w, r)
}
