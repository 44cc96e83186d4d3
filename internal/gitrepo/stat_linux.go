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

// stampDir returns a folder's stamp (what its cached listing is trusted on); ok is
// false when name is not a folder or cannot be read.
func stampDir(name string) (dirStamp, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(name, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return dirStamp{}, false
	}
	return dirStamp{mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino}, true
}
