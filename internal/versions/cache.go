package versions

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/atomicfile"
	"github.com/contractbot/contractbot/internal/gitrepo"
)

// CacheFormat is the layout of a cache file. A file of another layout is ignored and
// rewritten; raise it whenever Index or the file's header changes shape or meaning.
//
// 2: versions carry their references, and ids are keyed by form and references.
// 3: ids are keyed by data contract too; a version records whether it has rules, and
// one that removes the latest's rules is a version of its own (EmptiedRuleSet).
const CacheFormat = 3

// cacheMagic opens every cache file, so a file that is not one is told at once.
const cacheMagic = "contractbot versions index\n"

// Cache keeps the versions index of one branch of one repository in a file under Dir,
// so that a process that starts again restores it and indexes only the commits made
// since, instead of the whole history (docs/performance.md, "Versions index").
//
// A cache file is never trusted blindly: it must be of CacheFormat, name the same
// repository path and branch, pass its checksum and the index's own consistency
// checks, and its head must be a commit of the repository whose tree it recorded and a
// first-parent ancestor of (or equal to) the head asked for. Anything else is logged
// and the index is built again. Files are written atomically (a temporary file, then
// a rename), so a reader never sees half a file.
type Cache struct {
	// Dir is the folder of the cache files (created when missing).
	Dir string
	// Repo is the repository's path and Branch the reference indexed (a full name:
	// refs/remotes/origin/main): together they name the file.
	Repo, Branch string
	// Log receives one line per cache file ignored and per save (nil: slog.Default()).
	Log *slog.Logger
}

// cacheHeader is what a cache file says of itself, before the index.
type cacheHeader struct {
	Format       int
	Repo, Branch string
	Head         string
	Saved        time.Time
}

// Path is the file that holds the index of c.Repo's c.Branch.
func (c *Cache) Path() string {
	sum := sha256.Sum256([]byte(c.absRepo() + "\x00" + c.Branch))
	return filepath.Join(c.Dir, fmt.Sprintf("versions-%x.idx", sum[:8]))
}

func (c *Cache) log() *slog.Logger {
	if c.Log == nil {
		return slog.Default()
	}
	return c.Log
}

// Index returns the versions index of the first-parent history ending at head: the
// cached one, extended by the commits made since it was saved, when the cache holds
// a usable one; else one built from the whole history. It saves the index when it is
// not the cached one. restored says whether the cache was used. A failure to save is
// logged, not returned: the index is good without its copy.
func (c *Cache) Index(repo *git.Repository, head plumbing.Hash) (ix *Index, restored bool, err error) {
	ix, err = c.Load(repo, head)
	if err != nil {
		c.log().Warn("versions cache: ignoring the cached index; indexing the whole history", "file", c.Path(), "err", err)
		ix = nil
	}
	if ix != nil {
		cached := ix.Head
		switch err := ix.Extend(repo, head); {
		case err == nil:
			if ix.Head != cached {
				c.save(ix)
			}
			return ix, true, nil
		case errors.Is(err, ErrHistoryRewritten):
			c.log().Warn("versions cache: the cached head is not on the branch's first-parent history any more; indexing the whole history",
				"file", c.Path(), "cached_head", cached, "head", head.String())
		default:
			c.log().Warn("versions cache: extending the cached index failed; indexing the whole history", "file", c.Path(), "err", err)
		}
	}
	if ix, err = Build(repo, head); err != nil {
		return nil, false, err
	}
	c.save(ix)
	ix.share() // as a restored index's: its strings in one block, for the process that keeps it
	return ix, false, nil
}

func (c *Cache) save(ix *Index) {
	if err := c.Save(ix); err != nil {
		c.log().Warn("versions cache: could not save the index; the next start indexes again", "file", c.Path(), "err", err)
	}
}

