package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/verdict"
)

// Bot evaluates pull requests and converges GitHub's state.
type Bot struct {
	// Clients gives the API and Git credentials per repository (a GitHub App's
	// installations); when nil, GH and Auth serve every repository.
	Clients Clients
	GH      GitHub
	Cache   *GitCache
	// Auth returns the credentials for fetching owner/repo (nil for none).
	Auth func(ctx context.Context, owner, repo string) (transport.AuthMethod, error)
	Now  func() time.Time
	Log  *slog.Logger
	// Notify, when set, receives the sign-off reminders and escalations (Slack).
	Notify Notifier
	// Publishing, when set, publishes pushes to the default branch.
	Publishing *Publishing
	// AdminTeam ("org/slug") may override the bot with /contractbot override.
	AdminTeam string
	// Marks are when reminders go out before a deadline (DefaultMarks when nil).
	Marks []time.Duration
	// CloneURL, when set, gives the Git URL of owner/repo instead of the one GitHub
	// reports (a mirror, or a local path in tests).
	CloneURL func(owner, repo string) string
}

// prEvent is the part of a pull_request or pull_request_review payload the bot reads.
type prEvent struct {
	Action       string `json:"action"`
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	PullRequest struct {
		Number int `json:"number"`
	} `json:"pull_request"`
	Repository struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
	} `json:"repository"`
	Changes struct {
		Base *json.RawMessage `json:"base"`
	} `json:"changes"`
}

// Route maps a delivery to a job: pull_request (opened, synchronize, reopened,
// ready_for_review, edited with a new base) and pull_request_review (submitted,
// edited, dismissed) evaluate the pull request; everything else is ignored.
func (b *Bot) Route(d server.Delivery) (*server.Job, error) {
	var ev prEvent
	switch d.Event {
	case "pull_request", "pull_request_review":
	case "issue_comment":
		return b.routeComment(d)
	case "push":
		return b.routePush(d)
	default:
		return nil, nil
	}
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		return nil, fmt.Errorf("%s payload: %w", d.Event, err)
	}
	owner, repo, n := ev.Repository.Owner.Login, ev.Repository.Name, ev.PullRequest.Number
	if owner == "" || repo == "" || n == 0 {
		return nil, fmt.Errorf("%s payload without repository or pull request number", d.Event)
	}
	switch {
	case d.Event == "pull_request" && (ev.Action == "opened" || ev.Action == "synchronize" || ev.Action == "reopened" || ev.Action == "ready_for_review"):
	case d.Event == "pull_request" && ev.Action == "edited" && ev.Changes.Base != nil:
	case d.Event == "pull_request_review" && (ev.Action == "submitted" || ev.Action == "edited" || ev.Action == "dismissed"):
	default:
		return nil, nil
	}
	key := fmt.Sprintf("%s/%s#%d", owner, repo, n)
	log := b.Log.With("delivery", d.ID, "repository", owner+"/"+repo, "pull_request", n)
	return &server.Job{Key: key, Run: func(ctx context.Context) error {
		if err := b.EvaluateInstallation(ctx, owner, repo, n, ev.Installation.ID, log); err != nil {
			return fmt.Errorf("evaluate pull request %s: %w", key, err)
		}
		return nil
	}, Failed: b.showFailure(owner, repo, n, ev.Installation.ID, log)}, nil
}

// clients returns the API and Git credentials for a repository.
func (b *Bot) clients(ctx context.Context, owner, repo string, installation int64) (GitHub, transport.AuthMethod, error) {
	if b.Clients != nil {
		return b.Clients.For(ctx, owner, repo, installation)
	}
	var auth transport.AuthMethod
	if b.Auth != nil {
		var err error
		if auth, err = b.Auth(ctx, owner, repo); err != nil {
			return nil, nil, err
		}
	}
	return b.GH, auth, nil
}

// Evaluate reads the pull request, evaluates it with the shared verdict and converges
// GitHub's state. It is idempotent: running it twice changes nothing the second time.
func (b *Bot) Evaluate(ctx context.Context, owner, repo string, number int, log *slog.Logger) error {
	return b.EvaluateInstallation(ctx, owner, repo, number, 0, log)
}

// EvaluateInstallation is Evaluate for a GitHub App installation known from the
// webhook (0: look it up).
func (b *Bot) EvaluateInstallation(ctx context.Context, owner, repo string, number int, installation int64, log *slog.Logger) error {
	return b.evaluate(ctx, owner, repo, number, installation, evalOptions{}, log)
}

// evalOptions carry what a pull-request command adds to an evaluation.
type evalOptions struct {
	override *verdict.Override
	// remindAll sends a reminder to every pending team now, whatever was sent.
	remindAll bool
}

