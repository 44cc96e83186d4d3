package bot

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage"
	"github.com/contractbot/contractbot/internal/verdict"
)

// Evaluate reads the pull request, assesses it with the shared verdict and converges
// GitHub's state. It is idempotent: running it twice changes nothing the second time.
func (b *Bot) Evaluate(ctx context.Context, owner, repo string, number int, log *slog.Logger) error {
	return b.evaluate(ctx, owner, repo, number, 0, evalOptions{}, log)
}

// evalOptions carry what a pull-request command adds to an evaluation.
type evalOptions struct {
	// override is an admin's /contractbot override, checked by the command.
	override *verdict.Override
	// remindAll sends a reminder to every pending team now, whatever was sent.
	remindAll bool
}

// evaluation is one pass of the pipeline over a pull request: what load read, what
// evaluate decided, and the state notify and converge leave behind.
type evaluation struct {
	gh *onceGitHub
	pr *PullRequest
	// tip is the commit of the base branch the head was judged against.
	tip      string
	loaded   *change.Loaded
	comments []Comment
	mem      memory.Memory
	in       verdict.Input
	report   *verdict.Report
	markdown string
	// next is the Slack memory to keep (reminders, threads, announcements, claim).
	next State
	// root is the first commit of the base branch's first-parent history, where
	// the repository's ledger lives (prLedger; "" when unknown).
	root string
	// written is the state converge wrote into the comment (zero when it wrote none).
	written State
	// slackFailed: a Slack message failed; retryAfter is the longest wait Slack asked
	// for (429 Retry-After).
	slackFailures int
	retryAfter    time.Duration
	// installation is the GitHub App installation of the repository (0: none known).
	installation int64
	// noComment: converge writes no comment (EvaluateCheckout without the key or
	// the permission); statusOnly: the verdict is a commit status, never a check run.
	noComment, statusOnly bool
	log                   *slog.Logger
}

// prior is the verified state of the previous evaluation, or nil.
func (ev *evaluation) prior() *State { return ev.mem.State }

// DefaultEvaluationBudget bounds one evaluation, from reading the pull request to the
// last Slack message (Bot.EvaluationBudget): past it every call in flight is
// cancelled and the evaluation fails (retried, shown as pending).
const DefaultEvaluationBudget = 5 * time.Minute

