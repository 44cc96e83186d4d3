//go:build !unix

package contract

// openNoFollow is not known here: DirSource checks the last component with Lstat
// before it opens it.
const openNoFollow = 0

func isLinkRefused(error) bool { return false }
