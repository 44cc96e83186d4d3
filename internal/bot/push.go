package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/publish"
	"github.com/contractbot/contractbot/internal/server"
)

// StatusContext is the commit status that marks a commit of the default branch as
// published: the bot's memory of publishing lives in GitHub, not in a database.
const StatusContext = "contractbot/publish"

// Publishing configures what the bot does when the default branch moves.
type Publishing struct {
	// Registry receives levels and versions; nil registers nothing (the embedded
	// registry serves the branch) and only sends events.
	Registry publish.Registry
	// Sink receives the change events.
	Sink events.Sink
}

// pushEvent is the part of a push payload the bot reads.
type pushEvent struct {
	Ref        string `json:"ref"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Repository struct {
		Name          string `json:"name"`
		DefaultBranch string `json:"default_branch"`
		CloneURL      string `json:"clone_url"`
		HTMLURL       string `json:"html_url"`
		Owner         struct {
			Login string `json:"login"`
			Name  string `json:"name"`
		} `json:"owner"`
	} `json:"repository"`
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
}

// routePush handles a push to a branch: the open pull requests into it whose verdict
// reads what the push changed are judged again (what merging does to the branch
// changed: a consumer, a team, a freeze may have been added; push_scope.go), and a
// push to the default branch is published (with --publish-events).
func (b *Bot) routePush(d server.Delivery) (*server.Job, error) {
	var ev pushEvent
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		return nil, fmt.Errorf("push payload: %w", err)
	}
	owner := ev.Repository.Owner.Login
	if owner == "" {
		owner = ev.Repository.Owner.Name
	}
	repo := ev.Repository.Name
	if owner == "" || repo == "" || ev.After == "" {
		return nil, fmt.Errorf("push payload without repository or commit")
	}
	if err := checkRepo(d.Event, owner, repo); err != nil {
		return nil, err
	}
	branch, ok := strings.CutPrefix(ev.Ref, "refs/heads/")
	if !ok || branch == "" || strings.Trim(ev.After, "0") == "" {
		return nil, nil // a tag, or a deletion
	}
	publishing := b.Publishing != nil && ev.Repository.DefaultBranch != "" && branch == ev.Repository.DefaultBranch
	log := b.Log.With("delivery", d.ID, "repository", owner+"/"+repo, "head_sha", ev.After, "event", "push", "branch", branch)
	key := owner + "/" + repo + "#base:" + branch
	if publishing {
		key = owner + "/" + repo + "#publish"
	}
	pushed := pushTarget{owner: owner, repo: repo, sha: ev.After, url: ev.Repository.CloneURL, html: ev.Repository.HTMLURL, installation: ev.Installation.ID}
	b.pushes.arrived(key, ev.Before)
	return &server.Job{Key: key, Run: func(ctx context.Context) error {
		b.judgeAgain(ctx, pushed, branch, b.pushes.take(key), log)
		if !publishing {
			return nil
		}
		if err := b.Publish(ctx, pushed, log); err != nil {
			return fmt.Errorf("publish %s/%s at %s (the next push or a redelivery resumes it): %w", owner, repo, ev.After, err)
		}
		return nil
	}}, nil
}

// judgeAgain queues an evaluation of the open pull requests into branch, which just
// moved from before to t.sha, whose verdict reads what the push changed: each is
// judged against the new tip (a consumer registered meanwhile is asked). What cannot
// be listed or queued now, the reconcile loop catches.
func (b *Bot) judgeAgain(ctx context.Context, t pushTarget, branch, before string, log *slog.Logger) {
	gh, auth, err := b.clients(ctx, t.owner, t.repo, t.installation)
	if err != nil {
		log.Warn("could not judge the pull requests into the branch again; the reconcile loop will", "err", err)
		return
	}
	prs, err := gh.ListOpenPullRequests(ctx, t.owner, t.repo, branch)
	if err != nil {
		log.Warn("could not list the pull requests into the branch; the reconcile loop judges them again", "err", err)
		return
	}
	for _, pr := range b.touched(ctx, t, auth, before, prs, log) {
		b.enqueue(ctx, b.evaluationJobFor(t.owner, t.repo, pr.Number, t.installation, evalOptions{}, log.With("pull_request", pr.Number)), log)
	}
}

// touched are the pull requests among prs whose verdict reads what the push from
// before to t.sha changed (push_scope.go); all of them when that cannot be told.
func (b *Bot) touched(ctx context.Context, t pushTarget, auth transport.AuthMethod, before string, prs []PullRequest, log *slog.Logger) []PullRequest {
	if len(prs) == 0 {
		return nil
	}
	if !plumbing.IsHash(before) || strings.Trim(before, "0") == "" {
		log.Info("every open pull request into the branch is judged again: the push names no earlier commit")
		return prs
	}
	want := []plumbing.Hash{plumbing.NewHash(t.sha), plumbing.NewHash(before)}
	for _, pr := range prs {
		if plumbing.IsHash(pr.HeadSHA) {
			want = append(want, plumbing.NewHash(pr.HeadSHA))
		}
	}
	url := t.url
	if b.CloneURL != nil {
		url = b.CloneURL(t.owner, t.repo)
	}
	r, err := b.Cache.Fetch(ctx, t.owner, t.repo, url, auth, want...)
	if err != nil {
		log.Warn("every open pull request into the branch is judged again: what the push changed cannot be read", "err", err)
		return prs
	}
	defer r.Close()
	scope := scopeOfPush(r.Repository, plumbing.NewHash(before), plumbing.NewHash(t.sha))
	if scope.all {
		log.Info("every open pull request into the branch is judged again", "why", scope.why)
		return prs
	}
	var out []PullRequest
	for _, pr := range prs {
		if ok, why := scope.affects(pr); ok {
			log.Debug("judged again", "pull_request", pr.Number, "why", why)
			out = append(out, pr)
		}
	}
	log.Info("pull requests judged again after the push", "judged", len(out), "open", len(prs))
	return out
}

// pushesSeen keeps, per branch, the commit the branch was at before the earliest
// push whose job has not run yet: a newer push's job replaces a waiting one in the
// queue, and must then judge what both pushes changed.
type pushesSeen struct {
	mu     sync.Mutex
	before map[string]string
}

// arrived records a push to the branch of key from before, unless an earlier push's
// job is still waiting.
func (p *pushesSeen) arrived(key, before string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.before == nil {
		p.before = map[string]string{}
	}
	if _, waiting := p.before[key]; !waiting {
		p.before[key] = before
	}
}

// take returns the commit the branch was at before the pushes not yet judged ("" when
// unknown: every pull request is judged again).
func (p *pushesSeen) take(key string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	before := p.before[key]
	delete(p.before, key)
	return before
}

type pushTarget struct {
	owner, repo, sha, url, html string
	installation                int64
}

// Publish publishes every commit of the default branch up to the pushed one that has
// no success status yet: registry, change events, then the commit status, then a
// comment with the versions and ids on the merged pull request.
func (b *Bot) Publish(ctx context.Context, t pushTarget, log *slog.Logger) error {
	gh, auth, err := b.clients(ctx, t.owner, t.repo, t.installation)
	if err != nil {
		return err
	}
	url := t.url
	if b.CloneURL != nil {
		url = b.CloneURL(t.owner, t.repo)
	}
	head := plumbing.NewHash(t.sha)
	r, err := b.Cache.Fetch(ctx, t.owner, t.repo, url, auth, head)
	if err != nil {
		return err
	}
	defer r.Close()
	sink := b.Publishing.Sink
	var announcer *announcingSink
	if n, ok := b.Notify.(MarkedNotifier); ok {
		headSrc, err := contract.NewGitSource(r.Repository, t.sha)
		if err != nil {
			return err
		}
		announcer = &announcingSink{Sink: sink, notify: n, src: headSrc, log: log}
		if root := b.rootOf(r.Repository, t.owner, t.repo, head); root != "" {
			if l, err := b.alertLedger(gh, Repository{t.owner, t.repo}, root); err == nil {
				announcer.claims = &l
			}
		}
		sink = announcer
	}
	p := &publish.Publisher{
		Repo: r.Repository, Registry: b.Publishing.Registry, Sink: sink,
		Marker: &statusMarker{gh: gh, owner: t.owner, repo: t.repo, self: b.Self},
		Source: strings.TrimSuffix(t.html, "/"),
		Progress: func(s publish.Summary) {
			log.Info("published", "commit", s.Commit, "versions", len(s.Published))
		},
		Details: mergeDetails{b: b, gh: gh, t: t, log: log},
	}
	summaries, err := p.Publish(ctx, head)
	if announcer != nil { // what was published is announced, even when a later commit failed
		announcer.flush(ctx)
	}
	if err != nil {
		return err
	}
	for _, s := range summaries {
		if len(s.Published) == 0 {
			continue
		}
		c, err := r.CommitObject(plumbing.NewHash(s.Commit))
		if err != nil {
			continue
		}
		if pr := publish.PullRequestOf(c.Message); pr != nil {
			if _, err := gh.CreateComment(ctx, t.owner, t.repo, pr.Number, publishedComment(s)); err != nil {
				log.Warn("commenting the published versions failed", "pull_request", pr.Number, "err", err)
			}
		}
	}
	return nil
}

// publishedComment tells a merged pull request what its merge published.
func publishedComment(s publish.Summary) string {
	items := append([]publish.Item(nil), s.Published...)
	sort.Slice(items, func(i, j int) bool { return items[i].Subject < items[j].Subject })
	var b strings.Builder
	fmt.Fprintf(&b, "Published by contractbot from %s:\n\n", s.Commit[:12])
	for _, it := range items {
		if it.LevelOnly {
			fmt.Fprintf(&b, "- `%s`: compatibility level set to %s\n", it.Subject, it.Level)
			continue
		}
		fmt.Fprintf(&b, "- `%s`: version %d, schema id %d", it.Subject, it.Version, it.ID)
		if it.RegisteredID != 0 {
			fmt.Fprintf(&b, " (registry id %d)", it.RegisteredID)
		}
		fmt.Fprintf(&b, ", event `%s`\n", it.Event)
		if it.NotLatest != "" {
			fmt.Fprintf(&b, "  - :warning: %s\n", it.NotLatest)
		}
	}
	return b.String()
}

// statusMarker keeps the publish state of a commit in its commit status. Only a
// status the bot itself set (self) marks a commit published: a writer who sets
// contractbot/publish to success by hand must not make the bot skip a merge.
type statusMarker struct {
	gh          statuses
	owner, repo string
	self        string
}

func (m *statusMarker) Done(ctx context.Context, commit string) (bool, error) {
	states, err := m.gh.CommitStatuses(ctx, m.owner, m.repo, commit, StatusContext, m.self)
	if err != nil {
		return false, err
	}
	for _, s := range states {
		if s == "success" {
			return true, nil
		}
	}
	return false, nil
}

func (m *statusMarker) Mark(ctx context.Context, commit string, s publish.Summary) error {
	var parts []string
	for _, it := range s.Published {
		parts = append(parts, fmt.Sprintf("%s v%d id %d", it.Subject, it.Version, it.ID))
	}
	desc := "published: " + strings.Join(parts, ", ")
	if len(parts) == 0 {
		desc = "nothing to publish"
	}
	if len(desc) > 140 {
		desc = desc[:137] + "..."
	}
	return m.gh.CreateStatus(ctx, m.owner, m.repo, commit, githubapi.Status{State: "success", Context: StatusContext, Description: desc})
}

// mergedSignOffs reads the sign-offs and the override of a merged pull request from
// the bot's verified comment, for its change events. A comment that does not verify
// gives none: the event says nothing rather than something unverified.
func (b *Bot) mergedSignOffs(ctx context.Context, gh comments, owner, repo string, n int, log *slog.Logger) ([]events.SignOff, *events.Override) {
	st, err := MergedState(ctx, gh, b.Self, b.StateKey, owner, repo, n, log)
	if err != nil {
		log.Warn("could not read the merged pull request's comments; its events carry no sign-offs", "pull_request", n, "err", err)
		return nil, nil
	}
	if st == nil {
		return nil, nil
	}
	var out []events.SignOff
	for _, so := range st.SignOffs {
		out = append(out, events.SignOff{Team: so.Team, Status: so.Status, ApprovedBy: so.ApprovedBy, At: so.ApprovedAt,
			RequestedAt: st.Teams[so.Team].RequestedAt})
	}
	var o *events.Override
	if so := st.Override; so != nil {
		o = &events.Override{By: so.By, Reason: so.Reason, At: so.At}
	}
	return out, o
}

// mergeDetails adds to a merge commit's events its pull request's link, sign-offs
// and override as GitHub has them (a publish.Detailer).
type mergeDetails struct {
	b   *Bot
	gh  GitHub
	t   pushTarget
	log *slog.Logger
}

func (m mergeDetails) Details(ctx context.Context, c *object.Commit) (publish.Details, error) {
	var d publish.Details
	pr := publish.PullRequestOf(c.Message)
	if pr == nil {
		return d, nil
	}
	if m.t.html != "" {
		pr.URL = fmt.Sprintf("%s/pull/%d", strings.TrimSuffix(m.t.html, "/"), pr.Number)
	}
	d.PullRequest = pr
	d.SignOffs, d.Override = m.b.mergedSignOffs(ctx, m.gh, m.t.owner, m.t.repo, pr.Number, m.log)
	return d, nil
}
