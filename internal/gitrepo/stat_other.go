//go:build !linux

package gitrepo

import (
	"io/fs"
	"time"
)

// inodeAndCtime is not read here: files are compared on time and size.
func inodeAndCtime(fs.FileInfo) (uint32, time.Time) { return 0, time.Time{} }

// stampDir trusts no folder here: without a change time and inode, a folder copied
// back with its old modification time would look unchanged, so every folder is
// listed.
func stampDir(string) (dirStamp, bool) { return dirStamp{}, false }

// listingsTrusted is false here: every folder is listed.
func listingsTrusted(string) bool { return false }
