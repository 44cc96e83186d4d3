package cli

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contractbot/contractbot/internal/bot"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/web"
)

// serve assembles serve's parts from its flags and serves until ctx ends: the bot
// (with GitHub credentials, serveBot), the read side (readSide: the embedded
// registry, the feeds and the pages), the OpenLineage endpoint, the topic sampler,
// the alerts that belong to no pull request (serveAlerts) and the HTTP server that
// carries them. Settings are checked in that order, before anything is served.
func (f *serveFlags) serve(ctx context.Context, log *slog.Logger) error {
	// The bot's settings are checked before the read side starts indexing.
	root := cacheRoot(f.cacheDir)
	watch, err := reconcileRepos(f.repos)
	if err != nil {
		return err
	}
	sb, err := f.newServeBot(filepath.Join(root, "git"), watch, log)
	if err != nil {
		return err
	}
	defer sb.close(log)
	var notify *botslack.Client
	if tok := os.Getenv("SLACK_BOT_TOKEN"); tok != "" {
		notify = botslack.New(tok, f.slackAPIURL, botslack.WithLog(log))
	}
	// Degraded-registry alerts go to the operations channel, read when they happen:
	// the registry starts following the branch before the tree is loaded.
	onGitHub, err := githubRepoOf(f.githubRepo, f.digestRepo, watch)
	if err != nil {
		return err
	}
	alerts := &serveAlerts{flags: f, notify: notify, log: log}
	alerts.claims = newAlertClaims(sb.bot(), sb.starting(), onGitHub, f.repoDir, alerts.branch)
	if err := checkPublicURL(f.publicURL); err != nil {
		return err
	}
	if f.pprofAddr != "" {
		if err := servePprof(ctx, f.pprofAddr, log); err != nil {
			return err
		}
	}
	rs, err := newReadSide(ctx, readSideConfig{repoDir: f.repoDir, branch: f.branch, cacheDir: root,
		publicURL: f.publicURL, onDegraded: alerts.onDegraded(ctx), log: log})
	if err != nil {
		return err
	}
	alerts.tree.Store(rs.tree)
	lineage, err := newLineage(f.lineageEvents, cmp.Or(f.lineageToken, os.Getenv("CONTRACTBOT_LINEAGE_TOKEN")), f.lineageAnyone, rs.pages, log)
	if err != nil {
		return err
	}
	mounts := []server.Mounter{rs, lineage}
	var sampleNotify bot.MarkedNotifier
	if notify != nil {
		sampleNotify = notify
	}
	sampler, err := f.sampling.watch(ctx, f.repoDir, rs.tree.Branch, sampleNotify, alerts.claims, log)
	if err != nil {
		return err
	}
	if sampler != nil {
		mounts = append(mounts, sampleMount(sampler))
		rs.pages.Sampler = sampled{sampler}
	}
	if err := alerts.start(ctx, rs.tree); err != nil {
		return err
	}
	srv := server.New(server.Config{WebhookSecret: sb.secret(), Workers: f.workers, QueueSize: f.queue, Log: log,
		Mounts: mounts, SeparateMetrics: f.metricsAddr != "", MaxConns: f.maxConns,
		Route: sb.router(), Readiness: serveReadiness{reg: rs.reg, startup: sb.starting()}})
	if err := rs.reg.RegisterMetrics(srv.Metrics()); err != nil {
		return err
	}
	if sampler != nil {
		if err := sampler.RegisterMetrics(srv.Metrics()); err != nil {
			return err
		}
		go sampler.Every(ctx, f.sampling.interval)
	}
	if err := sb.start(ctx, srv); err != nil {
		return err
	}
	l, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	if f.metricsAddr != "" {
		ml, err := net.Listen("tcp", f.metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		go func() {
			if err := srv.ServeMetrics(ctx, ml); err != nil {
				log.Error("the metrics listener stopped", "err", err)
			}
		}()
	}
	if sb != nil && len(watch) > 0 {
		sb.startup.after(ctx, func() { sb.b.ReconcileEvery(ctx, watch, f.every) })
		rs.pages.SignOffs = &botSignOffs{bot: sb.b, repos: watch, startup: sb.startup}
	}
	if f.digestRepo != "" {
		owner, name, ok := strings.Cut(f.digestRepo, "/")
		switch {
		case !ok || owner == "" || name == "":
			return fmt.Errorf("--digest %q: write owner/name", f.digestRepo)
		case sb == nil || sb.b.Notify == nil:
			return fmt.Errorf("--digest needs the bot (GitHub credentials) and SLACK_BOT_TOKEN: the marks that make it once a month live on GitHub")
		}
		d := branchDigest(bot.Repository{Owner: owner, Name: name}, f.repoDir, rs.tree.Branch, sampler)
		sb.startup.after(ctx, func() { sb.b.MonthlyDigestEvery(ctx, d, time.Hour) })
	}
	return srv.Serve(ctx, l, 30*time.Second)
}

// serveReadiness is what /readyz says: the embedded registry's state, and the bot's
// wants as a degradation, not unreadiness (the read side serves without the bot).
type serveReadiness struct {
	reg     *registry.Server
	startup *botStartup // nil without the bot
}

func (r serveReadiness) NotReady() string { return r.reg.NotReady() }

func (r serveReadiness) Degraded() string {
	if r.startup == nil {
		return r.reg.Degraded()
	}
	var out []string
	for _, s := range []string{r.reg.Degraded(), r.startup.Missing()} {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// serveAlerts sends the messages serve's replicas send once and that belong to no
// pull request: the embedded registry degraded, calendar reminders and drift (the
// sampler's alerts are its own). They need SLACK_BOT_TOKEN and the repository, not
// GitHub; with the bot, the replicas claim them first (claims).
type serveAlerts struct {
	flags  *serveFlags
	notify *botslack.Client // nil without SLACK_BOT_TOKEN
	claims bot.Claims
	log    *slog.Logger
	// tree is the read side's, once it exists: the channel of operations alerts
	// comes from its teams.yaml, and the claims live on its branch.
	tree atomic.Pointer[web.Tree]
}

// branch is the branch the read side serves ("" before it is known).
func (a *serveAlerts) branch() string {
	if t := a.tree.Load(); t != nil {
		return t.Branch
	}
	return ""
}

// onDegraded is the embedded registry's alert when it degrades (nil without Slack).
func (a *serveAlerts) onDegraded(ctx context.Context) func(registry.Status) {
	if a.notify == nil {
		return nil
	}
	d := &bot.DegradedAlerts{Notify: a.notify, Log: a.log, Claims: a.claims,
		Channel: func() string { return opsChannelOf(a.flags.opsChannel, a.tree.Load()) }}
	return func(st registry.Status) { d.Alert(ctx, st) }
}

// start sends calendar reminders every --reconcile-every and, with --drift-registry,
// compares the registry with Git every --drift-every (nothing without Slack).
func (a *serveAlerts) start(ctx context.Context, tree *web.Tree) error {
	if a.notify == nil {
		return nil
	}
	f := a.flags
	current := func() (*contract.Tree, error) {
		// Most rounds nothing is due, and the calendar alone says so: loading the
		// whole tree each round would undo the pages' Release (a minute of CPU at
		// 100,000 subjects every --reconcile-every). A reminder due within the minute
		// needs every subject, for its consumers' teams.
		if cal, err := tree.Calendar(); err == nil {
			now := time.Now()
			if len(calendar.DueWindowReminders(cal, now)) == 0 && len(calendar.DueWindowReminders(cal, now.Add(time.Minute))) == 0 {
				return cal, nil
			}
		}
		t, _, err := tree.Current()
		return t, err
	}
	go (&bot.Bot{Log: a.log, Alerts: a.claims}).CalendarRemindersEvery(ctx, current, a.notify, f.every)
	if f.driftURL == "" {
		return nil
	}
	c, err := registry.NewClient(f.driftURL, clientOptions(10*time.Second)...)
	if err != nil {
		return err
	}
	ch := f.driftChannel
	if ch == "" {
		ch = opsChannelOf(f.opsChannel, tree)
	}
	if ch == "" {
		return fmt.Errorf("--drift-registry: name the alert channel with --drift-channel or --ops-channel (no platform team with a Slack channel in teams.yaml)")
	}
	repo, err := gitrepo.Open(f.repoDir)
	if err != nil {
		return err
	}
	w := &bot.DriftWatch{Repo: repo.Repository, Branch: tree.Branch, Registry: c, Notify: a.notify, Claims: a.claims, Channel: ch, Log: a.log}
	go w.Every(ctx, f.driftEvery)
	return nil
}

// metrics registers the bot's startup gauges with the server's metrics.
func (s *botStartup) metrics(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{s.gauge, s.held} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
