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
		Example: `  contractbot init contracts-repo --org acme   # a repository that passes lint
  cd contracts-repo && contractbot lint
  contractbot check                             # what the bot would say
  contractbot serve                             # the pages on 127.0.0.1:8080`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(commands()...)
	guardGroups(root)
	setHelp(root)
	walk(root, func(c *cobra.Command) {
		if repoArgCommands[strings.TrimPrefix(c.CommandPath(), "contractbot ")] {
			repoArg(c)
		}
		if c.Flags().Lookup("json") != nil && c.Flags().Lookup("format") == nil {
			formatForJSON(c)
		}
	})
	setCompletion(root)
	return root
}

// repoArgCommands take the repository as an optional argument as well as --repo:
// every command with --repo and no positional argument of its own.
var repoArgCommands = map[string]bool{
	"lint": true, "check": true, "calendar": true, "codeowners": true, "publish": true,
	"report": true, "sample": true, "serve": true, "registry serve": true,
	"registry diff": true, "lineage verify": true,
}

func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}

// repoArg lets `contractbot lint DIR` mean `contractbot lint --repo DIR`; naming two
// different repositories is an error.
func repoArg(c *cobra.Command) {
	c.Use += " [DIR]"
	c.Args = cobra.MaximumNArgs(1)
	prev := c.PreRunE
	c.PreRunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			if f := cmd.Flags().Lookup("repo"); f.Changed && f.Value.String() != args[0] {
				return fmt.Errorf("two repositories: --repo %s and the argument %s; give one", f.Value, args[0])
			}
			if err := cmd.Flags().Set("repo", args[0]); err != nil {
				return err
			}
		}
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
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

// formatForJSON gives a command that has only --json (impact, registry diff, lineage
// sql) the --format/-o flag of the others; --json stays as its alias.
func formatForJSON(c *cobra.Command) {
	c.Flags().StringP("format", "o", "text", "output format: text or json (--json is the same as --format json)")
	prev := c.PreRunE
	c.PreRunE = func(cmd *cobra.Command, args []string) error {
		fl := cmd.Flags()
		switch v := fl.Lookup("format").Value.String(); v {
		case "json":
			if err := fl.Set("json", "true"); err != nil {
				return err
			}
		case "text":
			if fl.Changed("format") && fl.Changed("json") {
				return fmt.Errorf("--format text and --json: give one")
			}
		default:
			return fmt.Errorf("--format %q: use text or json", v)
		}
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
}
