package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/versions"
)

func newReportCmd() *cobra.Command {
	var vb verbosity
	var repoDir, format, now, cacheDir, eventsFile, githubRepo, githubURL, botLogin, sampleFile string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Print the repository's health: unused subjects, lineage coverage, deprecated reads, history that broke its level",
		Long: `report reads the default branch of a contract repository (origin/HEAD, origin/main,
origin/master, main or master; HEAD when none exists): its tree at the head and its
first-parent history. It lists the subjects no consumer reads (with their age from the
history), the jobs that declare no lineage (black boxes) and the share that do, the
consumers still reading deprecated fields, and the commits that broke their subject's
compatibility level (as lint --history). How changes reached the branch comes from
its first-parent history (commits that changed contracts/ through a pull request or
straight to the branch) or, with --events, from the change events log the bot wrote
(merged on the verdict or on an override: the automation rate; the sign-off latency,
median and p90), or, with --github, from the bot's signed comments on the merged
pull requests. Figures that live on GitHub (publish marks) are named as not
derived.

With --cache-dir, the versions index of the branch (in versions/, as serve keeps it:
give serve's --cache-dir to share it) and the audit of the history (in audit/) are kept
in that folder, and the next report reads only the commits made since
(docs/report.md).`,
		Example: `  contractbot report
  contractbot report --format markdown > health.md
  contractbot report --format json
  contractbot report --events events.jsonl   # automation rate, sign-off latency
  contractbot report --cache-dir ~/.cache/contractbot   # reads only new commits`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := nowFlag(now, time.Now().UTC())
			if err != nil {
				return err
			}
			render, ok := map[string]func(*report.Health) string{"text": report.Text, "json": report.JSON, "markdown": report.Markdown}[format]
			if !ok {
				return fmt.Errorf("unknown --format %q: use text, json or markdown", format)
			}
			var cache *reportCache
			if cacheDir != "" {
				id, err := buildID()
				if err != nil {
					return fmt.Errorf("report with --cache-dir %s: %w", cacheDir, err)
				}
				cache = &reportCache{dir: cacheDir, build: id,
					log: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: vb.logLevel(slog.LevelWarn)}))}
			}
			r, err := buildReport(repoDir, cache, at)
			if err != nil {
				return err
			}
			var gh *botComments
			if githubRepo != "" && eventsFile == "" {
				log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: vb.logLevel(slog.LevelError)}))
				if gh, err = newBotComments(cmd.Context(), githubRepo, githubURL, botLogin, log); err != nil {
					return err
				}
			}
			a, err := automation(cmd.Context(), repoDir, eventsFile, gh)
			if err != nil {
				return err
			}
			r.SetAutomation(a)
			if sampleFile != "" {
				s, err := readSampleResult(sampleFile)
				if err != nil {
					return err
				}
				r.SetSampled(s.Sampled(sampleFile))
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), render(r))
			return err
		},
	}
	cmd.Flags().StringVar(&repoDir, "repo", ".", "the contract repository (a Git repository)")
	cmd.Flags().StringVarP(&format, "format", "o", "text", "output format: text, json or markdown")
	vb.add(cmd, "log errors only on stderr (not the cache's warnings)", "also log what --cache-dir and --github read and wrote, on stderr")
	cmd.Flags().StringVar(&githubRepo, "github", "", "owner/name of the repository on GitHub (not with --events): the override and sign-offs of each merged pull request come from the bot's verified comment on it (GITHUB_TOKEN; CONTRACTBOT_STATE_KEY or CONTRACTBOT_WEBHOOK_SECRET)")
	cmd.Flags().StringVar(&githubURL, "github-url", "", "with --github: GitHub Enterprise API base URL")
	cmd.Flags().StringVar(&botLogin, "bot-login", "", "with --github: the login the bot writes as (\"<app-slug>[bot]\" for an App; default: the token's user)")
	cmd.Flags().StringVar(&eventsFile, "events", "", "the change events log (JSON lines, as --publish-events file:PATH writes it): the automation rate and the sign-off latency come from it")
	cmd.Flags().StringVar(&cacheDir, "cache-dir", "", "keep the versions index (versions/, shared with serve's) and the history's audit (audit/) in this folder, and read only the commits made since the last report")
	cmd.Flags().StringVar(&sampleFile, "sample", "", "the result of contractbot sample --format json: list the topics whose data departs from the contract")
	cmd.Flags().StringVar(&now, "now", "", "report as of this time (RFC 3339) instead of the clock: ages depend on it")
	// The two sources of the automation figures exclude each other: one is read, so
	// naming both would silently ignore one.
	cmd.MarkFlagsMutuallyExclusive("events", "github")
	return cmd
}

