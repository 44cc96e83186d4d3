// Package cli wires the contractbot commands (cobra). Each command lives in a file of
// its own and only parses flags, calls the core and prints.
package cli

import (
	"github.com/spf13/cobra"
)

// ExitError carries a process exit code without printing anything more.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return "exit" }

// New returns the root command with every subcommand registered.
func New() *cobra.Command {
	root := &cobra.Command{
		Use:   "contractbot",
		Short: "Schema contracts as code: lint, compatibility, consumer impact and a pull-request bot",
		Long: `contractbot keeps schemas (Avro, Protobuf, JSON Schema), their owners, compatibility
levels, consumers and a change calendar as files in one Git repository, and tells every pull
request which consumers a schema change touches and who must sign off.

Start a repository with 'contractbot init DIR', check one with 'contractbot lint',
or read docs/ in the project.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(commands()...)
	return root
}
