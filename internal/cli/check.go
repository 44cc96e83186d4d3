package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/verdict"
)

func newCheckCmd() *cobra.Command {
	var (
		repoDir, rev, against, format, now string
	)
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Evaluate a change as the bot would: verdict, consumers affected, sign-offs needed",
		Long: `check compares the working tree (or --rev) with the base of the change (--against,
by default the merge base with the default branch) and prints exactly what the bot
would post on the pull request: the class (SAFE, COMPATIBLE, BREAKING), the registry
findings with their lines, every consumer the change touches down to the field and
across lineage hops, the sign-offs it needs and the calendar entry it needs.

Only the subjects that changed, and the subjects their lineage reaches, are loaded, so
the time grows with the change, not with the repository.

Exit status 1 when the change is BREAKING and lacks what it needs, or when the contract
files have errors; 0 otherwise.`,
		Example: `  contractbot check                          # working tree vs the merge base with main
  contractbot check --against HEAD~1 --rev HEAD
  contractbot check --format markdown        # the pull-request comment
  contractbot check --format github          # annotations in GitHub Actions`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at := time.Now().UTC()
			if now != "" {
				t, err := time.Parse(time.RFC3339, now)
				if err != nil {
					return fmt.Errorf("--now: %w", err)
				}
				at = t
			}
			r, err := evaluateChange(repoDir, rev, against, at)
			if err != nil {
				return err
			}
			if err := writeReport(cmd, format, r); err != nil {
				return err
			}
			if len(r.Lint) > 0 || (r.Class == verdict.Breaking && !r.Ready) {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", ".", "the contract repository (a Git working tree)")
	cmd.Flags().StringVar(&rev, "rev", "", "evaluate this revision instead of the working tree")
	cmd.Flags().StringVar(&against, "against", "", "the base revision (default: the merge base with the default branch)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, markdown, json or github")
	cmd.Flags().StringVar(&now, "now", "", "evaluate as of this time (RFC 3339), for reproducible output")
	_ = cmd.Flags().MarkHidden("now")
	return cmd
}

// evaluateChange loads what changed between the base and the head and evaluates it.
func evaluateChange(repoDir, rev, against string, now time.Time) (*verdict.Report, error) {
	repo, err := git.PlainOpenWithOptions(repoDir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("open git repository %s: %w", repoDir, err)
	}
	var head contract.Source
	headRev := "HEAD"
	if rev != "" {
		headRev = rev
		if head, err = contract.NewGitSource(repo, rev); err != nil {
			return nil, err
		}
	} else {
		wt, err := repo.Worktree()
		if err != nil {
			return nil, fmt.Errorf("%s has no working tree; use --rev: %w", repoDir, err)
		}
		head = contract.NewDirSource(wt.Filesystem.Root())
	}
	var base *contract.GitSource
	if against != "" {
		if base, err = contract.NewGitSource(repo, against); err != nil {
			return nil, err
		}
	} else {
		hs, err := contract.NewGitSource(repo, headRev)
		if err != nil {
			return nil, err
		}
		mb, _, err := mergeBase(repo, hs.Commit())
		if err != nil {
			return nil, err
		}
		if base, err = contract.NewGitSource(repo, mb.Hash.String()); err != nil {
			return nil, err
		}
	}
	dirs, err := contract.ChangedDirs(base, head)
	if err != nil {
		return nil, err
	}
	if dirs, err = contract.WithImporters(head, dirs); err != nil {
		return nil, err
	}
	baseTree, err := contract.LoadSubjects(base, dirs, nil)
	if err != nil {
		return nil, err
	}
	headTree, err := contract.LoadSubjects(head, dirs, nil)
	if err != nil {
		return nil, err
	}
	return verdict.Evaluate(verdict.Input{Base: baseTree, Head: headTree, Now: now, OpenedAt: now}), nil
}

// writeReport prints a report in one of the check formats.
func writeReport(cmd *cobra.Command, format string, r *verdict.Report) error {
	w := cmd.OutOrStdout()
	var out string
	switch format {
	case "text":
		out = verdict.Text(r)
	case "markdown":
		out = verdict.Markdown(r, verdict.MarkdownOptions{})
	case "github":
		out = verdict.GitHubActions(r)
	case "json":
		data, err := verdict.JSON(r)
		if err != nil {
			return err
		}
		out = string(data)
	default:
		return fmt.Errorf("unknown --format %q: use text, markdown, json or github", format)
	}
	_, err := io.WriteString(w, out)
	return err
}
