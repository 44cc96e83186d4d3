package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/outbound"
)

// GitCache keeps one bare clone per repository on local disk and brings it up to date
// with incremental fetches, instead of a clone per event.
type GitCache struct {
	Dir string
	// FetchTimeout bounds one fetch (DefaultFetchTimeout when 0): a remote that
	// stalls fails the evaluation, which the queue retries, instead of holding it.
	FetchTimeout time.Duration

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// DefaultFetchTimeout bounds a fetch when GitCache.FetchTimeout is 0.
const DefaultFetchTimeout = 5 * time.Minute

// errFetchTimeout is the cause of a fetch cut off by its timeout.
var errFetchTimeout = errors.New("no answer in time")

func (c *GitCache) lock(key string) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.locks == nil {
		c.locks = map[string]*sync.Mutex{}
	}
	if c.locks[key] == nil {
		c.locks[key] = &sync.Mutex{}
	}
	return c.locks[key]
}

// Fetch makes sure the commits want are in the local clone of owner/repo, fetching
// the branches and the pull request heads from url when one is missing. The caller
// closes the returned repository.
func (c *GitCache) Fetch(ctx context.Context, owner, repo, url string, auth transport.AuthMethod, want ...plumbing.Hash) (*gitrepo.Repo, error) {
	key := owner + "/" + repo
	l := c.lock(key)
	l.Lock()
	defer l.Unlock()
	dir := filepath.Join(c.Dir, owner, repo+".git")
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); errors.Is(err, os.ErrNotExist) {
		r, err := git.PlainInit(dir, true)
		if err != nil {
			return nil, fmt.Errorf("create the clone of %s: %w", key, err)
		}
		if _, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
			return nil, fmt.Errorf("add the remote of %s: %w", key, err)
		}
	}
	r, err := gitrepo.Open(dir)
	if err != nil {
		return nil, err
	}
	if missing(r.Repository, want) {
		timeout := cmp.Or(c.FetchTimeout, DefaultFetchTimeout)
		fctx, cancel := context.WithTimeoutCause(ctx, timeout, errFetchTimeout)
		err := r.FetchContext(fctx, &git.FetchOptions{
			RemoteName: "origin", RemoteURL: url, Auth: auth, Force: true, Tags: git.NoTags,
			RefSpecs: []config.RefSpec{
				"+refs/heads/*:refs/remotes/origin/*",
				"+refs/pull/*/head:refs/remotes/origin/pull/*",
				"+refs/pull/*/merge:refs/remotes/origin/pull-merge/*", // GitHub's test merges (internal/bot/merge.go)
			},
		})
		cut := errors.Is(context.Cause(fctx), errFetchTimeout) && ctx.Err() == nil
		cancel()
		if cut {
			r.Close()
			return nil, fmt.Errorf("git fetch %s from %s: %w after %s", key, outbound.RedactString(url), errFetchTimeout, timeout)
		}
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			r.Close()
			return nil, fmt.Errorf("fetch %s: %w", key, err)
		}
		if missing(r.Repository, want) {
			r.Close()
			return nil, fmt.Errorf("fetch %s: commits %s are not on the remote's branches or pull requests", key, shortHashes(want))
		}
	}
	return r, nil
}

func missing(r *git.Repository, want []plumbing.Hash) bool {
	for _, h := range want {
		if _, err := r.CommitObject(h); err != nil {
			return true
		}
	}
	return false
}

func shortHashes(hs []plumbing.Hash) string {
	var s []string
	for _, h := range hs {
		s = append(s, h.String()[:12])
	}
	return strings.Join(s, ", ")
}
