//go:build unix

package gitrepo

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// mapped are the mappings mapFile made and not yet unmapped, for DropMappedPages.
var mapped = struct {
	sync.Mutex
	m map[*byte][]byte
}{m: map[*byte][]byte{}}

// mapFile maps a file read-only into memory.
func mapFile(name string) ([]byte, func() error, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }() // the mapping outlives the descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size <= 0 || size != int64(int(size)) {
		return nil, nil, errors.New(name + ": empty or too large to map")
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	mapped.Lock()
	mapped.m[&data[0]] = data
	mapped.Unlock()
	return data, func() error {
		mapped.Lock()
		delete(mapped.m, &data[0])
		mapped.Unlock()
		return syscall.Munmap(data)
	}, nil
}

// DropMappedPages takes the pages of the mapped packs out of the process's resident
// set (madvise MADV_DONTNEED): they stay in the system's page cache and a later read
// maps them again, at the cost of a minor fault. A long-running process calls it
// once it is idle after reading much of a pack (serve, when it lets its pages' tree
// go): at 100,000 subjects the pack's pages it had touched were 175 MB of its RSS.
func DropMappedPages() {
	mapped.Lock()
	defer mapped.Unlock()
	for _, data := range mapped.m {
		_ = syscall.Madvise(data, syscall.MADV_DONTNEED) // advice: nothing to do if refused
	}
}
