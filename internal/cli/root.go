// Package cli wires the contractbot commands (cobra). Each command lives in a file of
// its own and only parses flags, calls the core and prints.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

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
	guardGroups(root)
	return root
}

// Main runs the command line args and returns the process exit code: 0, the code of
// an ExitError, or 2 for any other error, which is printed to stderr followed by a
// hint naming the help of the command that failed (as kubectl and gh do).
func Main(args []string, stdout, stderr io.Writer) int {
	root := New()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	if cmd == nil {
		cmd = root
	}
	fmt.Fprintln(stderr, "contractbot:", err)
	fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	return 2
}

// guardGroups makes every command that only groups subcommands (lineage, registry)
// refuse an unknown subcommand the way the root does, with cobra's suggestions,
// instead of printing its help and exiting 0.
func guardGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		guardGroups(sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownSubcommand(cmd, args[0])
	}
}

// unknownSubcommand words the error as cobra words it for the root.
func unknownSubcommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return errors.New(msg)
}
