package bot

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/bot/githubapi"
	"github.com/contractbot/contractbot/internal/verdict"
)

// CheckName is the name of the bot's check run.
const CheckName = "contractbot"

// MaxAnnotations is how many annotations GitHub accepts in one check-run request.
const MaxAnnotations = verdict.AnnotationsPerRequest

// comments reads and writes the pull request's comments.
type comments interface {
	ListComments(ctx context.Context, owner, repo string, number int) ([]Comment, error)
	CreateComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error)
	EditComment(ctx context.Context, owner, repo string, id int64, body string) error
}

// checkRuns writes the bot's check run (GitHub Apps only).
type checkRuns interface {
	// FindCheckRun returns the id of the bot's check run on sha, if there is one.
	FindCheckRun(ctx context.Context, owner, repo, sha, name string) (int64, bool, error)
	CreateCheckRun(ctx context.Context, owner, repo string, in CheckRunInput) (int64, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, in CheckRunInput) error
}

// statuses reads and sets commit statuses.
type statuses interface {
	// CommitStatuses lists the states of a commit's statuses of one context.
	CommitStatuses(ctx context.Context, owner, repo, sha, context string) ([]string, error)
	CreateStatus(ctx context.Context, owner, repo, sha string, st githubapi.Status) error
}

// reviewRequester asks for reviews.
type reviewRequester interface {
	RequestReviewers(ctx context.Context, owner, repo string, number int, users, teams []string) error
}

// labeler adds and removes the pull request's labels.
type labeler interface {
	AddLabels(ctx context.Context, owner, repo string, number int, labels []string) error
	RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error
}

// converge is the pipeline's last stage: GitHub shows the report, and the comment
// keeps the state notify left.
func (b *Bot) converge(ctx context.Context, ev *evaluation) error {
	md := verdict.Markdown(ev.report, verdict.MarkdownOptions{RepoURL: ev.pr.HTMLURL, HeadSHA: ev.pr.HeadSHA})
	_, err := converge(ctx, ev.gh, *ev.pr, ev.report, ev.prev, ev.next, md, ev.log)
	return err
}

// Converge makes GitHub show the report: one sticky comment (edited in place, never
// duplicated), a check run on the head SHA with annotations in batches, review
// requests to the teams whose sign-off is newly required, and labels that mirror the
// verdict. The comment and the check run are the bot's memory, so a failure there is
// returned; review requests and labels are best effort (logged, never failing).
func Converge(ctx context.Context, gh GitHub, pr PullRequest, r *verdict.Report, prev *State, markdown string, log *slog.Logger) (State, error) {
	var memory State
	if prev != nil {
		memory.Reminded = keepReminders(prev.Reminded, prev.Teams, r.State)
		memory.Slack, memory.Announced = prev.Slack, prev.Announced
	}
	return converge(ctx, gh, pr, r, prev, memory, markdown, log)
}

// converge is Converge with the Slack memory (reminders, threads, announcements) to
// keep given.
func converge(ctx context.Context, gh GitHub, pr PullRequest, r *verdict.Report, prev *State, memory State, markdown string, log *slog.Logger) (State, error) {
	st := State{HeadSHA: pr.HeadSHA, EvaluatedAt: r.Now, Class: string(r.Class), Teams: r.State, Override: r.Override,
		Reminded: memory.Reminded, Slack: memory.Slack, Announced: memory.Announced}
	for _, sr := range r.Subjects {
		st.Subjects = append(st.Subjects, sr.Subject)
	}
	for _, so := range r.SignOffs {
		st.SignOffs = append(st.SignOffs, SignOffSummary{Team: so.Team, Status: string(so.Status), Deadline: so.Deadline, ApprovedBy: so.ApprovedBy})
	}
	body, err := RenderComment(markdown, st)
	if err != nil {
		return st, err
	}
	if err := upsertComment(ctx, gh, pr, body); err != nil {
		return st, fmt.Errorf("update the sticky comment: %w", err)
	}
	if err := upsertCheckRun(ctx, gh, pr, r); err != nil {
		return st, fmt.Errorf("update the check run: %w", err)
	}
	if users, teams := newReviewRequests(r, prev); len(users)+len(teams) > 0 {
		if err := gh.RequestReviewers(ctx, pr.Owner, pr.Repo, pr.Number, users, teams); err != nil {
			log.Warn("review request failed", "err", err, "users", users, "teams", teams)
		}
	}
	add, remove := LabelChanges(pr.Labels, WantLabels(r))
	if len(add) > 0 {
		if err := gh.AddLabels(ctx, pr.Owner, pr.Repo, pr.Number, add); err != nil {
			log.Warn("adding labels failed", "err", err, "labels", add)
		}
	}
	for _, l := range remove {
		if err := gh.RemoveLabel(ctx, pr.Owner, pr.Repo, pr.Number, l); err != nil {
			log.Warn("removing a label failed", "err", err, "label", l)
		}
	}
	return st, nil
}

