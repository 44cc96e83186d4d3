//go:build !unix

package gitrepo

import (
	"context"
	"errors"
	"io"
)

// runHook is not done on this system: every WorktreeDiff scans.
func runHook(context.Context, string, string, string, io.Writer, io.Writer) error {
	return errors.New("fsmonitor hooks are run only on Unix systems")
}
