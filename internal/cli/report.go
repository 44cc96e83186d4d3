package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/versions"
)

func newReportCmd() *cobra.Command {
	var repoDir, format, now string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Print the repository's health: unused subjects, lineage coverage, deprecated reads, history that broke its level",
		Long: `report reads the default branch of a contract repository (origin/HEAD, origin/main,
origin/master, main or master; HEAD when none exists): its tree at the head and its
first-parent history. It lists the subjects no consumer reads (with their age from the
history), the jobs that declare no lineage (black boxes) and the share that do, the
consumers still reading deprecated fields, and the commits that broke their subject's
compatibility level (as lint --history). Figures that live on GitHub (publish marks,
automation rate, sign-off latency) are named as not derived.`,
		Example: `  contractbot report
  contractbot report --format markdown > health.md
  contractbot report --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at := time.Now().UTC()
			if now != "" {
				t, err := time.Parse(time.RFC3339, now)
				if err != nil {
					return fmt.Errorf("--now %q is not an RFC 3339 time, e.g. 2026-12-01T09:00:00Z", now)
				}
				at = t
			}
			render, ok := map[string]func(*report.Report) string{"text": report.Text, "json": report.JSON, "markdown": report.Markdown}[format]
			if !ok {
				return fmt.Errorf("unknown --format %q: use text, json or markdown", format)
			}
			return withHistory(repoDir, func(repo *gitrepo.Repo, ix *versions.Index, bs []history.Break) error {
				src, err := contract.NewGitSource(repo.Repository, ix.Head)
				if err != nil {
					return fmt.Errorf("report on %s: %w", repoDir, err)
				}
				tree, err := contract.Load(src)
				if err != nil {
					return fmt.Errorf("report on %s: %w", repoDir, err)
				}
				_, err = fmt.Fprint(cmd.OutOrStdout(), render(report.Build(tree, ix, bs, at)))
				return err
			})
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", ".", "the contract repository (a Git repository)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or markdown")
	cmd.Flags().StringVar(&now, "now", "", "report as of this time (RFC 3339) instead of the clock: ages depend on it")
	return cmd
}
