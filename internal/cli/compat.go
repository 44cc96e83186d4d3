package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/avro"
	"github.com/contractbot/contractbot/checker/protobuf"
)

func newCompatCmd() *cobra.Command {
	var (
		format, level, rules string
		protoPaths           []string
		asJSON               bool
	)
	cmd := &cobra.Command{
		Use:   "compat [flags] PREVIOUS... NEW",
		Short: "Check a new schema version against earlier ones at a compatibility level",
		Long: `compat checks the last file (the new schema) against the others (earlier versions,
oldest first) at a compatibility level with the Confluent Schema Registry's meaning:
BACKWARD (the new schema reads the latest version's data), FORWARD (the latest version
reads the new schema's data), FULL (both), their _TRANSITIVE forms (against every
earlier version) and NONE. It reports every incompatibility, each with file:line:column,
the rule, the field and what to do, then the field-level changes from the latest earlier
version to the new one.

Exit status: 0 compatible, 1 incompatible, 2 unusable input (the reason is printed to
standard error as file:line:column: message).`,
		Example: `  contractbot compat orders.v1.avsc orders.v2.avsc
  contractbot compat --level FULL_TRANSITIVE v1.avsc v2.avsc v3.avsc
  contractbot compat --format protobuf --proto-path proto --rules WIRE_JSON old/order.proto order.proto
  contractbot compat --json old.avsc new.avsc`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			fail := func(format string, a ...any) error {
				fmt.Fprintf(stderr, format+"\n", a...)
				return &ExitError{Code: 2}
			}
			lvl, err := checker.ParseLevel(level)
			if err != nil {
				return fail("%v", err)
			}
			newPath := args[len(args)-1]
			if format == "" {
				format = formatFromExt(newPath)
				if format == "" {
					return fail("%s: cannot tell the schema format from the extension; pass --format avro or --format protobuf", newPath)
				}
			}
			format = strings.ToLower(format)
			if format != "avro" && format != "protobuf" {
				return fail("unknown --format %q: use avro or protobuf", format)
			}
			if format == "avro" && (rules != "" || len(protoPaths) > 0) {
				return fail("--rules and --proto-path apply to --format protobuf only")
			}
			inputs := make([]checker.Input, len(args))
			for i, p := range args {
				data, err := os.ReadFile(p)
				if err != nil {
					return fail("%s: cannot read the schema: %v", p, unwrapPathError(err))
				}
				inputs[i] = checker.Input{Path: p, Data: data}
			}
			opts := checker.Options{Level: lvl, Rules: rules, ImportPaths: protoPaths}
			var res *checker.Result
			if format == "avro" {
				res, err = avro.Compat(inputs[:len(inputs)-1], inputs[len(inputs)-1], opts)
			} else {
				res, err = protobuf.Compat(inputs[:len(inputs)-1], inputs[len(inputs)-1], opts)
			}
			if err != nil {
				return fail("%v", err)
			}
			if err := writeResult(cmd.OutOrStdout(), res, asJSON); err != nil {
				return err
			}
			if !res.Compatible {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "schema format: avro or protobuf (default: from the extension, .avsc or .proto)")
	f.StringVar(&level, "level", string(checker.Backward), "compatibility level: NONE, BACKWARD, FORWARD, FULL, BACKWARD_TRANSITIVE, FORWARD_TRANSITIVE or FULL_TRANSITIVE")
	f.StringVar(&rules, "rules", "", "protobuf only: stricter rule set, WIRE or WIRE_JSON")
	f.StringArrayVar(&protoPaths, "proto-path", nil, "protobuf only: directory searched for imports (repeatable, in order)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// formatFromExt infers the schema format from a file name.
func formatFromExt(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".avsc":
		return "avro"
	case ".proto":
		return "protobuf"
	}
	return ""
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func writeResult(w io.Writer, res *checker.Result, asJSON bool) error {
	if asJSON {
		return checker.WriteJSON(w, res)
	}
	return checker.WriteText(w, res)
}
