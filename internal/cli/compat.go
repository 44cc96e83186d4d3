package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
)

func newCompatCmd() *cobra.Command {
	var (
		format, level, rules string
		protoPaths           []string
		asJSON, listRules    bool
		batch                string
		budget               time.Duration
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

--batch FILE (or - for standard input) checks many pairs in one process: each line of
FILE is a JSON object
  {"id": "orders", "format": "avro", "level": "BACKWARD",
   "old": [{"path": "orders.v1.avsc"}], "new": {"text": "{\"type\": ...}"}}
where each schema is {"path": FILE} (read from the current directory) or {"text":
SCHEMA}; "old" lists earlier versions oldest first, "format" defaults to the new
path's extension, "level" to BACKWARD, and "rules" and "proto_paths" are as the flags.
Each input line gets one JSON line out, in order: {"id", "line", "compatible", "level",
"findings", "changes"} (findings as --json prints them, with their rule ids), or
{"id", "line", "error"} when the line cannot be checked (bad JSON, unreadable schema,
over --budget, over 16 MiB); the batch goes on past it. Exit status: 0 every pair
compatible, 1 some incompatible, 2 some line unusable.

--list-rules prints every format's rule tables instead (or --format's only): each
rule's id, as findings carry it, and its purpose.

Exit status: 0 compatible, 1 incompatible, 2 unusable input (the reason is printed to
standard error as file:line:column: message).`,
		Example: `  contractbot compat orders.v1.avsc orders.v2.avsc
  contractbot compat --level FULL_TRANSITIVE v1.avsc v2.avsc v3.avsc
  contractbot compat --format protobuf --proto-path proto --rules WIRE_JSON \
      old/order.proto order.proto
  contractbot compat --json old.avsc new.avsc
  contractbot compat --list-rules --format protobuf
  contractbot compat --batch pairs.jsonl > results.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if listRules || batch != "" {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			fail := func(format string, a ...any) error {
				fmt.Fprintf(stderr, format+"\n", a...)
				return &ExitError{Code: 2}
			}
			if listRules {
				engines := formats.All()
				if format != "" {
					e, ok := formats.Lookup(format)
					if !ok {
						return fail("unknown --format %q: use %s", format, orList(formats.Names()))
					}
					engines = []checker.Engine{e}
				}
				return writeRules(cmd.OutOrStdout(), engines, asJSON)
			}
			if batch != "" {
				if budget <= 0 {
					return fail("--budget must be positive, e.g. --budget 10s")
				}
				in := cmd.InOrStdin()
				if batch != "-" {
					f, err := os.Open(batch)
					if err != nil {
						return fail("%s: cannot read the batch: %v", batch, unwrapPathError(err))
					}
					defer func() { _ = f.Close() }()
					in = f
				}
				return runCompatBatch(in, cmd.OutOrStdout(), budget)
			}
			lvl, err := checker.ParseLevel(level)
			if err != nil {
				return fail("%v", err)
			}
			eng, err := compatEngine(format, args[len(args)-1], rules, protoPaths, flagWords)
			if err != nil {
				return fail("%v", err)
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
			res, err := eng.Compat(inputs[:len(inputs)-1], inputs[len(inputs)-1], opts)
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
	var exts []string
	for _, e := range formats.All() {
		exts = append(exts, e.Describe().Extensions[0])
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", fmt.Sprintf("schema format: %s (default: from the extension, %s)", orList(formats.Names()), orList(exts)))
	f.StringVar(&level, "level", string(checker.Backward), "compatibility level: NONE, BACKWARD, FORWARD, FULL, BACKWARD_TRANSITIVE, FORWARD_TRANSITIVE or FULL_TRANSITIVE")
	f.StringVar(&rules, "rules", "", "protobuf only: stricter rule set, WIRE or WIRE_JSON")
	f.StringArrayVar(&protoPaths, "proto-path", nil, "protobuf only: directory searched for imports (repeatable, in order)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.StringVar(&batch, "batch", "", "check the pairs of FILE (JSON lines, - for standard input) and print one JSON result line each")
	f.DurationVar(&budget, "budget", 10*time.Second, "with --batch: time allowed to each pair")
	f.BoolVar(&listRules, "list-rules", false, "print the rule tables of every format (or of --format) with ids and purposes, and exit")
	return cmd
}

// formatsWith lists the names of the formats whose description passes keep.
func formatsWith(keep func(checker.Description) bool) []string {
	var out []string
	for _, e := range formats.All() {
		if d := e.Describe(); keep(d) {
			out = append(out, string(d.Format))
		}
	}
	return out
}

// orList renders "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
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

// compatWords names compat's options as the user gave them: flags on the command
// line (flagWords), keys of a --batch line (keyWords).
type compatWords struct {
	format        string                      // the option naming the format
	rulesAndPaths string                      // the options only some formats accept
	giveFormat    func(names []string) string // how to name a format, given the formats
}

var (
	flagWords = compatWords{format: "--format", rulesAndPaths: "--rules and --proto-path",
		giveFormat: func(names []string) string { return "pass --format " + strings.Join(names, " or --format ") }}
	keyWords = compatWords{format: "format", rulesAndPaths: `"rules" and "proto_paths"`,
		giveFormat: func(names []string) string { return `set "format" to ` + orList(names) }}
)

// compatEngine picks the engine that checks the schema at newPath, the one of format
// or else of newPath's extension, and refuses rules or import paths that engine has
// no use for; w words the errors as the user named the options.
func compatEngine(format, newPath, rules string, importPaths []string, w compatWords) (checker.Engine, error) {
	var eng checker.Engine
	if format == "" {
		e, ok := formats.ByExtension(newPath)
		if !ok {
			return nil, fmt.Errorf("%s: cannot tell the schema format from the extension; %s", newPath, w.giveFormat(formats.Names()))
		}
		eng = e
	} else {
		e, ok := formats.Lookup(format)
		if !ok {
			return nil, fmt.Errorf("unknown %s %q: use %s", w.format, strings.ToLower(format), orList(formats.Names()))
		}
		eng = e
	}
	d := eng.Describe()
	if (rules != "" && len(d.RuleSets) == 0) || (len(importPaths) > 0 && !d.Imports) {
		return nil, fmt.Errorf("%s apply to %s %s only", w.rulesAndPaths, w.format,
			orList(formatsWith(func(d checker.Description) bool { return len(d.RuleSets) > 0 && d.Imports })))
	}
	return eng, nil
}
