//go:build unix

package contract

import (
	"errors"
	"syscall"
)

// openNoFollow makes an open fail on a symbolic link as the last component.
const openNoFollow = syscall.O_NOFOLLOW

// isLinkRefused reports whether an open with openNoFollow failed on a link: ELOOP
// (Linux, macOS) or EMLINK (FreeBSD, NetBSD).
func isLinkRefused(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}
