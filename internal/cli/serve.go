package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gctune"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/guard"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/outbound"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/versions"
	"github.com/contractbot/contractbot/internal/web"
)

// serveFlags are serve's settings, from its flags.
type serveFlags struct {
	logs                     logFlags
	addr, metricsAddr        string
	lineageEvents            string
	lineageToken             string
	lineageAnyone            bool
	githubURL, cacheDir      string
	workers, queue           int
	repos                    []string
	every                    time.Duration
	appID                    int64
	appKeyFile, adminTeam    string
	slackAPIURL              string
	remindBefore             []time.Duration
	repoDir, branch          string
	publishEvents, publishTo string
	driftURL, driftChannel   string
	opsChannel               string
	driftEvery               time.Duration
	digestRepo, githubRepo   string
	publicURL                string
	sampling                 serveSampleFlags
	maxConns                 int
	pprofAddr                string
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the contract repository (pages, schema registry, calendar feeds) and, with GitHub credentials, run the pull-request bot",
		Long: `serve serves the default branch of --repo, a local clone (--branch, else the first
of origin/HEAD, origin/main, origin/master, main and master; never what is checked
out): the pages (/), a read-only Confluent Schema Registry API (/registry/), the
calendar as iCalendar feeds (/calendar.ics), the contract files' JSON Schemas
(/schemas/), OpenLineage events (/api/v1/lineage), /healthz, /readyz and /metrics.

With GitHub credentials (GITHUB_TOKEN, or --app-id and --app-key-file) and
CONTRACTBOT_WEBHOOK_SECRET, serve also runs the bot: POST /webhook takes GitHub's
deliveries and each pull request gets the verdict 'contractbot check' prints, as one
sticky comment, a check run, review requests and labels. SLACK_BOT_TOKEN adds
reminders and escalations on Slack.

The routes, the environment, the permissions and every flag: docs/operations.md.`,
		Example: `  contractbot serve                  # pages, registry, feeds on 127.0.0.1:8080
  contractbot serve --repo /srv/contracts --branch origin/main \
      --addr 0.0.0.0:8080
  CONTRACTBOT_WEBHOOK_SECRET=... GITHUB_TOKEN=... contractbot serve --addr :8080
  contractbot serve --app-id 123456 --app-key-file app.pem \
      --reconcile acme/contracts
  contractbot serve --github-url https://github.example.com/api/v3/ # Enterprise`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			serveGC()
			log, err := f.logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return f.serve(ctx, log)
		},
	}
	f.sampling.add(cmd)
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().IntVar(&f.maxConns, "max-connections", server.DefaultMaxConns, "connections held at once; past it new ones wait in the kernel's accept queue (keep it well under ulimit -n)")
	cmd.Flags().StringVar(&f.publicURL, "public-url", "", "where people reach these pages (https://contracts.example.com), for the calendar feeds' links")
	cmd.Flags().StringVar(&f.lineageEvents, "lineage-events", "", "keep the OpenLineage events received at POST /api/v1/lineage in this JSON-lines file too (default: memory only)")
	cmd.Flags().StringVar(&f.lineageToken, "lineage-token", "", "take OpenLineage events at POST /api/v1/lineage only with this bearer token; prefer CONTRACTBOT_LINEAGE_TOKEN (ps shows flags)")
	cmd.Flags().BoolVar(&f.lineageAnyone, "insecure-lineage-without-token", false, "take OpenLineage events from anyone, with no token (without a token or this flag POSTs get 403)")
	cmd.Flags().StringVar(&f.pprofAddr, "pprof-addr", "", "serve Go's profiles (/debug/pprof/) on this loopback address (127.0.0.1:6060)")
	cmd.Flags().StringVar(&f.metricsAddr, "metrics-addr", "", "serve /metrics on this address only, instead of beside the webhook and pages on --addr")
	f.logs.register(cmd.Flags())
	cmd.Flags().StringVar(&f.repoDir, "repo", ".", "the contract repository (a local Git clone) whose default branch is served")
	cmd.Flags().StringVar(&f.branch, "branch", "", "the branch served (default: the first of origin/HEAD, origin/main, origin/master, main and master that exists)")
	cmd.Flags().StringVar(&f.githubURL, "github-url", "", "GitHub Enterprise API base URL (default: github.com)")
	cmd.Flags().StringVar(&f.cacheDir, "cache-dir", "", "where serve keeps what it can compute again: the versions index and the bot's clones (default: contractbot in the user cache folder)")
	cmd.Flags().IntVar(&f.workers, "workers", runtime.NumCPU(), "pull requests evaluated in parallel")
	cmd.Flags().IntVar(&f.queue, "queue", 1000, "pull requests that may wait; beyond that webhooks get 503")
	cmd.Flags().Int64Var(&f.appID, "app-id", 0, "authenticate as this GitHub App (with --app-key-file) instead of GITHUB_TOKEN")
	cmd.Flags().StringVar(&f.appKeyFile, "app-key-file", "", "the GitHub App's private key (PEM)")
	cmd.Flags().DurationSliceVar(&f.remindBefore, "remind-before", bot.DefaultMarks, "when to remind a team before its sign-off deadline (whole hours)")
	cmd.Flags().StringVar(&f.publishEvents, "publish-events", "", "publish pushes to the default branch, sending change events here (file:PATH, http(s)://..., kafka:BROKERS/TOPIC); the commit status contractbot/publish marks each commit done")
	cmd.Flags().StringVar(&f.publishTo, "publish-registry", "", "with --publish-events: also register the versions in this schema registry (Confluent API)")
	cmd.Flags().StringVar(&f.driftURL, "drift-registry", "", "compare Git with this live registry every --drift-every and alert on Slack when they drift (needs SLACK_BOT_TOKEN)")
	cmd.Flags().StringVar(&f.driftChannel, "drift-channel", "", "Slack channel for drift alerts (default: --ops-channel)")
	cmd.Flags().StringVar(&f.opsChannel, "ops-channel", "", "Slack channel for operations alerts: the embedded registry degraded, and drift (default: the platform team's channel in teams.yaml; needs SLACK_BOT_TOKEN)")
	cmd.Flags().DurationVar(&f.driftEvery, "drift-every", time.Hour, "how often the drift check runs")
	cmd.Flags().StringVar(&f.digestRepo, "digest", "", "owner/name of --repo on GitHub: send each team lead its part of the health report on Slack once a month (needs the bot and SLACK_BOT_TOKEN)")
	cmd.Flags().StringVar(&f.githubRepo, "github-repo", "", "owner/name: --repo's repository on GitHub, where the replicas claim the alerts that must go out once (calendar reminders, drift, sampling and degraded-registry alerts: commit statuses on the branch's first commit; needs the bot) (default: --digest's, else the only --reconcile repository; without one each replica reads Slack before it posts, which two replicas at one instant may both do)")
	cmd.Flags().StringVar(&f.adminTeam, "admin-team", "", "org/slug of the team whose members may /contractbot override")
	cmd.Flags().StringVar(&f.slackAPIURL, "slack-api-url", "", "base URL of the Slack Web API (default https://slack.com/api/): a Slack-compatible endpoint or a test double")
	cmd.Flags().StringSliceVar(&f.repos, "reconcile", nil, "owner/name of repositories whose open pull requests are re-evaluated periodically (reminders, missed webhooks)")
	cmd.Flags().DurationVar(&f.every, "reconcile-every", 5*time.Minute, "how often the reconcile loop runs")
	return cmd
}

