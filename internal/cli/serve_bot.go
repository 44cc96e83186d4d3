package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/server"
)

// serveBot is the bot as serve runs it, with what learns its login (startup); a nil
// *serveBot is serve without the bot (no GitHub credentials), and its methods say so.
type serveBot struct {
	b       *bot.Bot
	startup *botStartup
	webhook []byte      // CONTRACTBOT_WEBHOOK_SECRET
	sink    events.Sink // --publish-events, closed by close
}

// newServeBot assembles the bot from serve's settings and the environment without
// asking GitHub anything: the login it writes as (only comments by it are its own)
// is learned by botStartup in the background, so a GitHub outage never keeps serve
// from starting. It is nil, with no error, without GitHub credentials.
func (f *serveFlags) newServeBot(cloneDir string, watch []bot.Repository, log *slog.Logger) (*serveBot, error) {
	secret := os.Getenv("CONTRACTBOT_WEBHOOK_SECRET")
	token := os.Getenv("GITHUB_TOKEN")
	switch {
	case token == "" && f.appID == 0:
		log.Info("no GitHub credentials (GITHUB_TOKEN or --app-id): serving the read side only, without the bot")
		return nil, nil
	case secret == "":
		return nil, fmt.Errorf("set CONTRACTBOT_WEBHOOK_SECRET to the webhook secret (see contractbot serve --help)")
	}
	b := &bot.Bot{Cache: &bot.GitCache{Dir: cloneDir}, Log: log, AdminTeam: f.adminTeam, Marks: f.remindBefore}
	var clients bot.APIClients
	if f.appID != 0 {
		key, err := os.ReadFile(f.appKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--app-key-file: %w", err)
		}
		clients = &githubapi.AppClients{AppID: f.appID, PrivateKey: key, BaseURL: f.githubURL, Log: log}
	} else {
		api, err := tokenAPI(token, f.githubURL, log)
		if err != nil {
			return nil, err
		}
		clients = &githubapi.TokenClients{API: api, Token: token}
	}
	b.Clients = bot.ClientsOf(clients)
	if tok := os.Getenv("SLACK_BOT_TOKEN"); tok != "" {
		b.Notify = botslack.New(tok, f.slackAPIURL, botslack.WithLog(log))
	}
	b.StateKey = bot.DeriveStateKey([]byte(secret))
	if k := os.Getenv("CONTRACTBOT_STATE_KEY"); k != "" {
		b.StateKey = []byte(k)
	}
	sb := &serveBot{b: b, startup: newBotStartup(clients, watch, log), webhook: []byte(secret)}
	if f.publishEvents == "" {
		return sb, nil
	}
	sink, err := openSink(f.publishEvents, 10*time.Second)
	if err != nil {
		return nil, err
	}
	sb.sink = sink
	b.Publishing = &bot.Publishing{Sink: sink}
	if f.publishTo != "" {
		c, err := registry.NewClient(f.publishTo, clientOptions(10*time.Second)...)
		if err != nil {
			sb.close(log)
			return nil, err
		}
		b.Publishing.Registry = c
	}
	return sb, nil
}

// close closes the event sink.
func (sb *serveBot) close(log *slog.Logger) {
	if sb == nil || sb.sink == nil {
		return
	}
	if err := sb.sink.Close(); err != nil {
		log.Error("closing the event sink", "err", err)
	}
}

// bot is the bot (nil without one).
func (sb *serveBot) bot() *bot.Bot {
	if sb == nil {
		return nil
	}
	return sb.b
}

// starting is what learns the bot's login (nil without the bot).
func (sb *serveBot) starting() *botStartup {
	if sb == nil {
		return nil
	}
	return sb.startup
}

// secret is the webhook secret (nil without the bot).
func (sb *serveBot) secret() []byte {
	if sb == nil {
		return nil
	}
	return sb.webhook
}

// router turns the server's deliveries into the bot's jobs (nil without the bot:
// no /webhook).
func (sb *serveBot) router() server.Router {
	if sb == nil {
		return nil
	}
	return sb.startup.route(sb.b)
}

// start gives the bot the server's metrics and queue and starts learning its login.
func (sb *serveBot) start(ctx context.Context, srv *server.Server) error {
	if sb == nil {
		return nil
	}
	sb.b.Metrics = bot.NewMetrics(srv.Metrics())
	sb.b.Queue = srv.Queue()
	if err := sb.startup.metrics(srv.Metrics()); err != nil {
		return err
	}
	go sb.startup.run(ctx, sb.b)
	return nil
}