func (b *Bot) evaluate(ctx context.Context, owner, repo string, number int, installation int64, opt evalOptions, log *slog.Logger) error {
	api, auth, err := b.clients(ctx, owner, repo, installation)
	if err != nil {
		return err
	}
	gh := &onceGitHub{GitHub: api}
	pr, err := gh.GetPullRequest(ctx, owner, repo, number)
	if err != nil {
		return fmt.Errorf("read the pull request: %w", err)
	}
	log = log.With("head_sha", pr.HeadSHA)
	if pr.State != "" && pr.State != "open" {
		log.Info("pull request is closed; nothing to do")
		return nil
	}
	head, base := plumbing.NewHash(pr.HeadSHA), plumbing.NewHash(pr.BaseSHA)
	url := pr.CloneURL
	if b.CloneURL != nil {
		url = b.CloneURL(owner, repo)
	}
	r, err := b.Cache.Fetch(ctx, owner, repo, url, auth, head, base)
	if err != nil {
		return err
	}
	defer r.Close()
	headCommit, err := r.CommitObject(head)
	if err != nil {
		return err
	}
	baseCommit, err := r.CommitObject(base)
	if err != nil {
		return err
	}
	bases, err := headCommit.MergeBase(baseCommit)
	if err != nil || len(bases) == 0 {
		return fmt.Errorf("no merge base between %s and %s: %v", pr.HeadSHA[:12], pr.BaseSHA[:12], err)
	}
	baseSrc, err := contract.NewGitSource(r.Repository, bases[0].Hash.String())
	if err != nil {
		return err
	}
	headSrc, err := contract.NewGitSource(r.Repository, pr.HeadSHA)
	if err != nil {
		return err
	}
	loaded, err := change.Load(change.Change{Base: baseSrc, Head: headSrc, Repo: r.Repository, HistoryAt: bases[0].Hash})
	if err != nil {
		return err
	}
	reviews, err := gh.ListReviews(ctx, owner, repo, number)
	if err != nil {
		return fmt.Errorf("read the reviews: %w", err)
	}
	prev := previousState(ctx, gh, pr, log)
	in := verdict.Input{
		Base: loaded.Base, Head: loaded.Head, History: loaded.History,
		Author: pr.Author, Reviews: reviews, OpenedAt: pr.CreatedAt, Now: b.Now(),
	}
	if prev != nil {
		in.Prior, in.Override = prev.Teams, prev.Override
	}
	if opt.override != nil {
		in.Override = opt.override
	}
	// Team memberships are read only for the teams whose sign-off is required.
	in.Members = members(ctx, gh, verdict.Evaluate(in), log)
	report := verdict.Evaluate(in)
	prev = b.remind(ctx, *pr, report, loaded.Head, prev, opt.remindAll, log)
	md := verdict.Markdown(report, verdict.MarkdownOptions{RepoURL: pr.HTMLURL, HeadSHA: pr.HeadSHA})
	if _, err := Converge(ctx, gh, *pr, report, prev, md, log); err != nil {
		return err
	}
	log.Info("evaluated", "class", report.Class, "ready", report.Ready, "signoffs", len(report.SignOffs))
	return nil
}

