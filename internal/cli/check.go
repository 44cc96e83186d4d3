package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/verdict"
	"github.com/contractbot/contractbot/internal/versions"
)

func newCheckCmd() *cobra.Command {
	var (
		repoDir, rev, against, overlay, format, now string
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
  contractbot check --overlay examples/changes/remove-order-amount   # a proposed change
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
			r, err := evaluateChange(repoDir, rev, against, overlay, at)
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
	cmd.Flags().StringVar(&overlay, "overlay", "", "evaluate the tree with the files of this folder laid over it (a proposed change; no Git needed)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, markdown, json or github")
	cmd.Flags().StringVar(&now, "now", "", "evaluate as of this time (RFC 3339), for reproducible output")
	_ = cmd.Flags().MarkHidden("now")
	return cmd
}

// evaluateChange loads what changed between the base and the head and evaluates it.
// With an overlay and no revisions, the base is the working directory as it is and
// no Git repository is needed (its history is used when there is one).
func evaluateChange(repoDir, rev, against, overlay string, now time.Time) (*verdict.Report, error) {
	var files map[string][]byte
	if overlay != "" {
		var err error
		if files, err = readOverlay(overlay); err != nil {
			return nil, err
		}
	}
	var (
		base, head contract.Source
		hist       *history
	)
	if overlay != "" && rev == "" && against == "" {
		base = contract.NewDirSource(repoDir)
		head = &contract.Overlay{Base: base, Files: files}
		if repo, err := gitrepo.Open(repoDir); err == nil {
			defer repo.Close()
			if h, err := repo.Head(); err == nil {
				hist = &history{repo: repo, at: h.Hash()}
			}
		}
	} else {
		repo, err := gitrepo.Open(repoDir)
		if err != nil {
			return nil, err
		}
		defer repo.Close()
		var baseSrc *contract.GitSource
		if baseSrc, head, err = gitSources(repo, rev, against); err != nil {
			return nil, err
		}
		base = baseSrc
		hist = &history{repo: repo, at: baseSrc.Commit().Hash}
		if files != nil {
			head = &contract.Overlay{Base: head, Files: files}
		}
	}
	dirs, err := contract.ChangedDirs(base, head)
	if err != nil {
		return nil, err
	}
	if dirs, err = contract.WithImporters(head, dirs); err != nil {
		return nil, err
	}
	baseIndex, err := contract.IndexSubjects(base)
	if err != nil {
		return nil, err
	}
	headIndex, err := contract.UpdateIndex(baseIndex, head, dirs)
	if err != nil {
		return nil, err
	}
	baseTree, err := contract.LoadSubjects(base, dirs, baseIndex)
	if err != nil {
		return nil, err
	}
	headTree, err := contract.LoadSubjects(head, dirs, headIndex)
	if err != nil {
		return nil, err
	}
	in := verdict.Input{Base: baseTree, Head: headTree, Now: now, OpenedAt: now}
	if hist != nil {
		if in.History, err = hist.earlierVersions(baseTree, headTree); err != nil {
			return nil, err
		}
	}
	return verdict.Evaluate(in), nil
}

// history finds the earlier versions of schemas, for the _TRANSITIVE levels.
type history struct {
	repo *gitrepo.Repo
	at   plumbing.Hash
}

// earlierVersions reads the distinct earlier contents of the schema files of the
// changed subjects whose level is transitive, along the base's first-parent history.
func (h *history) earlierVersions(base, head *contract.Tree) (func(string) []checker.Input, error) {
	bySubject := map[string]string{}
	var paths []string
	for _, s := range head.Subjects {
		lvl, err := checker.ParseLevel(s.Compatibility)
		if b := base.Subject(s.Subject); err == nil && lvl.Transitive() && b != nil && b.SchemaFile != "" {
			bySubject[s.Subject] = b.SchemaFile
			paths = append(paths, b.SchemaFile)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	found, err := versions.PathHistory(h.repo.Repository, h.at, paths)
	if err != nil {
		return nil, fmt.Errorf("read schema history: %w", err)
	}
	return func(subject string) []checker.Input {
		file := bySubject[subject]
		current := plumbing.ComputeHash(plumbing.BlobObject, base.Subject(subject).SchemaText)
		var out []checker.Input
		for i, blob := range found[file] {
			if blob == current {
				continue
			}
			data, err := versions.ReadBlob(h.repo.Repository, blob)
			if err != nil {
				continue
			}
			out = append(out, checker.Input{Path: fmt.Sprintf("%s@%d", file, i+1), Data: data})
		}
		return out
	}, nil
}

// gitSources opens the head (the working tree, or rev) and the base (against, or the
// merge base with the default branch) of a change.
func gitSources(repo *gitrepo.Repo, rev, against string) (base *contract.GitSource, head contract.Source, err error) {
	headRev := "HEAD"
	if rev != "" {
		headRev = rev
		if head, err = contract.NewGitSource(repo.Repository, rev); err != nil {
			return nil, nil, err
		}
	} else {
		if repo.Root == "" {
			return nil, nil, fmt.Errorf("a bare repository has no working tree; name the revision to check with --rev")
		}
		head = contract.NewDirSource(repo.Root)
	}
	if against != "" {
		base, err = contract.NewGitSource(repo.Repository, against)
		return base, head, err
	}
	hs, err := contract.NewGitSource(repo.Repository, headRev)
	if err != nil {
		return nil, nil, err
	}
	mb, _, err := mergeBase(repo.Repository, hs.Commit())
	if err != nil {
		return nil, nil, err
	}
	base, err = contract.NewGitSource(repo.Repository, mb.Hash.String())
	return base, head, err
}

// readOverlay reads every file under dir, keyed by its path relative to dir.
func readOverlay(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file; an overlay holds plain files", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read overlay %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("overlay %s holds no files", dir)
	}
	return files, nil
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
