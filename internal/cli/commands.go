package cli

import "github.com/spf13/cobra"

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
	}
}