// evaluate runs the pipeline: load -> assess -> converge (GitHub) -> notify (Slack).
func (b *Bot) evaluate(ctx context.Context, owner, repo string, number int, installation int64, opt evalOptions, log *slog.Logger) error {
	if len(b.StateKey) == 0 {
		return fmt.Errorf("evaluate %s/%s#%d: %w", owner, repo, number, ErrNoKey)
	}
	if b.Self == "" {
		return fmt.Errorf("evaluate %s/%s#%d: the bot's login is unknown (Bot.Self); it cannot tell its own comments from others'", owner, repo, number)
	}
	budget := b.EvaluationBudget
	if budget <= 0 {
		budget = DefaultEvaluationBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	gh, auth, err := b.clients(ctx, owner, repo, installation)
	if err != nil {
		return err
	}
	ev, err := b.load(ctx, &onceGitHub{GitHub: gh}, auth, owner, repo, number, log)
	if err != nil || ev == nil {
		return err
	}
	ev.installation = installation
	if err := b.run(ctx, ev, opt); err != nil {
		return err
	}
	r := ev.report
	ev.log.Info("evaluated", "class", r.Class, "ready", r.Ready, "signoffs", len(r.SignOffs))
	return nil
}

// run is the pipeline after load: assess, then GitHub's side effects (converge),
// then Slack's (notify), whose memory is written into the comment last. A Slack
// failure never holds GitHub back; it is retried on its own schedule (slackretry.go).
func (b *Bot) run(ctx context.Context, ev *evaluation, opt evalOptions) error {
	b.assess(ctx, ev, opt)
	if err := b.converge(ctx, ev); err != nil {
		return err
	}
	if b.Notify == nil {
		return nil
	}
	before := sentPart(ev.stateToWrite())
	b.notify(ctx, ev, opt)
	b.keepSent(ctx, ev, before)
	b.scheduleSlackRetry(ev)
	return nil
}

// load reads the pull request, the base branch's tip, what merging the head into it
// changes, its reviews and the bot's verified memory; nil when the pull request is
// closed.
func (b *Bot) load(ctx context.Context, gh *onceGitHub, auth transport.AuthMethod, owner, repo string, number int, log *slog.Logger) (*evaluation, error) {
	pr, err := gh.GetPullRequest(ctx, owner, repo, number)
	if err != nil {
		return nil, fmt.Errorf("read the pull request: %w", err)
	}
	log = log.With("head_sha", pr.HeadSHA)
	if pr.State != "" && pr.State != "open" {
		log.Info("pull request is closed; nothing to do")
		return nil, nil
	}
	tip, err := baseTip(ctx, gh, pr)
	if err != nil {
		return nil, err
	}
	url := pr.CloneURL
	if b.CloneURL != nil {
		url = b.CloneURL(owner, repo)
	}
	want := []plumbing.Hash{plumbing.NewHash(pr.HeadSHA), tip}
	if plumbing.IsHash(pr.MergeCommitSHA) { // GitHub's test merge, when it has one
		want = append(want, plumbing.NewHash(pr.MergeCommitSHA))
	}
	r, err := b.Cache.Fetch(ctx, owner, repo, url, auth, want...)
	if err != nil && len(want) > 2 { // a test merge gone stale meanwhile: apply the change
		r, err = b.Cache.Fetch(ctx, owner, repo, url, auth, want[:2]...)
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return b.prepare(ctx, gh, pr, r.Repository, tip, true, log)
}

// baseTip reads the commit the pull request's base branch points at now: the
// pull request's own base.sha is where the base was when GitHub last updated the
// pull request, and what is judged is what merging does to the base as it is.
func baseTip(ctx context.Context, gh pullRequests, pr *PullRequest) (plumbing.Hash, error) {
	sha, err := gh.BranchHead(ctx, pr.Owner, pr.Repo, pr.BaseRef)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read the tip of the base branch %s: %w", pr.BaseRef, err)
	}
	if !plumbing.IsHash(sha) {
		return plumbing.ZeroHash, fmt.Errorf("read the tip of the base branch %s: %q is not a commit", pr.BaseRef, sha)
	}
	return plumbing.NewHash(sha), nil
}

// prepare loads what merging the pull request's head into tip (its base branch's
// tip) changes, from repo, and reads its reviews and the bot's verified memory: the
// evaluation's input. The bot's own clone and a checkout in GitHub Actions
// (EvaluateCheckout) both come here; sealed says the bot writes its verdict as a
// check run, whose seal the memory must match (internal/bot/memory; a checkout's verdict is a
// commit status).
func (b *Bot) prepare(ctx context.Context, gh *onceGitHub, pr *PullRequest, r *git.Repository, tip plumbing.Hash, sealed bool, log *slog.Logger) (*evaluation, error) {
	owner, repo, number := pr.Owner, pr.Repo, pr.Number
	merged, conflicts, err := mergeOf(r, pr, tip)
	if err != nil {
		return nil, err
	}
	loaded, err := change.Between(r, tip, merged)
	if err != nil {
		return nil, err
	}
	reviews, err := gh.ListReviews(ctx, owner, repo, number)
	if err != nil {
		return nil, fmt.Errorf("read the reviews: %w", err)
	}
	comments, err := gh.ListComments(ctx, owner, repo, number)
	if err != nil {
		return nil, fmt.Errorf("read the comments (the bot's memory is one of them): %w", err)
	}
	ev := &evaluation{gh: gh, pr: pr, tip: tip.String(), loaded: loaded, comments: comments, log: log}
	if b.Notify != nil {
		ev.root = b.rootOf(r, pr.Owner, pr.Repo, tip)
	}
	if len(b.StateKey) > 0 {
		ev.mem = b.keeper().Read(comments, *pr, log)
		if sealed {
			if ev.mem, err = b.keeper().Sealed(ctx, gh, *pr, ev.mem, GateName(pr.BaseRef), log); err != nil {
				return nil, err
			}
		}
	} else { // EvaluateCheckout may run without a key: it can believe no memory
		ev.mem = memory.Unkeyed()
	}
	ev.in = verdict.Input{
		Base: loaded.Base, Head: loaded.Head, History: loaded.History,
		Author: pr.Author, Reviews: reviews, OpenedAt: pr.CreatedAt, Now: b.now(), HeadSHA: pr.HeadSHA,
		AdminTeam: b.AdminTeam, SQLBreaks: lineage.SQLBreaks(loaded.Base, loaded.Head),
	}
	if len(conflicts) > 0 {
		ev.in.Notices = append(ev.in.Notices, conflictNotice(pr.BaseRef, conflicts))
	}
	switch {
	case ev.mem.State != nil:
		ev.in.Prior, ev.in.PriorHead = map[string]verdict.TeamState{}, ev.mem.State.HeadSHA
		maps.Copy(ev.in.Prior, ev.mem.State.Teams)
	case ev.mem.Rebuilt:
		ev.in.Memory = verdict.Rebuilt
		ev.in.Requested = b.requested(ctx, gh, *pr, log)
		ev.in.Notices = append(ev.in.Notices, ev.mem.Notice)
	}
	return ev, nil
}

// rootOf is the first commit of tip's first-parent history in r (the same for every
// replica while the branch's history is only appended to), remembered per
// repository; "" when it cannot be read.
func (b *Bot) rootOf(r *git.Repository, owner, name string, tip plumbing.Hash) string {
	repo := strings.ToLower(owner + "/" + name)
	if root, ok := b.roots.Load(repo); ok {
		return root.(string)
	}
	root, err := FirstCommit(r, tip)
	if err != nil {
		b.Log.Warn("could not find the repository's first commit; Slack messages are claimed nowhere", "repo", repo, "err", err)
		return ""
	}
	b.roots.Store(repo, root.String())
	return root.String()
}

// requested reads when the bot last requested each reviewer (by lower-case handle),
// from the pull request's timeline (for a memory rebuilt from GitHub).
func (b *Bot) requested(ctx context.Context, gh pullRequests, pr PullRequest, log *slog.Logger) map[string]time.Time {
	reqs, err := gh.ReviewRequests(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		log.Warn("could not read the review requests of the timeline; sign-off clocks start now", "err", err)
		return nil
	}
	out := map[string]time.Time{}
	for _, rr := range reqs {
		if k := strings.ToLower(rr.Reviewer); strings.EqualFold(rr.By, b.Self) && rr.At.After(out[k]) {
			out[k] = rr.At
		}
	}
	return out
}

// assess judges the change once (verdict.Assess), reads the members of the teams
// whose sign-off it requires, decides whether an override is in force, and settles
// the sign-offs.
func (b *Bot) assess(ctx context.Context, ev *evaluation, opt evalOptions) {
	ev.report = verdict.Assess(ev.in)
	if handles := ev.report.TeamHandles(); len(handles) > 0 {
		ev.in.Members = members(ctx, ev.gh, ev.loaded.Base, handles, ev.log)
	}
	ev.in.Override = b.override(ctx, ev, opt)
	verdict.Settle(ev.in, ev.report)
	b.sharedGate(ctx, ev)
	ev.next = carried(ev.mem.State, ev.report)
	ev.markdown = ev.render(ev.report)
}

// render is the comment's Markdown of r.
func (ev *evaluation) render(r *verdict.Report) string {
	return verdict.Markdown(r, verdict.MarkdownOptions{RepoURL: ev.pr.HTMLURL, HeadSHA: ev.pr.HeadSHA})
}

// sharedGate holds a change that is ready when another open pull request merges the
// same head commit into the same base: the two share the gate (GateName(base) on
// that commit), so one's sign-offs or override would open the other's. Both wait
// until one is closed.
func (b *Bot) sharedGate(ctx context.Context, ev *evaluation) {
	r, pr := ev.report, ev.pr
	if !r.Ready {
		return
	}
	hold := func(why string) {
		r.Ready = false
		r.Blockers = append(r.Blockers, why)
		r.Notices = append(r.Notices, "Not ready: "+why+".")
	}
	prs, err := ev.gh.PullRequestsOfCommit(ctx, pr.Owner, pr.Repo, pr.HeadSHA)
	if err != nil {
		ev.log.Warn("could not list the pull requests of the head commit; the change waits", "err", err)
		hold(fmt.Sprintf("contractbot could not check whether another pull request merges commit %s into %s (it tries again at the next evaluation)", shortSHA(pr.HeadSHA), pr.BaseRef))
		return
	}
	for _, o := range prs {
		if o.Number != pr.Number && o.State == "open" && o.HeadSHA == pr.HeadSHA && o.BaseRef == pr.BaseRef {
			hold(fmt.Sprintf("pull request #%d also merges commit %s into %s, and the two share the check %q; close one of them", o.Number, shortSHA(pr.HeadSHA), pr.BaseRef, GateName(pr.BaseRef)))
		}
	}
}

// members reads the members of team handles: from the members teams.yaml lists at
// the base of the change for the teams with that handle (never from the change
// itself), or else through the API. A team that cannot be read (a wrong handle in
// teams.yaml, no members: read permission, or GITHUB_TOKEN, which cannot list team
// members) is logged and counts as having no members: its sign-off stays pending, and
// the rest of the evaluation goes on.
func members(ctx context.Context, gh teams, base *contract.Tree, handles []string, log *slog.Logger) map[string][]string {
	out := map[string][]string{}
	for _, h := range handles {
		if listed := listedMembers(base, h); listed != nil {
			out[h] = listed
			continue
		}
		org, slug, _ := strings.Cut(strings.TrimPrefix(h, "@"), "/")
		logins, err := gh.TeamMembers(ctx, org, slug)
		if err != nil {
			log.Warn("could not read a team's members; its sign-off cannot be recognised", "team", h, "err", err)
		}
		out[h] = logins
	}
	return out
}

// listedMembers returns the logins teams.yaml lists as members of the teams that
// have handle h, or nil when none of them lists members.
func listedMembers(base *contract.Tree, h string) []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(base.Teams)) {
		t := base.Teams[id]
		if len(t.Members) == 0 || !slices.ContainsFunc(t.GitHub, func(g string) bool { return strings.EqualFold(g, h) }) {
			continue
		}
		for _, m := range t.Members {
			out = append(out, strings.TrimPrefix(m, "@"))
		}
	}
	return out
}