// serveObjectCache is the object cache of the repository serve reads: it reads most
// objects once (the tree at a commit, the versions' texts), so go-git's default of
// 96 MiB would mostly hold memory (docs/performance.md, "Web pages (serve)").
const serveObjectCache = 8 * cache.MiByte

// serveMemoryLimit is serve's soft memory limit, raised to twice the live heap when a
// big tree needs more (gctune; GOMEMLIMIT overrides it).
const serveMemoryLimit = 300 << 20

// serveGCPercent is serve's GOGC. The collector's own goal, live heap x (1 +
// GOGC/100), stays well under the soft limit gctune raises to Headroom x live: at
// GOGC 100 the two met, and as the limit also counts the runtime's own memory it
// bound first, so under load the collector ran back to back (100,000 subjects: 60%
// of serve's CPU, the registry at 0.67 of a bare handler; docs/performance.md, "The
// embedded registry at 100,000 subjects"). A lower GOGC also keeps the heap nearer
// the live set, which serve holds for hours.
const serveGCPercent = 50

// serveGC tunes the collector for a process that keeps its data for hours: the
// CLI's tuning for one short run (GOGC 400 and a 768 MiB soft limit, in main) would
// let serve's heap grow to the limit. GOGC and GOMEMLIMIT still take precedence.
func serveGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	gctune.SoftLimit(serveMemoryLimit)
}

