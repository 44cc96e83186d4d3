package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/lineage"
	"github.com/contractbot/contractbot/internal/verdict"
)

func newCheckCmd() *cobra.Command {
	var vb verbosity
	var (
		repoDir, rev, against, overlay, format, now string
		failOn, token, teamsToken, githubURL        string
		cacheDir, adminTeam                         string
		inGitHub, comment                           bool
	)
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Evaluate a change as the bot would: verdict, consumers affected, sign-offs needed",
		Long: `check compares the working tree (or --rev) with the base of the change (--against,
by default the merge base with the default branch) and prints exactly what the bot
would post on the pull request: the class (SAFE, COMPATIBLE, BREAKING), the registry
findings with their lines, every consumer the change touches down to the field and
across lineage hops, the sign-offs it needs and the calendar entry it needs.

Sign-off deadlines count from now (the bot counts from when it first asked a team):
now plus the subject's signoff_hours, 24 by default. --now fixes the moment, so the
output can be reproduced.

Only the subjects that changed, and the subjects their lineage reaches, are loaded, so
the time grows with the change, not with the repository. The working tree is compared
with HEAD as git status compares it: by the stat data in Git's index, reading only the
files whose stat data changed, and listing the folders for new files. The first check
of a repository reads every contract.yaml for the names of the base's subjects; they
are kept per domain folder (by Git tree hash) in .git/contractbot (or --cache-dir), and
a later check reads only the domains that changed since. The folders' listings are
kept there too, with each folder's times: a folder unchanged since is not listed again.

In GitHub Actions (GITHUB_ACTIONS=true without --rev, --against or --overlay; or
--github) check evaluates the workflow's pull request (GITHUB_EVENT_PATH: a
pull_request or pull_request_review event) as the bot does: its reviews are read
through GitHub's API (GITHUB_API_URL) with GITHUB_TOKEN, the members of the teams that
must sign off with CONTRACTBOT_TEAMS_TOKEN (GITHUB_TOKEN cannot list them) or from the
members teams.yaml lists. The report goes to the job summary (GITHUB_STEP_SUMMARY), to the one sticky
comment the bot would keep (signed with CONTRACTBOT_STATE_KEY), and to the commit
status "contractbot: <base>" (one per base branch) that branch protection can require. See docs/operations.md,
"Without the App".

Exit status:
  0  ready to merge (a BREAKING change with its sign-offs and calendar entry)
  1  not ready: findings, sign-offs, a calendar entry, a freeze, file errors
  2  unusable input: a bad flag, revision, repository or event file
With --fail-on breaking, 1 only when the change is BREAKING and lacks what it needs,
or the contract files have errors (the meaning before readiness).`,
		Example: `  contractbot check                   # the working tree against main
  contractbot check --against HEAD~1 --rev HEAD
  contractbot check --overlay examples/changes/amount-to-decimal   # a proposal
  contractbot check --now 2026-12-01T09:00:00Z   # deadlines as of then
  contractbot check --format markdown        # the pull-request comment
  contractbot check --format github          # annotations in GitHub Actions
  contractbot check --github --format github # in a workflow: the gate, reviews`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := nowFlag(now, time.Now().UTC())
			if err != nil {
				return err
			}
			if failOn != "not-ready" && failOn != "breaking" {
				return fmt.Errorf("unknown --fail-on %q: use not-ready or breaking", failOn)
			}
			var r *verdict.Report
			revisions := rev != "" || against != "" || overlay != ""
			pullRequest := inGitHub || (inGitHubActions() && !revisions)
			quiet := false
			if !cmd.Flags().Changed("cache-dir") && !pullRequest {
				// A workflow's checkout is new every run: a cache there is never read.
				cacheDir, quiet = defaultCacheDir(repoDir), true
			}
			if cacheDir != "" {
				if err := contract.LoadFolderCache(cacheDir); err != nil && !quiet {
					fmt.Fprintf(vb.chatty(cmd.ErrOrStderr()), "contractbot: %v; continuing without it.\n", err)
				}
				defer func() {
					if err := contract.SaveFolderCache(cacheDir); err != nil && !quiet {
						fmt.Fprintf(vb.chatty(cmd.ErrOrStderr()), "contractbot: %v; the next check reads every contract.yaml again.\n", err)
					}
				}()
			}
			if pullRequest {
				if revisions {
					return fmt.Errorf("with --github check evaluates the pull request of the workflow's event; --rev, --against and --overlay do not apply")
				}
				g := githubRunFromEnv(token, teamsToken, githubURL, comment)
				g.adminTeam = adminTeamOrEnv(adminTeam)
				r, err = checkPullRequest(cmd, repoDir, g, at)
			} else {
				r, err = evaluateChange(repoDir, rev, against, overlay, cacheDir, at, adminTeamOrEnv(adminTeam))
			}
			if err != nil {
				return err
			}
			if err := writeReport(cmd, format, r, vb.quiet); err != nil {
				return err
			}
			if failed(r, failOn) {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", ".", "the contract repository (a Git working tree)")
	cmd.Flags().StringVar(&rev, "rev", "", "evaluate this revision instead of the working tree")
	cmd.Flags().StringVar(&against, "against", "", "the base revision (default: the merge base with the default branch)")
	cmd.Flags().StringVar(&overlay, "overlay", "", "evaluate the tree with the files of this folder laid over it (a proposed change; no Git needed)")
	cmd.Flags().StringVarP(&format, "format", "o", "text", "output format: text, markdown, json or github")
	vb.add(cmd, "text format: print the verdict's first line only (the class and whether it may merge)", "")
	cmd.Flags().StringVar(&now, "now", "", "evaluate as of this time (RFC 3339, e.g. 2026-12-01T09:00:00Z) instead of the clock: sign-off deadlines (the request time plus signoff_hours), freezes and calendar windows depend on it; for reproducible output")
	cmd.Flags().StringVar(&failOn, "fail-on", "not-ready", "when to exit 1: not-ready (the change may not merge yet) or breaking (only a BREAKING change that lacks what it needs, and contract file errors)")
	cmd.Flags().BoolVar(&inGitHub, "github", false, "evaluate the pull request of a GitHub Actions run (the default when GITHUB_ACTIONS=true)")
	cmd.Flags().StringVar(&token, "token", "", "GitHub token that reads the reviews and writes the comment and status (default $GITHUB_TOKEN)")
	cmd.Flags().StringVar(&teamsToken, "teams-token", "", "GitHub token that can read the organisation's team members (default $CONTRACTBOT_TEAMS_TOKEN)")
	cmd.Flags().StringVar(&githubURL, "github-url", "", "GitHub's REST API URL (default $GITHUB_API_URL, else https://api.github.com)")
	cmd.Flags().StringVar(&cacheDir, "cache-dir", "", "keep the subject names of each domain folder (by Git tree hash) and the working tree's folder listings in this folder, so a later check reads only the domains that changed and lists only the folders that changed (about 6 and 8 MB at 100,000 subjects; safe to delete), and, when core.fsmonitor names a hook (Watchman's), what the last check found in the working tree, so the next one looks only at what the hook reports changed; by default the repository's Git folder, .git/contractbot (not in GitHub Actions); --cache-dir= keeps none")
	cmd.Flags().StringVar(&adminTeam, "admin-team", "", "org/slug of the team that signs off changes to the process (teams, freezes, pii marks), as serve's --admin-team (default $CONTRACTBOT_ADMIN_TEAM, else the team platform of teams.yaml)")
	cmd.Flags().BoolVar(&comment, "comment", true, "in GitHub Actions, keep the sticky comment on the pull request (needs pull-requests: write and CONTRACTBOT_STATE_KEY)")
	return cmd
}

// defaultCacheDir is where check keeps its cache when --cache-dir is not given: in the
// repository's Git folder, which Git never reads or commits, next to its own index.
// Outside a repository, none.
func defaultCacheDir(repoDir string) string {
	repo, err := gitrepo.Open(repoDir)
	if err != nil {
		return ""
	}
	defer repo.Close()
	return filepath.Join(repo.GitDir, "contractbot")
}

// failed reports whether check exits 1 for report r: when the change is not ready to
// merge (the commit status would not be success), or with --fail-on breaking only
// when it is BREAKING and lacks what it needs, or the contract files have errors.
func failed(r *verdict.Report, failOn string) bool {
	if failOn == "breaking" {
		return len(r.Lint) > 0 || (r.Class == verdict.Breaking && !r.Ready)
	}
	return bot.Conclusion(r) != bot.ConclusionSuccess
}

// evaluateChange loads what changed between the base and the head and assesses it.
// With an overlay and no revisions, the base is the working directory as it is and
// no Git repository is needed (its history is used when there is one). With a
// cacheDir, the working tree's folder listings are kept there (folder-listings), and
// the file system monitor's baseline (fsmonitor-baseline).
func evaluateChange(repoDir, rev, against, overlay, cacheDir string, now time.Time, adminTeam string) (*verdict.Report, error) {
	var files map[string][]byte
	if overlay != "" {
		var err error
		if files, err = readOverlay(overlay); err != nil {
			return nil, err
		}
	}
	var c change.Change
	if overlay != "" && rev == "" && against == "" {
		c.Base = contract.NewDirSource(repoDir)
		c.Head = &contract.Overlay{Base: c.Base, Files: files}
		if repo, err := gitrepo.Open(repoDir); err == nil {
			defer repo.Close()
			if h, err := repo.Head(); err == nil {
				c.Repo, c.HistoryAt = repo.Repository, h.Hash()
			}
		}
	} else {
		repo, err := gitrepo.Open(repoDir)
		if err != nil {
			return nil, err
		}
		defer repo.Close()
		if cacheDir != "" {
			repo.ListingCache = filepath.Join(cacheDir, "folder-listings")
			repo.FSMonitorBaseline = filepath.Join(cacheDir, "fsmonitor-baseline")
		}
		base, head, err := gitSources(repo, rev, against)
		if err != nil {
			return nil, err
		}
		if files == nil {
			var l *change.Loaded
			switch h := head.(type) {
			case *contract.GitSource:
				// Two commits: the same load as the bot's and the publisher's.
				l, err = change.Between(repo.Repository, base.Commit().Hash, h.Commit().Hash)
			case *contract.WorkTree:
				// The working tree: what differs from its commit, over that commit.
				l, err = change.From(repo.Repository, base.Commit().Hash, h)
			}
			if err != nil {
				return nil, err
			}
			if l != nil {
				return assessLoaded(l, now, adminTeam), nil
			}
		}
		c.Base, c.Head = base, head
		c.Repo, c.HistoryAt = repo.Repository, base.Commit().Hash
		if files != nil {
			c.Head = &contract.Overlay{Base: head, Files: files}
		}
	}
	l, err := change.Load(c)
	if err != nil {
		return nil, err
	}
	return assessLoaded(l, now, adminTeam), nil
}

// assessLoaded evaluates a loaded change as the bot would at its first evaluation,
// with adminTeam ("org/slug", "" for the base's team platform) signing off changes to
// the process.
func assessLoaded(l *change.Loaded, now time.Time, adminTeam string) *verdict.Report {
	return verdict.Assess(verdict.Input{Base: l.Base, Head: l.Head, History: l.History, Now: now, OpenedAt: now,
		SQLBreaks: lineage.SQLBreaks(l.Base, l.Head), AdminTeam: adminTeam})
}

// adminTeamOrEnv is --admin-team, else $CONTRACTBOT_ADMIN_TEAM.
func adminTeamOrEnv(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv("CONTRACTBOT_ADMIN_TEAM")
}

// errNoCommit says what to do in a repository with no commit, where check has no base.
var errNoCommit = errors.New("the repository has no commit yet, so check has no base to compare with; " +
	"commit the contracts first (git add -A && git commit -m 'Contracts'), " +
	"or run 'contractbot lint' to check the tree as it is")

// gitSources opens the head (the working tree, or rev) and the base (against, or the
// merge base with the default branch) of a change. The working tree is read as HEAD
// with what differs from it (contract.WorkTree), so that what did not change is read
// from Git's trees as a commit's is; with no commit yet, as a plain folder.
func gitSources(repo *gitrepo.Repo, rev, against string) (base *contract.GitSource, head contract.Source, err error) {
	headRev := "HEAD"
	if rev != "" {
		headRev = rev
	} else if repo.Root == "" {
		return nil, nil, fmt.Errorf("a bare repository has no working tree; name the revision to check with --rev")
	}
	hs, herr := contract.NewGitSource(repo.Repository, headRev)
	switch {
	case herr == nil && rev == "":
		head = workTree(repo, hs)
	case herr == nil:
		head = hs
	case rev != "":
		return nil, nil, herr
	default:
		head = contract.NewDirSource(repo.Root)
	}
	if against != "" {
		base, err = contract.NewGitSource(repo.Repository, against)
		return base, head, err
	}
	if herr != nil {
		if _, err := repo.Head(); errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, nil, errNoCommit
		}
		return nil, nil, herr
	}
	mb, _, err := gitrepo.MergeBase(repo.Repository, hs.Commit())
	if err != nil {
		return nil, nil, err
	}
	base, err = contract.NewGitSource(repo.Repository, mb.Hash.String())
	return base, head, err
}

// workTree is the working tree of repo, checked out from commit: the paths that
// differ from it are found with Git's index, as `git status` finds them. An index
// that cannot be read (damaged, or of a kind go-git does not read) leaves the whole
// folder to be read: slower, the same verdict.
func workTree(repo *gitrepo.Repo, commit *contract.GitSource) contract.Source {
	diff, err := repo.WorktreeDiff(commit.Commit().TreeHash)
	if err != nil {
		return contract.NewDirSource(repo.Root)
	}
	return contract.NewWorkTree(commit, repo.Root, diff.Paths, diff.Dirs)
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

// writeReport prints a report in one of the check formats; quiet keeps the text's
// first line only.
func writeReport(cmd *cobra.Command, format string, r *verdict.Report, quiet bool) error {
	w := cmd.OutOrStdout()
	var out string
	switch format {
	case "text":
		out = verdict.Text(r)
		if quiet {
			first, _, _ := strings.Cut(out, "\n")
			out = first + "\n"
		}
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