// remind keeps Slack in line with the report and returns the state to remember:
// each team whose sign-off is required has one message about the pull request in its
// channel, edited in place when the facts change; reminders and the escalation due now
// are threaded under it (an escalation also goes to the team's escalation channel and
// the producers' channels); the producers hear once when every sign-off is in. A
// reminder's mark is recorded only when every channel got it.
func (b *Bot) remind(ctx context.Context, pr PullRequest, r *verdict.Report, head *contract.Tree, prev *State, all bool, log *slog.Logger) *State {
	if b.Notify == nil {
		return prev
	}
	marks := b.Marks
	if marks == nil {
		marks = DefaultMarks
	}
	next := State{}
	if prev != nil {
		next = *prev
		next.Reminded = keepReminders(prev.Reminded, prev.Teams, r.State)
	}
	threads := map[string]SlackThread{}
	for k, v := range next.Slack {
		threads[k] = v
	}
	for _, so := range r.SignOffs {
		team := head.Teams[so.Team]
		if team == nil || team.Slack == "" {
			continue
		}
		msg := TeamMessage(pr, so)
		th, ok := threads[so.Team]
		switch {
		case ok && th.Channel == team.Slack && th.Digest == msg.digest():
		case ok && th.Channel == team.Slack:
			if err := b.Notify.Update(ctx, th.Channel, th.TS, msg); err != nil {
				log.Warn("Slack update failed; retried at the next evaluation", "channel", th.Channel, "err", err)
				continue
			}
			th.Digest = msg.digest()
			threads[so.Team] = th
		default:
			ts, err := b.Notify.Post(ctx, team.Slack, msg, "")
			if err != nil {
				log.Warn("Slack message failed; retried at the next evaluation", "channel", team.Slack, "err", err)
				continue
			}
			threads[so.Team] = SlackThread{Channel: team.Slack, TS: ts, Digest: msg.digest()}
		}
	}
	due := DueReminders(r, next.Reminded, r.Now, marks)
	if all {
		due = nil
		for _, so := range r.SignOffs {
			if so.Status != verdict.Approved {
				due = append(due, Reminder{Team: so.Team, Mark: "manual", Deadline: so.Deadline, SignOff: so})
			}
		}
	}
	for _, rem := range due {
		channels := reminderChannels(head, r, rem)
		if len(channels) == 0 {
			log.Warn("no Slack channel for a reminder; add slack: to the team in teams.yaml", "team", rem.Team, "mark", rem.Mark)
			continue
		}
		msg := ReminderMessage(pr, rem, r.Now)
		ok := true
		for _, ch := range channels {
			thread := ""
			if th, has := threads[rem.Team]; has && th.Channel == ch {
				thread = th.TS
			}
			if _, err := b.Notify.Post(ctx, ch, msg, thread); err != nil {
				ok = false
				log.Warn("Slack message failed; it is sent again at the next evaluation", "channel", ch, "team", rem.Team, "mark", rem.Mark, "err", err)
			}
		}
		if ok && rem.Mark != "manual" {
			next.Reminded = MarkSent(next.Reminded, rem, marks)
			log.Info("reminder sent", "team", rem.Team, "mark", rem.Mark)
		}
	}
	if allApproved(r) && !contains(next.Announced, "all-signed-off") {
		ok := true
		for _, ch := range producerChannels(head, r) {
			if _, err := b.Notify.Post(ctx, ch, AllSignedOffMessage(pr, r), ""); err != nil {
				ok = false
				log.Warn("Slack message failed; it is sent again at the next evaluation", "channel", ch, "err", err)
			}
		}
		if ok {
			next.Announced = append(next.Announced, "all-signed-off")
		}
	}
	if len(threads) > 0 {
		next.Slack = threads
	}
	return &next
}

func allApproved(r *verdict.Report) bool {
	if len(r.SignOffs) == 0 {
		return false
	}
	for _, so := range r.SignOffs {
		if so.Status != verdict.Approved {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// producerChannels are the Slack channels of the changed subjects' owners.
func producerChannels(head *contract.Tree, r *verdict.Report) []string {
	var out []string
	for _, s := range r.Subjects {
		if owner := head.Teams[s.Owner]; owner != nil && owner.Slack != "" && !contains(out, owner.Slack) {
			out = append(out, owner.Slack)
		}
	}
	return out
}

// reminderChannels lists the channels of a reminder, without repeats.
func reminderChannels(head *contract.Tree, r *verdict.Report, rem Reminder) []string {
	var out []string
	add := func(ch string) {
		if ch == "" {
			return
		}
		for _, have := range out {
			if have == ch {
				return
			}
		}
		out = append(out, ch)
	}
	team := head.Teams[rem.Team]
	if team != nil {
		add(team.Slack)
	}
	if rem.Escalation() {
		if team != nil && team.Escalation != nil {
			add(team.Escalation.Slack)
		}
		for _, ch := range producerChannels(head, r) {
			add(ch)
		}
	}
	return out
}

// previousState reads the state block of the bot's comment, if any.
func previousState(ctx context.Context, gh GitHub, pr *PullRequest, log *slog.Logger) *State {
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

// members reads the members of every team handle that a sign-off needs. A team that
// cannot be read (a wrong handle in teams.yaml, or no members: read permission) is
// logged and counts as having no members: its sign-off stays pending, and the rest of
// the evaluation goes on.
func members(ctx context.Context, gh GitHub, r *verdict.Report, log *slog.Logger) map[string][]string {
	out := map[string][]string{}
	for _, so := range r.SignOffs {
		for _, h := range so.Handles {
			org, slug, isTeam := strings.Cut(strings.TrimPrefix(h, "@"), "/")
			if !isTeam {
				continue
			}
			if _, done := out[h]; done {
				continue
			}
			logins, err := gh.TeamMembers(ctx, org, slug)
			if err != nil {
				log.Warn("could not read a team's members; its sign-off cannot be recognised", "team", h, "err", err)
			}
			out[h] = logins
		}
	}
	return out
}