// upsertComment edits the bot's comment, or creates it when there is none. Extra
// copies (left by a race between replicas) are edited to point at the first.
func upsertComment(ctx context.Context, gh comments, pr PullRequest, body string) error {
	comments, err := gh.ListComments(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		return err
	}
	var mine []Comment
	for _, c := range comments {
		if IsBotComment(c.Body) {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		_, err := gh.CreateComment(ctx, pr.Owner, pr.Repo, pr.Number, body)
		return err
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].ID < mine[j].ID })
	if mine[0].Body != body {
		if err := gh.EditComment(ctx, pr.Owner, pr.Repo, mine[0].ID, body); err != nil {
			return err
		}
	}
	for _, dup := range mine[1:] {
		note := "<!-- contractbot:duplicate -->\nThis comment is superseded by the first contractbot comment on this pull request."
		if dup.Body != note {
			if err := gh.EditComment(ctx, pr.Owner, pr.Repo, dup.ID, note); err != nil {
				return err
			}
		}
	}
	return nil
}

// upsertCheckRun creates or updates the check run on the head SHA, sending the
// annotations in the batches verdict.CheckRunOutput lays out (GitHub appends them per
// request; the run carries at most verdict.MaxCheckRunAnnotations, its summary counts
// the rest).
func upsertCheckRun(ctx context.Context, gh checkRuns, pr PullRequest, r *verdict.Report) error {
	out := verdict.CheckRunOutput(r)
	in := CheckRunInput{Name: CheckName, HeadSHA: pr.HeadSHA, Conclusion: Conclusion(r), Title: checkTitle(r), Summary: out.Summary}
	if len(out.Batches) > 0 {
		in.Annotations = out.Batches[0]
	}
	id, found, err := gh.FindCheckRun(ctx, pr.Owner, pr.Repo, pr.HeadSHA, CheckName)
	if err != nil {
		return err
	}
	if found {
		err = gh.UpdateCheckRun(ctx, pr.Owner, pr.Repo, id, in)
	} else {
		id, err = gh.CreateCheckRun(ctx, pr.Owner, pr.Repo, in)
	}
	if err != nil {
		return err
	}
	for i := 1; i < len(out.Batches); i++ {
		more := in
		more.Annotations = out.Batches[i]
		if err := gh.UpdateCheckRun(ctx, pr.Owner, pr.Repo, id, more); err != nil {
			return err
		}
	}
	return nil
}

func checkTitle(r *verdict.Report) string {
	switch {
	case r.Ready:
		return fmt.Sprintf("%s: ready to merge", r.Class)
	case len(r.Blockers) == 1:
		return fmt.Sprintf("%s: 1 thing blocks the merge", r.Class)
	}
	return fmt.Sprintf("%s: %d things block the merge", r.Class, len(r.Blockers))
}

// newReviewRequests lists the reviewers to ask: the handles of teams whose sign-off is
// pending and either new or dropped since the last evaluation (a changed
// fingerprint). Teams already asked are not asked again on every event.
func newReviewRequests(r *verdict.Report, prev *State) (users, teams []string) {
	for _, so := range r.SignOffs {
		if so.Status == verdict.Approved {
			continue
		}
		if prev != nil {
			if old, ok := prev.Teams[so.Team]; ok && old.Fingerprint == so.Fingerprint {
				continue
			}
		}
		for _, h := range so.Handles {
			h = strings.TrimPrefix(h, "@")
			if _, slug, isTeam := strings.Cut(h, "/"); isTeam {
				teams = append(teams, slug)
			} else {
				users = append(users, h)
			}
		}
	}
	return users, teams
}

// keepReminders keeps the reminder marks of teams whose sign-off is still the same
// one; a new or changed requirement starts its reminders afresh.
func keepReminders(reminded map[string][]string, before, now map[string]verdict.TeamState) map[string][]string {
	out := map[string][]string{}
	for team, marks := range reminded {
		if b, ok := before[team]; ok && now[team].Fingerprint == b.Fingerprint {
			out[team] = marks
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
