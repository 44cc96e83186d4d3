// Package atomicfile writes files that a reader sees whole or not at all: the data
// goes to a temporary file in the same folder, is synced, then renamed over the old
// file. For caches and marks that another process may read at any moment.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data atomically, creating its folder when
// missing. On failure the old file, if any, is left as it was.
func Write(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(f.Name()) }() // gone after the rename; left only on failure
	if _, err := f.Write(data); err != nil {
		_ = f.Close() // the first error is the one to report
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close() // the first error is the one to report
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	// The rename is durable once the folder is synced: a caller that marks progress
	// (publish's state) may say so only then.
	return syncDir(filepath.Dir(path))
}

// syncDir syncs a folder, making the renames in it durable (a variable: a test makes
// it fail, as a disk that cannot be written does).
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