// cacheRoot is --cache-dir, or contractbot in the user cache folder.
func cacheRoot(dir string) string {
	if dir != "" {
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "contractbot")
}

// readSide is what serve shows of the contract repository: the embedded read-only
// schema registry under /registry/, the calendar's ICS feeds and the pages (a
// server.Mounter).
type readSide struct {
	reg   *registry.Server
	under *registry.Mounted // reg under /registry
	tree  *web.Tree
	feeds *web.Feeds
	pages *web.Pages
}

// readSideConfig is what newReadSide reads.
type readSideConfig struct {
	repoDir, branch string
	// cacheDir keeps what a restart can reuse (the versions index, the catalog's
	// summaries, rows and first page in versions/, the health report's audit in audit/,
	// as report does).
	cacheDir  string
	publicURL string
	// onDegraded, when set, is told when the embedded registry degrades.
	onDegraded func(registry.Status)
	log        *slog.Logger
}

// newReadSide starts the read side of the repository at c.repoDir. It returns at
// once: the registry indexes the branch in the background (answering 503 until it is
// ready) and the catalog is served from summaries until the full tree is loaded.
func newReadSide(ctx context.Context, c readSideConfig) (*readSide, error) {
	log := c.log
	repo, err := gitrepo.OpenWithCache(c.repoDir, serveObjectCache)
	if err != nil {
		return nil, fmt.Errorf("--repo: %w", err)
	}
	branch, err := branchOf(repo, c.repoDir, c.branch)
	if err != nil {
		return nil, err
	}
	cache := &versions.Cache{Dir: filepath.Join(c.cacheDir, "versions"), Repo: c.repoDir, Branch: branch, Log: log}
	primed := make(chan struct{}) // the first catalog page is made before the registry indexes
	reg, err := registry.Start(registry.Source{Repo: repo.Repository, Branch: branch, Logger: log, OnDegraded: c.onDegraded, Cache: cache}, primed)
	if err != nil {
		return nil, fmt.Errorf("embedded registry: %w", err)
	}
	log.Info("serving the branch "+plumbing.ReferenceName(branch).Short(), "commit", reg.Head())
	go reg.Follow(ctx, time.Second)
	// The pages show the commit the registry serves (one resolution of the branch)
	// and read its versions index rather than build a second one.
	tree := &web.Tree{Repo: repo.Repository, Branch: branch, Follow: reg, Lend: reg, WithoutSchemas: true,
		// The pages keep rows and load a subject's folder; the pages that read every
		// subject hold the whole tree for a while after their last request.
		Release: 2 * time.Minute}
	rs := &readSide{reg: reg, under: reg.Under("/registry"), tree: tree,
		feeds: &web.Feeds{Tree: tree, Log: log, PublicURL: c.publicURL},
		pages: &web.Pages{Tree: tree, Log: log, SummaryCache: strings.TrimSuffix(cache.Path(), ".idx") + ".summaries",
			RowCache: strings.TrimSuffix(cache.Path(), ".idx") + ".rows"}}
	if build, err := buildID(); err == nil {
		rs.pages.AuditCache = &history.Cache{Dir: filepath.Join(c.cacheDir, "audit"), Repo: c.repoDir, Branch: branch, Build: build, Log: log}
		rs.pages.FirstPage, rs.pages.Build = strings.TrimSuffix(cache.Path(), ".idx")+".first.html", build
	}
	go rs.load(ctx, primed)
	return rs, nil
}

