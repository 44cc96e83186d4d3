// Package appendfile appends records to files that only ever hold whole records: a
// write or a sync that fails (a full disk, an I/O error) is cut back off the file
// before anything else is written, so a record is either there whole, and synced, or
// not at all, and a retry never lands after half of it. The JSON-lines files of
// change events and OpenLineage events use it.
package appendfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// File is a file opened for appending records (each ending in a newline).
type File struct {
	f *os.File
	// end is the size of the file's whole records; the file may be longer only
	// after a failed append whose cut failed too, and is cut back before the next.
	end int64
}

// Open opens (or creates) the file at path for appending. A last line without its
// newline (what a crash in the middle of an append leaves) is cut off at once and
// reported as torn (its size; 0 when the file ends with a whole record).
func Open(path string) (f *File, torn int64, err error) {
	osf, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
	}
	end, err := lastNewline(osf)
	if err == nil {
		var st os.FileInfo
		if st, err = osf.Stat(); err == nil && st.Size() > end {
			torn = st.Size() - end
			err = osf.Truncate(end)
		}
	}
	if err != nil {
		_ = osf.Close() // the read's or the cut's error is the one to report
		return nil, 0, fmt.Errorf("%s: find its last whole line: %w", path, err)
	}
	return &File{f: osf, end: end}, torn, nil
}

// lastNewline is the offset just after the file's last newline (0 when none).
func lastNewline(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	for pos := st.Size(); pos > 0; {
		n := int64(len(buf))
		if pos < n {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
	}
	return 0, nil
}

// Append writes rec (one or more whole records, ending in a newline) after the
// file's last whole record and syncs the file. It returns only once rec is durable;
// on an error nothing of rec stays in the file (the file is cut back to its whole
// records, now or, should that cut fail too, before the next append).
func (a *File) Append(rec []byte) error {
	if err := a.reread(); err != nil {
		return err
	}
	if _, err := writeAt(a.f, rec, a.end); err != nil {
		return a.cut(err)
	}
	if err := a.f.Sync(); err != nil {
		return a.cut(err)
	}
	a.end += int64(len(rec))
	return nil
}

// writeAt writes; tests replace it with a writer that fails half-way.
var writeAt = func(f *os.File, b []byte, off int64) (int, error) { return f.WriteAt(b, off) }

// reread finds the end of the file's whole records again when the file's size is not
// what the last append left: another process appended records, or a failed append's
// cut failed and its torn tail is cut now.
func (a *File) reread() error {
	st, err := a.f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", a.f.Name(), err)
	}
	if st.Size() == a.end {
		return nil
	}
	end, err := lastNewline(a.f)
	if err != nil {
		return fmt.Errorf("%s: find its last whole line: %w", a.f.Name(), err)
	}
	if st.Size() > end {
		if err := a.f.Truncate(end); err != nil {
			return fmt.Errorf("cut a torn record off %s: %w", a.f.Name(), err)
		}
	}
	a.end = end
	return nil
}

// cut takes a failed append's bytes back off the file.
func (a *File) cut(err error) error {
	if terr := a.f.Truncate(a.end); terr != nil {
		return fmt.Errorf("%w (the half-written record is cut off before the next append: %w)", err, terr)
	}
	return err
}

// Close closes the file.
func (a *File) Close() error { return a.f.Close() }

// Size is the size of the file's whole records.
func (a *File) Size() int64 { return a.end }

// Name is the file's path.
func (a *File) Name() string { return a.f.Name() }
