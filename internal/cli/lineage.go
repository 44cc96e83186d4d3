package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/lineage/flinksql"
)

func newLineageCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lineage",
		Short: "Field-level lineage from the jobs themselves (Flink SQL)",
		Long: `lineage reads what jobs do, instead of what their consumer files say they do.
See docs/lineage.md.`,
	}
	cmd.AddCommand(newLineageSQLCmd(), newLineageSyncCmd(), newLineageVerifyCmd(), newLineageCheckCmd())
	return cmd
}

func newLineageSQLCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sql FILE.sql...",
		Short: "Print, per INSERT of Flink SQL scripts, the sink, the source tables and the column lineage",
		Long: `sql parses Flink SQL scripts (in the order given: tables declared in one file are
known to the next) and prints, for each INSERT (also inside statement sets) and each
CREATE TABLE ... AS SELECT, the sink table, the source base tables, which source
columns flow into each sink column, and every source column the statement reads.
What cannot be attributed is listed as unresolved. Statements that do not parse are
reported with file:line:column and the command exits 1.`,
		Example: `  contractbot lineage sql jobs/flink/dwd-order-detail.sql
  contractbot lineage sql --json ddl.sql job.sql`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := analyzeFiles(args)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				writeLineage(cmd.OutOrStdout(), res)
			}
			if len(res.Errors) > 0 {
				for _, e := range res.Errors {
					fmt.Fprintln(cmd.ErrOrStderr(), e.Error())
				}
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the lineage as JSON (shape in docs/lineage.md)")
	return cmd
}

// analyzeFiles reads and resolves the scripts in order.
func analyzeFiles(paths []string) (flinksql.Result, error) {
	a, err := analyzerOf(paths)
	if err != nil {
		return flinksql.Result{}, err
	}
	return a.Result(), nil
}

// analyzerOf reads and resolves the scripts in order, keeping their declarations.
func analyzerOf(paths []string) (*flinksql.Analyzer, error) {
	a := &flinksql.Analyzer{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read Flink SQL script: %w", err)
		}
		a.Add(flinksql.Parse(p, string(b)))
	}
	return a, nil
}

func writeLineage(w io.Writer, res flinksql.Result) {
	if len(res.Statements) == 0 {
		fmt.Fprintln(w, "No INSERT statement found.")
	}
	for i, st := range res.Statements {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:%d: INSERT INTO %s from %s\n", st.File, st.Line, st.Sink, orNone(st.Sources))
		width := 0
		for _, c := range st.Order {
			width = max(width, len(c))
		}
		for _, c := range st.Order {
			fmt.Fprintf(w, "  %-*s <- %s\n", width, c, orNone(st.Columns[c]))
		}
		fmt.Fprintf(w, "  reads: %s\n", orNone(st.Reads))
		for _, u := range st.Unresolved {
			fmt.Fprintf(w, "  unresolved: %s\n", u)
		}
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(nothing)"
	}
	return strings.Join(s, ", ")
}