// load makes the first catalog page (from the subjects' summaries) first, and then
// lets the registry index (primed): the registry's index and the pages read the same
// repository and would slow each other down. Then the pages' rows from every subject
// folder (Pages.Load, one pass that never holds the whole tree), now rather than on
// the first request for another page, once the registry serves: the two at once would
// hold both peaks of memory at the same time (docs/performance.md, "Web pages
// (serve)").
func (rs *readSide) load(ctx context.Context, primed chan<- struct{}) {
	log := rs.pages.Log
	if err := guard.Do(log, "preparing the first catalog page", rs.pages.Prime); err != nil {
		log.Warn("preparing the first catalog page failed", "err", err)
	}
	close(primed)
	select {
	case <-rs.reg.Ready():
	case <-ctx.Done():
		return
	}
	if err := guard.Do(log, "reading the subjects for the pages", rs.pages.Load); err != nil {
		log.Warn("reading the subjects for the pages failed; the pages answer 503 until they are read", "err", err)
	}
}

// Mount adds the registry, the feeds and the pages to mux.
func (rs *readSide) Mount(mux *http.ServeMux) {
	mux.Handle("/registry/", rs.under)
	rs.feeds.Mount(mux)
	rs.pages.Mount(mux)
}

// Answer answers the registry's reads of a version before serve's mux (a
// server.Front): the reads clients make most skip its routing of the pages.
func (rs *readSide) Answer(w http.ResponseWriter, r *http.Request) bool {
	return rs.under.Answer(w, r)
}

// checkPublicURL refuses a --public-url that is not an absolute http(s) URL of a
// host alone (no password, query or fragment): it is copied into every feed.
func checkPublicURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("--public-url %q: write the address people reach serve by, e.g. https://contracts.example.com (http or https, no password, query or fragment)", outbound.RedactString(s))
	}
	return nil
}

// opsChannelOf is the Slack channel of operations alerts: flag, else the platform
// team's channel in the tree's teams.yaml (when the tree loads), else "".
func opsChannelOf(flag string, tree *web.Tree) string {
	if flag != "" || tree == nil {
		return flag
	}
	t, err := tree.Calendar() // teams.yaml, not the whole tree
	if err != nil || t.Teams[contract.PlatformTeam] == nil {
		return ""
	}
	return t.Teams[contract.PlatformTeam].Slack
}

// botSignOffs shows the bot's state of the open pull requests on the sign-off pages.
type botSignOffs struct {
	bot     *bot.Bot
	repos   []bot.Repository
	startup *botStartup
}

func (s *botSignOffs) OpenPullRequests(ctx context.Context) ([]web.PullRequestStatus, error) {
	if !s.startup.ready.Load() {
		return nil, fmt.Errorf("%s", s.startup.Missing())
	}
	states, err := s.bot.OpenStates(ctx, s.repos)
	if err != nil {
		return nil, err
	}
	out := make([]web.PullRequestStatus, 0, len(states))
	for _, p := range states {
		st := web.PullRequestStatus{Repo: p.Owner + "/" + p.Repo, Number: p.Number, URL: p.URL,
			Class: p.State.Class, HeadSHA: p.State.HeadSHA, EvaluatedAt: p.State.EvaluatedAt, Subjects: p.State.Subjects}
		for _, so := range p.State.SignOffs {
			st.Teams = append(st.Teams, web.TeamSignOff{Team: so.Team, Status: so.Status, Deadline: so.Deadline, ApprovedBy: so.ApprovedBy})
		}
		out = append(out, st)
	}
	return out, nil
}
