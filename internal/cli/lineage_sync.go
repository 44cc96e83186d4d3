package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage"
)

func newLineageSyncCmd() *cobra.Command {
	var vb verbosity
	var repo, job, owner, kind string
	var check bool
	cmd := &cobra.Command{
		Use:   "sync --job NAME --owner TEAM [--kind flink-job] FILE.sql...",
		Short: "Write a job's consumer files from its Flink SQL (--check: report the drift and exit 1)",
		Long: `sync reads a job's Flink SQL, maps each Kafka table to the subject whose contract.yaml
names its topic, and writes the job's consumer file under each subject it reads: the
fields it reads and, per output subject, which input fields each output field is made
of. Existing files keep every hand-written key (description, kind, system, owner) and
comment; reads and produces are rewritten only when they differ from the SQL.

With --check nothing is written: the differences are printed and the command exits 1
when there are any (for a job repository's CI). See docs/lineage.md.`,
		Example: `  contractbot lineage sync --job dwd-order-detail --owner data-warehouse \
      jobs/flink/dwd-order-detail.sql
  contractbot lineage sync --check --job dws-gmv-1min --owner data-warehouse \
      jobs/flink/dws-gmv-1min.sql`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if !slices.Contains(contract.ConsumerKinds, kind) {
				return fmt.Errorf("--kind %q is not a consumer kind; use one of %s", kind, strings.Join(contract.ConsumerKinds, ", "))
			}
			res, err := analyzeFiles(args)
			if err != nil {
				return err
			}
			if len(res.Errors) > 0 {
				for _, e := range res.Errors {
					fmt.Fprintln(cmd.ErrOrStderr(), e.Error())
				}
				fmt.Fprintln(cmd.ErrOrStderr(), "The SQL has statements that do not parse; fix them before syncing its consumer files.")
				return &ExitError{Code: 1}
			}
			tree, err := contract.Load(contract.NewDirSource(repo))
			if err != nil {
				return fmt.Errorf("load the contract repository %s: %w", repo, err)
			}
			if tree.Teams[owner] == nil {
				return fmt.Errorf("--owner %q is not a team of contracts/teams.yaml; teams: %s", owner, strings.Join(tree.TeamIDs(), ", "))
			}
			decls, notes := lineage.Plan(res, tree, job)
			for _, n := range notes {
				fmt.Fprintln(vb.chatty(out), "note:", n)
			}
			if len(decls) == 0 {
				fmt.Fprintf(out, "The SQL reads no topic that a contract names; %s has no consumer file to write.\n", job)
				return nil
			}
			drift, drifts := 0, vb.chatty(out)
			if check {
				drifts = out
			}
			for _, d := range decls {
				diffs := lineage.Diff(d)
				drift += len(diffs)
				for _, line := range diffs {
					fmt.Fprintln(drifts, line)
				}
				if check || len(diffs) == 0 || !d.Read {
					continue
				}
				if err := writeConsumer(repo, d, owner, kind); err != nil {
					return err
				}
				fmt.Fprintf(vb.chatty(out), "wrote %s\n", d.File)
			}
			switch {
			case drift == 0:
				fmt.Fprintf(vb.chatty(out), "The consumer files of %s match its SQL (%d %s).\n", job, len(decls), plural(len(decls), "file", "files"))
			case check:
				fmt.Fprintf(out, "Run 'contractbot lineage sync --job %s --owner %s %s' to update them.\n", job, owner, strings.Join(args, " "))
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repo, "repo", ".", "the contract repository (a directory)")
	cmd.Flags().StringVar(&job, "job", "", "the job's name: the consumer files are consumers/NAME.yaml (required)")
	cmd.Flags().StringVar(&owner, "owner", "", "the team that owns the job, for new consumer files (required)")
	cmd.Flags().StringVar(&kind, "kind", "flink-job", "the consumer kind, for new consumer files")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; print the drift and exit 1 if there is any")
	vb.add(cmd, "print nothing but errors and, with --check, the drift (no notes, no files written)", "")
	_ = cmd.MarkFlagRequired("job")
	_ = cmd.MarkFlagRequired("owner")
	return cmd
}

func writeConsumer(repo string, d *lineage.Declared, owner, kind string) error {
	p := filepath.Join(repo, filepath.FromSlash(d.File))
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read consumer file: %w", err)
	}
	text, err := lineage.Render(old, d, owner, kind)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write consumer file: %w", err)
	}
	if err := os.WriteFile(p, text, 0o644); err != nil {
		return fmt.Errorf("write consumer file: %w", err)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
