package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// commands lists the subcommands in the order --help shows them.
func commands() []*cobra.Command {
	return []*cobra.Command{
		newInitCmd(),
		newLintCmd(),
		newCodeownersCmd(),
		newCheckCmd(),
		newImpactCmd(),
		newServeCmd(),
		newCompatCmd(),
		newCalendarCmd(),
		newRegistryCmd(),
		newPublishCmd(),
		newLineageCmd(),
		newReportCmd(),
		newSampleCmd(),
	}
}

// nowFlag reads a command's --now (an RFC 3339 time), or gives clock when it is empty.
func nowFlag(now string, clock time.Time) (time.Time, error) {
	if now == "" {
		return clock, nil
	}
	t, err := time.Parse(time.RFC3339, now)
	if err != nil {
		return time.Time{}, fmt.Errorf("--now %q is not an RFC 3339 time like 2026-12-01T09:00:00Z", now)
	}
	return t, nil
}
