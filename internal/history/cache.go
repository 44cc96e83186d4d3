package history

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/contractbot/contractbot/internal/atomicfile"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/versions"
)

// CacheFormat is the layout of an audit cache file; a file of another layout is
// ignored and rewritten. Raise it whenever Audited or the file changes shape.
const CacheFormat = 1

// Cache keeps the audit of one branch of one repository in a file under Dir, so that
// the next audit checks only the versions made since (AuditFrom) instead of every
// version of the history.
//
// A cache file is used only when it is of CacheFormat, names the same repository,
// branch and Build, and its head is the head audited now or one of its first-parent
// ancestors; anything else is logged and everything is audited again. Files are
// replaced atomically.
type Cache struct {
	// Dir is the folder of the cache files (created when missing).
	Dir string
	// Repo is the repository's path and Branch the branch audited: together they
	// name the file.
	Repo, Branch string
	// Build identifies the program that audits: another build's engines may judge
	// versions differently, so its audit is not used.
	Build string
	// Log receives one line per cache file ignored and per save (nil: slog.Default()).
	Log *slog.Logger
}

// cacheFile is the content of a cache file.
type cacheFile struct {
	Format int       `json:"format"`
	Repo   string    `json:"repo"`
	Branch string    `json:"branch"`
	Build  string    `json:"build"`
	Saved  time.Time `json:"saved"`
	Audit  *Audited  `json:"audit"`
}

// Path is the file that holds the audit of c.Repo's c.Branch.
func (c *Cache) Path() string {
	sum := sha256.Sum256([]byte(c.absRepo() + "\x00" + c.Branch))
	return filepath.Join(c.Dir, fmt.Sprintf("audit-%x.json", sum[:8]))
}

func (c *Cache) absRepo() string {
	if abs, err := filepath.Abs(c.Repo); err == nil {
		return abs
	}
	return c.Repo
}

func (c *Cache) log() *slog.Logger {
	if c.Log == nil {
		return slog.Default()
	}
	return c.Log
}

// Audit returns the breaks of ix: the cached audit extended by the versions indexed
// since it was saved, when the cache holds a usable one, else the audit of every
// version. It saves the audit when it is not the cached one. restored says whether
// the cache was used. A failure to save is logged, not returned.
func (c *Cache) Audit(s storer.EncodedObjectStorer, ix *versions.Index) (bs []Break, restored bool, err error) {
	prev, err := c.Load(s, ix.HeadHash())
	if err != nil {
		c.log().Warn("audit cache: ignoring the cached audit; auditing every version", "file", c.Path(), "err", err)
		prev = nil
	}
	a, err := AuditFrom(s, ix, prev)
	if err != nil {
		return nil, false, err
	}
	restored = prev.extends(a)
	if prev != nil && !restored {
		c.log().Warn("audit cache: the cached audit counts versions the index does not have; audited every version", "file", c.Path())
	}
	if !restored || prev.Head != a.Head {
		if err := c.Save(a); err != nil {
			c.log().Warn("audit cache: could not save the audit; the next run audits again", "file", c.Path(), "err", err)
		}
	}
	return a.Breaks, restored, nil
}

// Load reads the cached audit: nil, nil when there is no cache file; an error that
// says why when the file cannot be used (another layout, repository, branch or build,
// or a head that is not head or a first-parent ancestor of it).
func (c *Cache) Load(s storer.EncodedObjectStorer, head plumbing.Hash) (*Audited, error) {
	data, err := os.ReadFile(c.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the audit cache: %w", err)
	}
	var f cacheFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("the audit cache file does not decode: %w", err)
	}
	switch {
	case f.Format != CacheFormat:
		return nil, fmt.Errorf("the audit cache file has layout %d, this build reads %d", f.Format, CacheFormat)
	case f.Repo != c.absRepo() || f.Branch != c.Branch:
		return nil, fmt.Errorf("the audit cache file is of %s %s, not of %s %s", f.Repo, f.Branch, c.absRepo(), c.Branch)
	case f.Build != c.Build:
		return nil, fmt.Errorf("the audit cache file was written by build %s, this is build %s", f.Build, c.Build)
	case f.Audit == nil || f.Audit.Head == "":
		return nil, errors.New("the audit cache file holds no audit")
	}
	ok, err := gitrepo.IsFirstParentAncestor(s, plumbing.NewHash(f.Audit.Head), head)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("the cached audit's head %s is not on the first-parent history of %s", f.Audit.Head, head)
	}
	return f.Audit, nil
}

// Save writes the audit to the cache file atomically.
func (c *Cache) Save(a *Audited) error {
	data, err := json.Marshal(cacheFile{Format: CacheFormat, Repo: c.absRepo(), Branch: c.Branch, Build: c.Build, Saved: time.Now().UTC(), Audit: a})
	if err != nil {
		return fmt.Errorf("encode the audit cache: %w", err)
	}
	if err := atomicfile.Write(c.Path(), data); err != nil {
		return fmt.Errorf("write the audit cache %s: %w", c.Path(), err)
	}
	c.log().Info("audit cache: saved the audit", "file", c.Path(), "head", a.Head, "breaks", len(a.Breaks), "bytes", len(data))
	return nil
}
