package cli

import (
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/report"
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
			r, err := buildReport(repoDir, at)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), render(r))
			return err
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", ".", "the contract repository (a Git repository)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or markdown")
	cmd.Flags().StringVar(&now, "now", "", "report as of this time (RFC 3339) instead of the clock: ages depend on it")
	return cmd
}

// buildReport builds the report of the repository at dir as of at. The tree at the
// head of the default branch is loaded without its schemas (no section reads them),
// while the versions index of the history is built and audited: two handles of the
// repository, so that the two do not wait for one lock on object reads.
func buildReport(dir string, at time.Time) (*report.Report, error) {
	repo, head, err := openDefaultBranch(dir)
	if err != nil {
		return nil, fmt.Errorf("report on %s: %w", dir, err)
	}
	defer repo.Close()
	type loaded struct {
		tree *contract.Tree
		err  error
	}
	done := make(chan loaded, 1)
	go func() {
		tree, err := loadWithoutSchemas(dir, head)
		done <- loaded{tree, err}
	}()
	ix, bs, err := auditHistory(repo, head)
	l := <-done
	if err != nil {
		return nil, fmt.Errorf("audit the history of %s: %w", dir, err)
	}
	if l.err != nil {
		return nil, fmt.Errorf("report on %s: %w", dir, l.err)
	}
	return report.Build(l.tree, ix, bs, at), nil
}

// loadWithoutSchemas loads the tree at a commit of the repository at dir, on its own
// handle of the repository, without reading its schemas.
func loadWithoutSchemas(dir string, commit plumbing.Hash) (*contract.Tree, error) {
	repo, err := gitrepo.Open(dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	src, err := contract.NewGitSource(repo.Repository, commit.String())
	if err != nil {
		return nil, err
	}
	return contract.LoadWithoutSchemas(src)
}