// reconcileRepos are --reconcile's repositories.
func reconcileRepos(repos []string) ([]bot.Repository, error) {
	var watch []bot.Repository
	for _, r := range repos {
		owner, name, ok := strings.Cut(r, "/")
		if !ok || owner == "" || name == "" {
			return nil, fmt.Errorf("--reconcile %q: write owner/name", r)
		}
		watch = append(watch, bot.Repository{Owner: owner, Name: name})
	}
	return watch, nil
}

// The causes the bot may not be ready for: the metric's label values and /readyz's words.
const (
	causeIdentity     = "identity"
	causeInstallation = "installation"
)

// botStartup learns what the bot needs of GitHub before it evaluates anything (its
// login, GET /app or GET /user; the App's installation on each --reconcile
// repository), retrying with backoff for as long as serve runs. Until the login is
// known, deliveries are queued unrouted and retried by the queue, and the reconcile
// loop, the digest and the sign-off pages wait; the read side does not. Each cause is
// logged once when it appears and once when it clears, and is a gauge
// (contractbot_bot_not_ready{cause}) and a line of /readyz.
type botStartup struct {
	clients bot.APIClients
	repos   []bot.Repository
	apps    bool // a GitHub App's clients: installations to look up
	log     *slog.Logger
	// First and Max bound the wait between attempts (1 s doubling to 5 min).
	first, max time.Duration

	gauge   *prometheus.GaugeVec
	held    prometheus.Gauge // deliveries held until the login is known
	mu      sync.Mutex
	missing map[string]string // cause -> why
	ready   atomic.Bool       // the login is known: b.Self is set
	done    chan struct{}     // closed when ready
}

func newBotStartup(clients bot.APIClients, repos []bot.Repository, log *slog.Logger) *botStartup {
	_, apps := clients.(*githubapi.AppClients)
	s := &botStartup{clients: clients, repos: repos, apps: apps, log: log, first: time.Second, max: 5 * time.Minute,
		missing: map[string]string{causeIdentity: "the bot has not learned its GitHub login yet"},
		done:    make(chan struct{}),
		gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "contractbot_bot_not_ready",
			Help: "1 while the bot lacks something it needs of GitHub, by cause: identity (GET /app or GET /user), installation (the App on a --reconcile repository)."},
			[]string{"cause"})}
	s.gauge.WithLabelValues(causeIdentity).Set(1)
	s.gauge.WithLabelValues(causeInstallation).Set(0)
	s.held = prometheus.NewGauge(prometheus.GaugeOpts{Name: "contractbot_bot_held_deliveries",
		Help: "Webhook deliveries held by the queue's workers until the bot learns its GitHub login (the rest wait in the queue, up to --queue)."})
	return s
}

// set records that cause is missing for why ("" when it is not), logging a change.
func (s *botStartup) set(cause, why string) {
	s.mu.Lock()
	before, had := s.missing[cause]
	if why == "" {
		delete(s.missing, cause)
	} else {
		s.missing[cause] = why
	}
	s.mu.Unlock()
	switch {
	case why == "" && had:
		s.gauge.WithLabelValues(cause).Set(0)
		s.log.Info("the bot has what it needs of GitHub: "+cause, "cause", cause)
	case why != "" && (!had || before != why):
		s.gauge.WithLabelValues(cause).Set(1)
		s.log.Warn("the bot is not ready: "+why+"; retrying with backoff", "cause", cause)
	}
}

// Missing says what the bot lacks ("" when nothing), for /readyz.
func (s *botStartup) Missing() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range []string{causeIdentity, causeInstallation} {
		if why, ok := s.missing[c]; ok {
			out = append(out, "bot: "+why)
		}
	}
	return strings.Join(out, "; ")
}

// run retries until the login and every installation are known, or ctx ends.
func (s *botStartup) run(ctx context.Context, b *bot.Bot) {
	wait := s.first
	for {
		if !s.ready.Load() {
			if self, err := s.clients.Identity(ctx); err != nil {
				s.set(causeIdentity, err.Error())
			} else {
				s.log.Info("the bot writes as " + self)
				b.Self = self
				s.ready.Store(true) // b.Self is read only after this
				close(s.done)
				s.set(causeIdentity, "")
			}
		}
		complete := s.ready.Load() && s.installations(ctx)
		if complete {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, s.max)
	}
}

