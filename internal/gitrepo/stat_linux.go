package gitrepo

import (
	"io/fs"
	"syscall"
	"time"
)

// inodeAndCtime returns what Git's index keeps of a file besides its time and size.
func inodeAndCtime(fi fs.FileInfo) (uint32, time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, time.Time{}
	}
	return uint32(st.Ino), time.Unix(st.Ctim.Unix()) //nolint:gosec // the index keeps the inode modulo 2^32, as Git does
}
