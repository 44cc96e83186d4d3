package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/verdict"
)

// Evaluate reads the pull request, evaluates it with the shared verdict and converges
// GitHub's state. It is idempotent: running it twice changes nothing the second time.
func (b *Bot) Evaluate(ctx context.Context, owner, repo string, number int, log *slog.Logger) error {
	return b.evaluate(ctx, owner, repo, number, 0, evalOptions{}, log)
}

// evalOptions carry what a pull-request command adds to an evaluation.
type evalOptions struct {
	override *verdict.Override
	// remindAll sends a reminder to every pending team now, whatever was sent.
	remindAll bool
}

// evaluation is one pass of the pipeline over a pull request: what load read, what
// evaluate decided, and the state notify and converge leave behind.
type evaluation struct {
	gh     GitHub
	pr     *PullRequest
	loaded *change.Loaded
	in     verdict.Input
	prev   *State
	report *verdict.Report
	// next is the state to write in the comment.
	next State
	log  *slog.Logger
}

// evaluate runs the pipeline: load -> evaluate -> notify -> converge.
func (b *Bot) evaluate(ctx context.Context, owner, repo string, number int, installation int64, opt evalOptions, log *slog.Logger) error {
	gh, auth, err := b.clients(ctx, owner, repo, installation)
	if err != nil {
		return err
	}
	ev, err := b.load(ctx, &onceGitHub{GitHub: gh}, auth, owner, repo, number, log)
	if err != nil || ev == nil {
		return err
	}
	b.assess(ctx, ev, opt)
	b.notify(ctx, ev, opt)
	if err := b.converge(ctx, ev); err != nil {
		return err
	}
	r := ev.report
	ev.log.Info("evaluated", "class", r.Class, "ready", r.Ready, "signoffs", len(r.SignOffs))
	return nil
}

// load reads the pull request, the change between its merge base and its head, its
// reviews and the bot's state; nil when the pull request is closed.
func (b *Bot) load(ctx context.Context, gh GitHub, auth transport.AuthMethod, owner, repo string, number int, log *slog.Logger) (*evaluation, error) {
	pr, err := gh.GetPullRequest(ctx, owner, repo, number)
	if err != nil {
		return nil, fmt.Errorf("read the pull request: %w", err)
	}
	log = log.With("head_sha", pr.HeadSHA)
	if pr.State != "" && pr.State != "open" {
		log.Info("pull request is closed; nothing to do")
		return nil, nil
	}
	head, base := plumbing.NewHash(pr.HeadSHA), plumbing.NewHash(pr.BaseSHA)
	url := pr.CloneURL
	if b.CloneURL != nil {
		url = b.CloneURL(owner, repo)
	}
	r, err := b.Cache.Fetch(ctx, owner, repo, url, auth, head, base)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	headCommit, err := r.CommitObject(head)
	if err != nil {
		return nil, err
	}
	baseCommit, err := r.CommitObject(base)
	if err != nil {
		return nil, err
	}
	bases, err := headCommit.MergeBase(baseCommit)
	if err != nil || len(bases) == 0 {
		return nil, fmt.Errorf("no merge base between %s and %s: %v", pr.HeadSHA[:12], pr.BaseSHA[:12], err)
	}
	loaded, err := change.Between(r.Repository, bases[0].Hash, head)
	if err != nil {
		return nil, err
	}
	reviews, err := gh.ListReviews(ctx, owner, repo, number)
	if err != nil {
		return nil, fmt.Errorf("read the reviews: %w", err)
	}
	ev := &evaluation{gh: gh, pr: pr, loaded: loaded, log: log}
	ev.prev = previousState(ctx, gh, pr, log)
	ev.in = verdict.Input{
		Base: loaded.Base, Head: loaded.Head, History: loaded.History,
		Author: pr.Author, Reviews: reviews, OpenedAt: pr.CreatedAt, Now: b.Now(),
	}
	if ev.prev != nil {
		ev.in.Prior, ev.in.Override = ev.prev.Teams, ev.prev.Override
	}
	return ev, nil
}

// assess evaluates the change once, reads the members of the teams whose sign-off
// it requires, and settles the sign-offs with them.
func (b *Bot) assess(ctx context.Context, ev *evaluation, opt evalOptions) {
	if opt.override != nil {
		ev.in.Override = opt.override
	}
	ev.report = verdict.Evaluate(ev.in)
	if handles := ev.report.TeamHandles(); len(handles) > 0 {
		ev.in.Members = members(ctx, ev.gh, handles, ev.log)
		verdict.Settle(ev.in, ev.report)
	}
}

// members reads the members of team handles. A team that cannot be read (a wrong
// handle in teams.yaml, or no members: read permission) is logged and counts as
// having no members: its sign-off stays pending, and the rest of the evaluation goes
// on.
func members(ctx context.Context, gh teams, handles []string, log *slog.Logger) map[string][]string {
	out := map[string][]string{}
	for _, h := range handles {
		org, slug, _ := strings.Cut(strings.TrimPrefix(h, "@"), "/")
		logins, err := gh.TeamMembers(ctx, org, slug)
		if err != nil {
			log.Warn("could not read a team's members; its sign-off cannot be recognised", "team", h, "err", err)
		}
		out[h] = logins
	}
	return out
}

// previousState reads the state block of the bot's comment, if any.
func previousState(ctx context.Context, gh comments, pr *PullRequest, log *slog.Logger) *State {
	comments, err := gh.ListComments(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		log.Warn("could not read comments; starting from a fresh state", "err", err)
		return nil
	}
	for _, c := range comments {
		if !IsBotComment(c.Body) {
			continue
		}
		st, err := ParseState(c.Body)
		if err != nil {
			log.Warn("the bot comment's state does not decode; starting afresh", "err", err)
			return nil
		}
		return &st
	}
	return nil
}
