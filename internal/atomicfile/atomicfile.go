// Package atomicfile writes files that a reader sees whole or not at all: the data
// goes to a temporary file in the same folder, is synced, then renamed over the old
// file. For caches and marks that another process may read at any moment.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data atomically, creating its folder when
// missing. On failure the old file, if any, is left as it was.
func Write(path string, data []byte) error {
	return WriteTo(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteTo is Write for content too large to build in memory first (the parse cache
// can be hundreds of MB): write streams it into a buffered writer on the temporary
// file. The file is synced, renamed over the old one and its folder synced; on any
// error (write's own, a full disk, a failed sync) the temporary file is removed, the
// old file is left as it was and the first error is returned.
func WriteTo(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(f.Name()) }() // gone after the rename; left only on failure
	w := bufio.NewWriterSize(f, 64<<10)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		_ = f.Close() // the first error is the one to report
		return err
	}
	if err := syncFile(f); err != nil {
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

// syncFile syncs the temporary file before it is renamed into place (a variable: a
// test makes it fail, as a file system with delayed allocation reports a full disk
// only when the data is flushed).
var syncFile = (*os.File).Sync

// syncDir syncs a folder, making the renames in it durable (a variable: a test makes
// it fail, as a disk that cannot be written does).
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
