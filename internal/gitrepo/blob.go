package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ErrTooLarge is returned (wrapped in a *TooLargeError) for a blob over the limit a
// reader was asked to honour.
var ErrTooLarge = errors.New("file too large")

// TooLargeError is a blob refused because of its size, learnt from the object's
// header without inflating it.
type TooLargeError struct {
	Hash  plumbing.Hash
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("blob %s is %d bytes, over the limit of %d: %v", e.Hash, e.Size, e.Limit, ErrTooLarge)
}

// Unwrap makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// BlobSize returns an object's size from its header (go-git's EncodedObjectSize:
// the loose object's header or the pack entry's), without reading its content.
func BlobSize(s storer.EncodedObjectStorer, h plumbing.Hash) (int64, error) {
	n, err := s.EncodedObjectSize(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// EncodedObjectSize does not look in alternates; EncodedObject does, and for
		// a repository opened with Open it does not inflate a large object either.
		var o plumbing.EncodedObject
		if o, err = s.EncodedObject(plumbing.BlobObject, h); err == nil {
			n = o.Size()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("read the size of blob %s: %w", h, err)
	}
	return n, nil
}

// ReadBlob reads a blob of at most limit bytes: past it, a *TooLargeError, found from
// the header before any content is read. The content is read through an
// io.LimitReader, so a header that lies costs at most limit+1 bytes.
func ReadBlob(s storer.EncodedObjectStorer, h plumbing.Hash, limit int64) ([]byte, error) {
	o, err := s.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	if o.Size() > limit {
		return nil, &TooLargeError{Hash: h, Size: o.Size(), Limit: limit}
	}
	r, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer r.Close()
	var buf bytes.Buffer
	buf.Grow(int(o.Size()) + bytes.MinRead) // ReadFrom wants MinRead spare bytes at EOF
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	if int64(buf.Len()) > limit {
		return nil, &TooLargeError{Hash: h, Size: int64(buf.Len()), Limit: limit}
	}
	return buf.Bytes(), nil
}
