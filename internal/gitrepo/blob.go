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
	data, n, err := ReadSized(r, o.Size(), limit)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	if n > limit {
		return nil, &TooLargeError{Hash: h, Size: n, Limit: limit}
	}
	return data, nil
}

// ReadSized reads r, which announces size bytes (an object's header, a file's stat),
// into a slice of exactly that many: callers keep these bytes (a loaded tree holds
// every schema text), so there is no spare capacity to carry. A content shorter than
// announced is returned as it is; a longer one is read on, through an io.LimitReader,
// up to limit+1 bytes. n counts the bytes read; when it is over limit, data is nil.
func ReadSized(r io.Reader, size, limit int64) (data []byte, n int64, err error) {
	data = make([]byte, min(size, limit+1))
	got, err := io.ReadFull(r, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, int64(got), err
	}
	if got < len(data) {
		return data[:got], int64(got), nil
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1-int64(got))); err != nil {
		return nil, int64(got), err
	}
	n = int64(got + buf.Len())
	if n > limit {
		return nil, n, nil
	}
	if buf.Len() == 0 {
		return data, n, nil
	}
	return append(data, buf.Bytes()...), n, nil
}
