package gitrepo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// bigBlob writes a loose blob of n zero bytes (it compresses to a few KiB) into a new
// repository and returns the repository's folder and the blob's hash.
func bigBlob(t *testing.T, n int) (string, plumbing.Hash) {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	o := r.Storer.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, err := o.Writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	h, err := r.Storer.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	return dir, h
}

// pack commits the blob, packs the repository and removes the loose copy.
func pack(t *testing.T, dir string, h plumbing.Hash) {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	store := func(v interface {
		Encode(plumbing.EncodedObject) error
	}) plumbing.Hash {
		o := r.Storer.NewEncodedObject()
		if err := v.Encode(o); err != nil {
			t.Fatal(err)
		}
		h, err := r.Storer.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	tree := store(&object.Tree{Entries: []object.TreeEntry{{Name: "big", Mode: filemode.Regular, Hash: h}}})
	sig := object.Signature{Name: "t", Email: "t@example.com"}
	commit := store(&object.Commit{Author: sig, Committer: sig, Message: "big", TreeHash: tree})
	if err := r.Storer.SetReference(plumbing.NewHashReference("refs/heads/master", commit)); err != nil {
		t.Fatal(err)
	}
	if err := r.RepackObjects(&git.RepackConfig{}); err != nil {
		t.Fatal(err)
	}
	// go-git's repack may leave the loose copy; remove it so the pack is read.
	if err := os.Remove(filepath.Join(dir, ".git", "objects", h.String()[:2], h.String()[2:])); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestReadBlobRefusesPastTheLimitFromTheHeader(t *testing.T) {
	const size = 12 << 20
	dir, h := bigBlob(t, size)
	for _, packed := range []bool{false, true} {
		name := "loose"
		if packed {
			name = "packed"
			pack(t, dir, h)
		}
		t.Run(name, func(t *testing.T) {
			r, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got int64
			var readErr error
			n := allocated(func() {
				got, err = BlobSize(r.Storer, h)
				_, readErr = ReadBlob(r.Storer, h, 1<<20)
			})
			if err != nil || got != size {
				t.Fatalf("BlobSize = %d, %v; want %d", got, err, size)
			}
			var tl *TooLargeError
			if !errors.Is(readErr, ErrTooLarge) || !errors.As(readErr, &tl) || tl.Size != size || tl.Limit != 1<<20 {
				t.Fatalf("ReadBlob past the limit: %v", readErr)
			}
			// The object is not inflated to learn its size: the cost is the header's,
			// not proportional to the blob.
			if n > 2<<20 {
				t.Errorf("refusing a %d MiB blob allocated %d KiB; it was inflated", size>>20, n>>10)
			}
			t.Logf("refusing a %d MiB %s blob allocated %d KiB", size>>20, name, n>>10)
		})
	}
}

// The measurement above can fail: go-git's default storage inflates a loose object
// whole when it is asked for it (what BlobObject and ReadBlob do), which is why Open
// sets LargeObjectThreshold.
func TestPlainOpenInflatesLooseObjects(t *testing.T) {
	const size = 12 << 20
	dir, h := bigBlob(t, size)
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := allocated(func() { _, err = r.Storer.EncodedObject(plumbing.BlobObject, h) })
	if err != nil {
		t.Fatal(err)
	}
	if n < size {
		t.Errorf("go-git's default storage allocated only %d KiB for a %d MiB loose object; if it no longer inflates, Open's LargeObjectThreshold may go", n>>10, size>>20)
	}
}

func TestReadBlobWithinTheLimit(t *testing.T) {
	dir, h := bigBlob(t, 3<<20) // over LargeObject: streamed from disk
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := ReadBlob(r.Storer, h, 3<<20)
	if err != nil || len(data) != 3<<20 || !bytes.Equal(data[:16], make([]byte, 16)) {
		t.Fatalf("ReadBlob at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := ReadBlob(r.Storer, plumbing.NewHash("0123456789012345678901234567890123456789"), 10); err == nil {
		t.Error("a missing blob was read")
	}
}

// TestReadSized reads contents shorter than, as long as and longer than announced:
// the slice is exactly as long as its capacity (a tree keeps these bytes), and more
// than the limit is refused with the count seen.
func TestReadSized(t *testing.T) {
	for _, c := range []struct {
		content     string
		size, limit int64
		wantN       int64
		want        string
	}{
		{"abcdef", 6, 10, 6, "abcdef"},
		{"abc", 6, 10, 3, "abc"},             // shrank since its size was read
		{"abcdefghi", 6, 10, 9, "abcdefghi"}, // grew
		{"abcdefghijkl", 6, 10, 11, ""},      // grew past the limit: limit+1 read
	} {
		data, n, err := ReadSized(strings.NewReader(c.content), c.size, c.limit)
		if err != nil || n != c.wantN || string(data) != c.want {
			t.Errorf("ReadSized(%q, %d, %d) = %q, %d, %v; want %q, %d", c.content, c.size, c.limit, data, n, err, c.want, c.wantN)
		}
		if int64(len(c.content)) == c.size && cap(data) != len(data) {
			t.Errorf("ReadSized(%q): capacity %d for %d bytes", c.content, cap(data), len(data))
		}
	}
}
