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

// File systems known to give a folder a new modification and change time whenever an
// entry is added, removed or renamed in it (statfs f_type): only on these are folder
// listings kept (listings.go). Network and FUSE file systems may cache or fake a
// folder's times, as Git warns of its untracked cache: there every folder is listed.
var listingFileSystems = map[int64]string{
	0xef53:     "ext2/3/4",
	0x58465342: "xfs",
	0x9123683e: "btrfs",
	0x01021994: "tmpfs",
	0x794c7630: "overlayfs",
	0x2fc12fc1: "zfs",
	0xf2f52010: "f2fs",
}

// listingsTrusted reports whether the working tree at root is on a file system whose
// folder times can be trusted to keep folder listings.
func listingsTrusted(root string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(root, &st); err != nil {
		return false
	}
	_, ok := listingFileSystems[int64(st.Type)] //nolint:unconvert // int64 on some architectures, not all
	return ok
}