// Load reads the cached index and checks it against repo: nil, nil when there is no
// cache file; an error that says why when there is one that cannot be used (another
// layout, repository or branch, a bad checksum, an inconsistent index, a head that is
// not in repo or not a first-parent ancestor of head). The index is not extended.
func (c *Cache) Load(repo *git.Repository, head plumbing.Hash) (*Index, error) {
	data, err := os.ReadFile(c.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the versions cache: %w", err)
	}
	hdr, ix, err := decodeCache(data)
	if err != nil {
		return nil, err
	}
	if hdr.Repo != c.absRepo() || hdr.Branch != c.Branch {
		return nil, fmt.Errorf("the cache file is of %s %s, not of %s %s", hdr.Repo, hdr.Branch, c.absRepo(), c.Branch)
	}
	if err := ix.check(); err != nil {
		return nil, fmt.Errorf("the cached index is inconsistent: %w", err)
	}
	if hdr.Head != ix.Head {
		return nil, fmt.Errorf("the cache file's header names commit %s but its index is at %s", hdr.Head, ix.Head)
	}
	cm, err := object.GetCommit(repo.Storer, ix.HeadHash())
	if err != nil {
		return nil, fmt.Errorf("the cached head %s is not a commit of this repository: %w", ix.Head, err)
	}
	if cm.TreeHash.String() != ix.HeadTree {
		return nil, fmt.Errorf("the cached head %s has tree %s in this repository, not %s", ix.Head, cm.TreeHash, ix.HeadTree)
	}
	if ok, err := gitrepo.IsFirstParentAncestor(repo.Storer, ix.HeadHash(), head); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w (cached head %s, head %s)", ErrHistoryRewritten, ix.Head, head)
	}
	return ix, nil
}

func (c *Cache) absRepo() string {
	if abs, err := filepath.Abs(c.Repo); err == nil {
		return abs
	}
	return c.Repo
}

// Save writes ix to the cache file atomically (internal/atomicfile: a temporary file
// in Dir, synced, then renamed over the old one).
func (c *Cache) Save(ix *Index) error {
	data, err := encodeCache(cacheHeader{Format: CacheFormat, Repo: c.absRepo(), Branch: c.Branch, Head: ix.Head, Saved: time.Now().UTC()}, ix)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(c.Path(), data); err != nil {
		return fmt.Errorf("write the versions cache %s: %w", c.Path(), err)
	}
	c.log().Info("versions cache: saved the index", "file", c.Path(), "head", ix.Head, "commits", ix.Commits, "bytes", len(data))
	return nil
}

// encodeCache lays out a cache file: the magic line, the header and the index (gob),
// then the SHA-256 of everything before it.
func encodeCache(hdr cacheHeader, ix *Index) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(cacheMagic)
	w := bufio.NewWriterSize(&buf, 1<<16)
	enc := gob.NewEncoder(w)
	if err := enc.Encode(hdr); err != nil {
		return nil, fmt.Errorf("encode the versions cache header: %w", err)
	}
	if err := enc.Encode(ix); err != nil {
		return nil, fmt.Errorf("encode the versions index: %w", err)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes(), nil
}

// decodeCache reads what encodeCache wrote, refusing another layout or a file whose
// checksum does not match.
func decodeCache(data []byte) (cacheHeader, *Index, error) {
	var hdr cacheHeader
	if len(data) < len(cacheMagic)+sha256.Size || string(data[:len(cacheMagic)]) != cacheMagic {
		return hdr, nil, errors.New("the file is not a versions cache")
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return hdr, nil, errors.New("the cache file is corrupt (its checksum does not match)")
	}
	dec := gob.NewDecoder(bytes.NewReader(body[len(cacheMagic):]))
	if err := dec.Decode(&hdr); err != nil {
		return hdr, nil, fmt.Errorf("decode the cache header: %w", err)
	}
	if hdr.Format != CacheFormat {
		return hdr, nil, fmt.Errorf("the cache file has layout %d, this build reads %d", hdr.Format, CacheFormat)
	}
	ix := New()
	if err := dec.Decode(ix); err != nil {
		return hdr, nil, fmt.Errorf("decode the cached index: %w", err)
	}
	ix.ensureMaps()
	ix.share()
	return hdr, ix, nil
}
