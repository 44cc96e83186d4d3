package cli

import (
	"errors"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
)

// verbosity is a command's -q/--quiet and -v/--verbose. What each drops or adds is
// the command's to say in its flag usage (docs/cli.md, "Quiet and verbose");
// errors always print.
type verbosity struct {
	quiet, verbose bool
}

// add registers -q, and -v when verbose says what -v adds (empty: the command has
// nothing more to say).
func (v *verbosity) add(cmd *cobra.Command, quiet, verbose string) {
	cmd.Flags().BoolVarP(&v.quiet, "quiet", "q", false, quiet)
	if verbose != "" {
		cmd.Flags().BoolVarP(&v.verbose, "verbose", "v", false, verbose)
		prev := cmd.PreRunE
		cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
			if v.quiet && v.verbose {
				return errors.New("-q (--quiet) and -v (--verbose) ask for less and more output; give one")
			}
			if prev != nil {
				return prev(cmd, args)
			}
			return nil
		}
	}
}

// chatty is w, or io.Discard under --quiet: for the lines a script does not need.
func (v *verbosity) chatty(w io.Writer) io.Writer {
	if v.quiet {
		return io.Discard
	}
	return w
}

// logLevel is the least severe record a command logs to stderr: def, errors only
// under --quiet, info under --verbose.
func (v *verbosity) logLevel(def slog.Level) slog.Level {
	switch {
	case v.quiet:
		return slog.LevelError
	case v.verbose:
		return min(def, slog.LevelInfo)
	}
	return def
}
