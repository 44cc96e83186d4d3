package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage"
	"github.com/contractbot/contractbot/internal/verdict"
)

func newLineageCheckCmd() *cobra.Command {
	var repo, job, format string
	cmd := &cobra.Command{
		Use:   "check FILE.sql...",
		Short: "A job's deploy gate: its Flink SQL's tables against the contracts of their topics (exit 1 on a finding)",
		Long: `check reads a job's Flink SQL and checks every Kafka table whose topic (or format
subject option) a contract declares: each physical column is a field of the subject's
schema (nested ROW fields by path; metadata and computed columns are not), its type is
one the table's format maps the field's type to (Flink's avro / avro-confluent, json,
protobuf and debezium- formats; NOT NULL over an optional field, a narrower numeric
type), 'key.fields' and PRIMARY KEY are the contract's business key, and a sink writes
every field its schema requires. The job's consumer files are compared with the SQL as
'lineage sync --check' does (the job is --job, or the script's SET 'pipeline.name').

Findings are located at the SQL's line and column and say what to write. Exit status
0 when there is no error, 1 when there is one, 2 when the input is unusable.
See docs/lineage.md.`,
		Example: `  contractbot lineage check jobs/flink/dwd-order-detail.sql
  contractbot lineage check --format github --job dws-gmv-1min ddl.sql job.sql`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" && format != "github" {
				return fmt.Errorf("unknown --format %q: use text, json or github", format)
			}
			a, err := analyzerOf(args)
			if err != nil {
				return err
			}
			tree, err := contract.Load(contract.NewDirSource(repo))
			if err != nil {
				return fmt.Errorf("load the contract repository %s: %w", repo, err)
			}
			if job == "" {
				for _, kv := range a.Sets() {
					if kv[0] == "pipeline.name" {
						job = strings.Trim(kv[1], "'\"")
					}
				}
			}
			res := lineage.CheckSQL(a, tree, job)
			if err := writeSQLCheck(cmd.OutOrStdout(), format, res, job); err != nil {
				return err
			}
			if res.Errors() > 0 {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repo, "repo", ".", "the contract repository (a directory)")
	cmd.Flags().StringVar(&job, "job", "", "the job's name, to compare its consumer files with the SQL (default: the script's SET 'pipeline.name')")
	cmd.Flags().StringVarP(&format, "format", "o", "text", "text, json (shape in docs/lineage.md) or github (GitHub Actions annotations)")
	return cmd
}

func writeSQLCheck(w io.Writer, format string, res *lineage.SQLCheck, job string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	case "github":
		var b strings.Builder
		for _, f := range res.Findings {
			b.WriteString(verdict.ActionsCommand(map[string]string{lineage.SevError: "error", lineage.SevWarning: "warning"}[f.Severity], f.Message,
				"file", f.File, "line", fmt.Sprint(f.Line), "col", fmt.Sprint(f.Column), "title", "contractbot lineage check: "+f.Rule))
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(w, "%s:%d:%d: %s [%s]: %s\n", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Message)
	}
	errs := res.Errors()
	jobNote := ""
	if job == "" {
		jobNote = "; consumer files not compared (give --job or SET 'pipeline.name')"
	}
	fmt.Fprintf(w, "%d %s, %d %s in %d %s checked against contracts%s.\n", errs, plural(errs, "error", "errors"),
		len(res.Findings)-errs, plural(len(res.Findings)-errs, "warning", "warnings"), len(res.Tables), plural(len(res.Tables), "table", "tables"), jobNote)
	return nil
}
