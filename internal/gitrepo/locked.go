package gitrepo

import (
	"errors"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// lockedStorage serialises the object reads and writes of go-git's filesystem
// storage. Its caches are plain maps filled on first use (the pack indexes, the open
// pack files kept with KeepDescriptors), so two goroutines reading objects of one
// repository at once race, and can stop the process with "fatal error: concurrent map
// writes". A repository opened here may be shared (serve hands one to the pages and
// the embedded registry, which lock separately); every object access goes through this
// one lock. The lock is never held while the caller's code runs, so a caller may hold
// its own lock around these calls.
//
// Objects in packs are read first by packs (pack.go), which needs no lock and no
// offset-to-hash table of the pack; what it does not have (loose objects, alternates,
// anything unusual) is read by go-git.
type lockedStorage struct {
	*filesystem.Storage
	packs *packs // nil: all through go-git
	mu    sync.Mutex
}

func (s *lockedStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if s.packs != nil {
		if o, err := s.packs.object(t, h); !errors.Is(err, errNotInPacks) {
			return o, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.EncodedObject(t, h)
}

func (s *lockedStorage) DeltaObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.DeltaObject(t, h)
}

func (s *lockedStorage) HasEncodedObject(h plumbing.Hash) error {
	if s.packs != nil && s.packs.has(h) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.HasEncodedObject(h)
}

func (s *lockedStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if s.packs != nil {
		if n, err := s.packs.size(h); !errors.Is(err, errNotInPacks) {
			return n, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.EncodedObjectSize(h)
}

func (s *lockedStorage) HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.HashesWithPrefix(prefix)
}

func (s *lockedStorage) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.SetEncodedObject(o)
}

// IterEncodedObjects locks each step of the iteration, not the caller's function.
func (s *lockedStorage) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.Storage.IterEncodedObjects(t)
	if err != nil {
		return nil, err
	}
	return &lockedIter{it: it, mu: &s.mu}, nil
}

// PackfileWriter writes a fetched pack; closing it indexes the pack, under the lock.
func (s *lockedStorage) PackfileWriter() (io.WriteCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &lockedCloser{WriteCloser: w, mu: &s.mu, packs: s.packs}, nil
}

// Reindex forgets the pack indexes, under the lock, and the mapped packs.
func (s *lockedStorage) Reindex() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Storage.Reindex()
	if s.packs != nil {
		s.packs.reset()
	}
}

func (s *lockedStorage) ObjectPacks() ([]plumbing.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.ObjectPacks()
}

// Close closes the pack files kept open, under the lock, and unmaps the mapped ones.
func (s *lockedStorage) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.Storage.Close()
	if s.packs != nil {
		err = errors.Join(err, s.packs.close())
	}
	return err
}

type lockedIter struct {
	it storer.EncodedObjectIter
	mu *sync.Mutex
}

func (i *lockedIter) Next() (plumbing.EncodedObject, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.it.Next()
}

// ForEach calls fn for each object, with the lock released while fn runs.
func (i *lockedIter) ForEach(fn func(plumbing.EncodedObject) error) error {
	defer i.Close()
	for {
		o, err := i.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(o); errors.Is(err, storer.ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func (i *lockedIter) Close() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.it.Close()
}

type lockedCloser struct {
	io.WriteCloser
	mu    *sync.Mutex
	packs *packs
}

// Close indexes the written pack; the mapped packs are listed again at the next read.
func (w *lockedCloser) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.WriteCloser.Close()
	if w.packs != nil {
		w.packs.reset()
	}
	return err
}