// stateOf is the state to write in the comment: the report's, with the Slack memory
// mem (reminder marks, threads, announcements, FYIs told).
func (ev *evaluation) stateOf(mem State) State {
	r := ev.report
	st := State{HeadSHA: ev.pr.HeadSHA, EvaluatedAt: r.Now, Class: string(r.Class), Teams: r.State, Override: r.Override,
		Reminded: mem.Reminded, Slack: mem.Slack, Announced: mem.Announced, Told: mem.Told}
	switch prev := ev.mem.State; {
	case !ev.written.HeadSince.IsZero(): // this evaluation wrote the comment already
		st.HeadSince = ev.written.HeadSince
	case prev != nil && !ev.mem.Rebuilt && prev.HeadSHA == st.HeadSHA:
		st.HeadSince = prev.HeadSince // zero: set when written (converge.go)
	}
	for _, sr := range r.Subjects {
		st.Subjects = append(st.Subjects, sr.Subject)
	}
	for _, so := range r.SignOffs {
		st.SignOffs = append(st.SignOffs, SignOffSummary{Team: so.Team, Status: string(so.Status), Deadline: so.Deadline, ApprovedBy: so.ApprovedBy, ApprovedAt: so.ApprovedAt})
	}
	return st
}

// stateToWrite is the state converge writes.
func (ev *evaluation) stateToWrite() State { return ev.stateOf(ev.next) }
