//go:build !linux

package gitrepo

import (
	"io/fs"
	"time"
)

// inodeAndCtime is not read here: files are compared on time and size.
func inodeAndCtime(fs.FileInfo) (uint32, time.Time) { return 0, time.Time{} }
