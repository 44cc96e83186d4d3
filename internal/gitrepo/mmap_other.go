//go:build !unix

package gitrepo

import "errors"

// mapFile is not done on this system: every object is read through go-git.
func mapFile(name string) ([]byte, func() error, error) {
	return nil, nil, errors.New("no mapped packs on this system")
}

// DropMappedPages does nothing: nothing is mapped.
func DropMappedPages() {}
