package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gctune"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/lineage"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
	"github.com/contractbot/contractbot/internal/verdict"
	"github.com/contractbot/contractbot/internal/versions"
)

// repoFlags are the flags of every command that reads a contract tree.
type repoFlags struct {
	repo string
	rev  string
}

func (r *repoFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.repo, "repo", ".", "the contract repository (a directory; with --rev, a Git repository)")
	cmd.Flags().StringVar(&r.rev, "rev", "", "read the tree at this Git revision (HEAD~1, a branch, a commit) instead of the working directory")
}

// source opens the working directory or the revision.
func (r *repoFlags) source() (contract.Source, error) {
	if r.rev == "" {
		return contract.NewDirSource(r.repo), nil
	}
	return contract.OpenRevision(r.repo, r.rev)
}

func newLintCmd() *cobra.Command {
	var rf repoFlags
	var format, events, cacheDir, against string
	var withHistory, stats bool
	var vb verbosity
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check every file of the contract repository and report all problems at once",
		Long: `lint loads contracts/ and calendar/ and checks them: YAML syntax and keys, schemas
that parse, owners that exist, reads and lineage fields that exist in their schemas,
paths that stay inside the repository, and size limits. Every problem is reported with
file:line:column and what to write instead. Exit status 1 when there is any error.

With --history, lint also checks the default branch's history (origin/HEAD, origin/main,
origin/master, main or master; HEAD when none exists): every version of every subject
against the version(s) its compatibility level reached at the commit where it appeared,
as a registry would have. A commit that broke its subject's level went around the bot;
it is named in a warning (history-broke-level), since history cannot be rewritten.`,
		Example: `  contractbot lint
  contractbot lint --repo ../contracts --rev origin/main
  contractbot lint --format github    # annotations in GitHub Actions
  contractbot lint --history          # and commits that broke their level
  contractbot lint --stats --openlineage events.jsonl   # declared and observed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := rf.source()
			if err != nil {
				return err
			}
			// --stats reads what a lean load drops (reads, field paths of every
			// subject, schemas): it loads the whole tree.
			tree, err := loadForLint(cmd, src, cacheDir, !stats && events == "")
			if err != nil {
				return err
			}
			explainRemovedFields(rf, against, tree)
			if withHistory {
				ds, err := historyDiagnostics(rf.repo)
				if err != nil {
					return err
				}
				tree.Diagnostics = append(tree.Diagnostics, ds...)
				tree.Diagnostics.Sort()
			}
			if format == "text" && vb.verbose {
				writeSubjects(cmd.OutOrStdout(), tree)
			}
			if format == "text" && vb.quiet {
				writeErrors(cmd.OutOrStdout(), tree.Diagnostics)
			} else if err := writeDiagnostics(cmd.OutOrStdout(), format, tree); err != nil {
				return err
			}
			if (stats || events != "") && format == "text" && !vb.quiet {
				if err := writeStats(cmd.OutOrStdout(), tree, events); err != nil {
					return err
				}
			}
			if tree.Diagnostics.Errors() > 0 {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().StringVarP(&format, "format", "o", "text", "output format: text, json or github (GitHub Actions ::error lines)")
	cmd.Flags().BoolVar(&stats, "stats", false, "also print the lineage coverage (text format; docs/lineage.md)")
	cmd.Flags().StringVar(&events, "openlineage", "", "with --stats: compare the declared reads with the OpenLineage events of this JSON-lines file (serve's --lineage-events file, or a file transport's)")
	cmd.Flags().StringVar(&cacheDir, "cache-dir", "", "keep what parsing each schema gave in this folder (by content hash, for this build of contractbot), so a later lint parses only the schemas that changed (about 10 MB at 10,000 subjects; safe to delete)")
	cmd.Flags().StringVar(&against, "against", "", "the base a consumer file's read of a removed field is told against (default: the merge base with the default branch)")
	vb.add(cmd, "text format: print the errors only (no warnings, no summary line, no --stats)", "text format: also list every subject read, with its folder, format, level and consumers")
	cmd.Flags().BoolVar(&withHistory, "history", false, "also name the commits of the default branch that broke their subject's compatibility level")
	return cmd
}

// writeStats prints the declared lineage coverage and, given an events file, how the
// declared reads compare with the observed ones.
func writeStats(w io.Writer, tree *contract.Tree, events string) error {
	if events == "" {
		lineage.Coverage(tree).WriteText(w)
		fmt.Fprintln(w, "Observed lineage: not compared; give --openlineage FILE.jsonl (serve's --lineage-events file) to compare the declared reads with what jobs were seen doing.")
		return nil
	}
	evs, err := readEvents(events, "")
	if err != nil {
		return err
	}
	fig := lineage.Compute(tree, openlineage.Observe(evs), lineage.Own)
	fig.Stats.WriteText(w)
	fig.Observation.WriteText(w, len(evs), events)
	return nil
}

// lintLivePerSubject is about what a lean lint keeps live per subject folder: at
// 100,000 generated subjects (two consumers each) the live heap ends near 575 MB.
// Before the load lint asks for a soft limit of the CLI's floor above that, so the
// collector always has about the floor to allocate into between cycles. A limit
// trailing the live heap at twice its size ran the collector 58 times at 100,000
// subjects; 1.2 GiB set from the start, 46 (peak RSS 1,157 MiB). 100,000 subjects ask
// for 1.3 GiB, within issue 31's 1.5 GB; 50,000 for 1.0 GiB.
const lintLivePerSubject = 6 << 10

// loadForLint loads the tree, through the parse cache in cacheDir when one is given,
// keeping of each subject only what lint's checks need when lean
// (contract.LoadForLint). A cache that cannot be written is a warning: lint's result
// does not depend on it.
func loadForLint(cmd *cobra.Command, src contract.Source, cacheDir string, lean bool) (*contract.Tree, error) {
	load := contract.LoadCached
	if lean {
		load = func(src contract.Source, c *contract.ParseCache) (*contract.Tree, error) {
			return contract.LoadForLint(src, c, func(subjects int) {
				gctune.Expect(gctune.CLIFloor + int64(subjects)*lintLivePerSubject)
			})
		}
	}
	if cacheDir == "" {
		return load(src, nil)
	}
	id, err := buildID()
	if err != nil {
		return nil, fmt.Errorf("lint with --cache-dir %s: %w", cacheDir, err)
	}
	pc := contract.OpenParseCache(cacheDir, id)
	tree, err := load(src, pc)
	if err != nil {
		return nil, err
	}
	if err := pc.Save(); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "contractbot: %v; the next lint parses every schema again.\n", err)
	}
	return tree, nil
}

// explainRemovedFields rewords the errors of consumer files that read a field the
// change removes (contract.Tree.RemovedFields), the base being --against or the merge
// base of the revision linted (HEAD for the working tree) with the default branch.
// Best effort: without Git, or without a base, the errors keep their wording.
func explainRemovedFields(rf repoFlags, against string, tree *contract.Tree) {
	var dirs []string
	for _, d := range tree.Diagnostics {
		if d.Code != contract.CodeUnknownField || d.Field == "" {
			continue
		}
		if s := tree.Subject(tree.SubjectOfConsumerFile(d.File)); s != nil && !slices.Contains(dirs, s.Dir) {
			dirs = append(dirs, s.Dir)
		}
	}
	if len(dirs) == 0 {
		return
	}
	repo, err := gitrepo.Open(rf.repo)
	if err != nil {
		return
	}
	defer repo.Close()
	name := against
	if against == "" {
		rev := rf.rev
		if rev == "" {
			rev = "HEAD"
		}
		hs, err := contract.NewGitSource(repo.Repository, rev)
		if err != nil {
			return
		}
		mb, branch, err := gitrepo.MergeBase(repo.Repository, hs.Commit())
		if err != nil {
			return
		}
		against, name = mb.Hash.String(), fmt.Sprintf("%s (%.12s)", branch, mb.Hash)
	}
	base, err := contract.NewGitSource(repo.Repository, against)
	if err != nil {
		return
	}
	baseTree, err := contract.LoadSubjects(base, dirs, nil)
	if err != nil {
		return
	}
	tree.RemovedFields(baseTree, name)
}

// historyDiagnostics audits the default branch of the repository at dir.
func historyDiagnostics(dir string) (contract.Diagnostics, error) {
	var ds contract.Diagnostics
	err := withHistory(dir, func(_ *gitrepo.Repo, _ *versions.Index, bs []history.Break) error {
		ds = history.Diagnostics(bs)
		return nil
	})
	return ds, err
}

// withHistory opens the repository at dir, builds the versions index of its default
// branch (HEAD when it has none), audits it, and calls fn with the three.
func withHistory(dir string, fn func(*gitrepo.Repo, *versions.Index, []history.Break) error) error {
	repo, _, head, err := openDefaultBranch(dir)
	if err != nil {
		return fmt.Errorf("audit the history of %s: %w", dir, err)
	}
	defer repo.Close()
	ix, bs, err := auditHistory(repo, head)
	if err != nil {
		return fmt.Errorf("audit the history of %s: %w", dir, err)
	}
	return fn(repo, ix, bs)
}

// openDefaultBranch opens the repository at dir and resolves its default branch
// (HEAD when it has none): its name and head. Its callers read the history or a tree
// once, so the object cache is the small one for a pass (gitrepo.PassObjectCache).
func openDefaultBranch(dir string) (*gitrepo.Repo, string, plumbing.Hash, error) {
	repo, err := gitrepo.OpenWithCache(dir, gitrepo.PassObjectCache)
	if err != nil {
		return nil, "", plumbing.ZeroHash, err
	}
	branch, err := gitrepo.DefaultBranch(repo.Repository)
	if err != nil {
		branch = "HEAD"
	}
	head, err := gitrepo.ResolveBranch(repo.Repository, branch)
	if err != nil {
		repo.Close()
		return nil, "", plumbing.ZeroHash, err
	}
	return repo, branch, head, nil
}

// auditHistory builds the versions index of the first-parent history ending at head
// and audits it.
func auditHistory(repo *gitrepo.Repo, head plumbing.Hash) (*versions.Index, []history.Break, error) {
	ix, err := versions.Build(repo.Repository, head)
	if err != nil {
		return nil, nil, err
	}
	bs, err := history.Audit(repo.Storer, ix)
	if err != nil {
		return nil, nil, err
	}
	return ix, bs, nil
}

// writeDiagnostics prints a tree's diagnostics in one of the lint formats.
func writeDiagnostics(w io.Writer, format string, tree *contract.Tree) error {
	ds := tree.Diagnostics
	switch format {
	case "text":
		for _, d := range ds {
			fmt.Fprintln(w, d.String())
		}
		errs := ds.Errors()
		fmt.Fprintf(w, "%d subject(s), %d consumer(s), %d team(s): %d error(s), %d warning(s)\n",
			len(tree.Subjects), countConsumers(tree), len(tree.Teams), errs, len(ds)-errs)
		return nil
	case "json":
		out := struct {
			Subjects    int                  `json:"subjects"`
			Consumers   int                  `json:"consumers"`
			Teams       int                  `json:"teams"`
			Errors      int                  `json:"errors"`
			Diagnostics contract.Diagnostics `json:"diagnostics"`
		}{len(tree.Subjects), countConsumers(tree), len(tree.Teams), ds.Errors(), ds}
		if out.Diagnostics == nil {
			out.Diagnostics = contract.Diagnostics{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "github":
		_, err := io.WriteString(w, lintActions(ds))
		return err
	}
	return fmt.Errorf("unknown --format %q: use text, json or github", format)
}

// lintActions prints diagnostics as GitHub Actions annotations: errors before
// warnings, at most verdict.MaxActionsAnnotations of them (a run's log is not the
// place for 100,000 lines, and GitHub shows only the first few of each kind on the
// run's page), then one summary line that counts what was left out.
func lintActions(ds contract.Diagnostics) string {
	ordered := make(contract.Diagnostics, 0, len(ds))
	for _, d := range ds {
		if d.Severity != contract.Warning {
			ordered = append(ordered, d)
		}
	}
	for _, d := range ds {
		if d.Severity == contract.Warning {
			ordered = append(ordered, d)
		}
	}
	var b strings.Builder
	kept := min(len(ordered), verdict.MaxActionsAnnotations)
	for _, d := range ordered[:kept] {
		level := "error"
		if d.Severity == contract.Warning {
			level = "warning"
		}
		b.WriteString(verdict.ActionsCommand(level, d.Message, "file", d.File, "line", strconv.Itoa(d.Line), "col", strconv.Itoa(d.Column), "title", d.Code))
	}
	errs := ds.Errors()
	summary := fmt.Sprintf("%d error(s), %d warning(s).", errs, len(ds)-errs)
	if left := len(ordered) - kept; left > 0 {
		summary += fmt.Sprintf(" %d more diagnostic(s) are not annotated here; run contractbot lint for the whole list.", left)
	}
	switch {
	case errs > 0:
		b.WriteString(verdict.ActionsCommand("error", summary, "title", "contractbot lint"))
	case len(ds) > 0:
		b.WriteString(verdict.ActionsCommand("warning", summary, "title", "contractbot lint"))
	}
	return b.String()
}

// writeErrors prints the errors among ds, one a line, and nothing else (lint -q).
func writeErrors(w io.Writer, ds contract.Diagnostics) {
	for _, d := range ds {
		if d.Severity != contract.Warning {
			fmt.Fprintln(w, d.String())
		}
	}
}

// writeSubjects lists the subjects lint read, in the tree's order (lint -v).
func writeSubjects(w io.Writer, tree *contract.Tree) {
	for _, s := range tree.Subjects {
		fmt.Fprintf(w, "read %s: %s, %s, %s, owner %s, %d consumer(s)\n",
			s.Subject, s.Dir, s.Format, s.Compatibility, s.Owner, len(s.Consumers))
	}
}

func countConsumers(t *contract.Tree) int {
	n := 0
	for _, s := range t.Subjects {
		n += len(s.Consumers)
	}
	return n
}