// installations looks up the App's installation on each watched repository.
func (s *botStartup) installations(ctx context.Context) bool {
	if !s.apps {
		return true
	}
	var failed []string
	for _, r := range s.repos {
		if _, _, err := s.clients.For(ctx, r.Owner, r.Name, 0); err != nil {
			failed = append(failed, err.Error())
		}
	}
	slices.Sort(failed)
	s.set(causeInstallation, strings.Join(failed, "; "))
	return len(failed) == 0
}

// hold waits until the login is known or ctx ends, counted in the held gauge.
func (s *botStartup) hold(ctx context.Context) error {
	if s.ready.Load() {
		return nil
	}
	s.held.Inc()
	defer s.held.Dec()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// after runs f once the bot is ready (never if ctx ends first).
func (s *botStartup) after(ctx context.Context, f func()) {
	go func() {
		select {
		case <-s.done:
			f()
		case <-ctx.Done():
		}
	}()
}

// route is b.Route once the login is known; before, a delivery is queued as it
// came, and the worker that runs it holds it until the login is known (b.Route
// reads the login), however long GitHub takes to answer: the deliveries behind it
// wait in the queue, which bounds them (--queue; past it, 503). A delivery is lost
// only when serve stops first; the reconcile loop then judges its pull request.
func (s *botStartup) route(b *bot.Bot) server.RouterFunc {
	return func(d server.Delivery) (*server.Job, error) {
		if s.ready.Load() {
			return b.Route(d)
		}
		return &server.Job{Key: "unrouted " + d.Event + " " + d.ID, Run: func(ctx context.Context) error {
			if err := s.hold(ctx); err != nil {
				return fmt.Errorf("%s delivery %s waited for the bot (%s): %w", d.Event, d.ID, s.Missing(), err)
			}
			job, err := b.Route(d)
			if err != nil || job == nil {
				return err
			}
			return job.Run(ctx)
		}}, nil
	}
}

// alertClaims is where serve's replicas claim the messages that belong to no pull
// request (bot.Claims: calendar reminders, drift, sampling and degraded-registry
// alerts) once the bot knows its login: a ledger of commit statuses on the first
// commit of the served branch, in its repository on GitHub (--github-repo). Before
// the login is known a claim fails, and the alert waits for its next round.
type alertClaims struct {
	b       *bot.Bot
	startup *botStartup
	repo    bot.Repository
	dir     string
	branch  func() string

	mu   sync.Mutex
	root string
}

// newAlertClaims is nil (each replica reads Slack before it posts) without the bot
// or a repository on GitHub.
func newAlertClaims(b *bot.Bot, startup *botStartup, repo bot.Repository, dir string, branch func() string) bot.Claims {
	if b == nil || repo.Owner == "" {
		return nil
	}
	return &alertClaims{b: b, startup: startup, repo: repo, dir: dir, branch: branch}
}

func (c *alertClaims) Once(ctx context.Context, key string, since time.Time, send func(context.Context) (string, error)) (bool, error) {
	if !c.startup.ready.Load() {
		return false, fmt.Errorf("not claimed, so not sent: %s", c.startup.Missing())
	}
	c.mu.Lock()
	if c.root == "" {
		root, err := firstCommit(c.dir, c.branch())
		if err != nil {
			c.mu.Unlock()
			return false, fmt.Errorf("find the first commit of the served branch (where the claims live): %w", err)
		}
		c.root = root
	}
	root := c.root
	c.mu.Unlock()
	l, err := c.b.AlertLedger(ctx, c.repo, root)
	if err != nil {
		return false, err
	}
	return l.Once(ctx, key, since, send)
}

// githubRepoOf is the repository on GitHub of serve's --repo: --github-repo, else
// --digest's, else the only --reconcile repository (zero when none says).
func githubRepoOf(flag, digest string, watch []bot.Repository) (bot.Repository, error) {
	for _, s := range []string{flag, digest} {
		if s == "" {
			continue
		}
		owner, name, ok := strings.Cut(s, "/")
		if !ok || owner == "" || name == "" {
			return bot.Repository{}, fmt.Errorf("%q: write owner/name", s)
		}
		return bot.Repository{Owner: owner, Name: name}, nil
	}
	if len(watch) == 1 {
		return watch[0], nil
	}
	return bot.Repository{}, nil
}