// reportCache is where report keeps what it can compute again (--cache-dir): the
// versions index in versions/ (serve's layout and files, so the two share it) and the
// audit of the history in audit/, valid for the build that wrote it.
type reportCache struct {
	dir, build string
	log        *slog.Logger
}

// indexAndAudit returns the versions index of the first-parent history ending at head
// and its audit: restored from the cache and extended, or computed and saved.
func (c *reportCache) indexAndAudit(repo *gitrepo.Repo, dir, branch string, head plumbing.Hash) (*versions.Index, []history.Break, error) {
	if c == nil {
		return auditHistory(repo, head)
	}
	ixs := &versions.Cache{Dir: filepath.Join(c.dir, "versions"), Repo: dir, Branch: branch, Log: c.log}
	ix, _, err := ixs.Index(repo.Repository, head)
	if err != nil {
		return nil, nil, err
	}
	audits := &history.Cache{Dir: filepath.Join(c.dir, "audit"), Repo: dir, Branch: branch, Build: c.build, Log: c.log}
	bs, _, err := audits.Audit(repo.Storer, ix)
	if err != nil {
		return nil, nil, err
	}
	return ix, bs, nil
}

// buildReport builds the report of the repository at dir as of at: the versions
// index of the history is built and audited, then the tree at the head of the default
// branch is loaded without its schemas (no section reads them). One after the other,
// not side by side: at 100,000 subjects the two at once held their peaks together
// (live heap over 1 GB, 1.7 GB resident), and the soft memory limit follows the live
// heap; of the index, the tree's load sees only what the report reads. cache, when
// not nil, keeps the index and the audit between runs.
func buildReport(dir string, cache *reportCache, at time.Time) (*report.Health, error) {
	repo, branch, head, err := openDefaultBranch(dir)
	if err != nil {
		return nil, fmt.Errorf("report on %s: %w", dir, err)
	}
	ix, bs, err := cache.indexAndAudit(repo, dir, branch, head)
	repo.Close() // its pack index and object cache go before the tree is read
	if err != nil {
		return nil, fmt.Errorf("audit the history of %s: %w", dir, err)
	}
	indexed := report.IndexedOf(ix) // and the index, but for what the report reads
	tree, err := loadWithoutSchemas(dir, head)
	if err != nil {
		return nil, fmt.Errorf("report on %s: %w", dir, err)
	}
	return report.BuildIndexed(tree, indexed, bs, at), nil
}

// loadWithoutSchemas loads the tree at a commit of the repository at dir, on its own
// handle of the repository, without reading its schemas and keeping of each subject
// what the report reads (contract.LoadForReport). It reads each object once: the
// object cache is the small one for a pass. The tree returned reads nothing more
// from the repository (see contract.Releasable).
func loadWithoutSchemas(dir string, commit plumbing.Hash) (*contract.Tree, error) {
	repo, err := gitrepo.OpenWithCache(dir, gitrepo.PassObjectCache)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	src, err := contract.NewGitSource(repo.Repository, commit.String())
	if err != nil {
		return nil, err
	}
	return loadForReport(src)
}

// loadForReport is contract.LoadForReport of src, with a tree that does not keep src.
func loadForReport(src contract.Source) (*contract.Tree, error) {
	r := contract.NewReleasable(src)
	defer r.Release()
	return contract.LoadForReport(r)
}

// buildID identifies this build of contractbot, for caches whose content depends on
// the code (the history audit): the module version and the VCS revision it was built
// from when its tree was clean, else a digest of the executable. Computed once.
var buildID = sync.OnceValues(func() (string, error) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" && modified == "false" {
			return bi.Main.Version + " " + rev, nil
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the executable to identify this build: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("read the executable to identify this build: %w", err)
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("read the executable to identify this build: %w", err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
})
