package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/verdict"
)

// CheckName starts the name of the bot's gate: one check run (or, in token mode, one
// commit status) per base branch, GateName.
const CheckName = "contractbot"

// GateName is the name of the bot's check run and commit status for pull requests
// into base ("contractbot: main", policy-bot's convention): the verdict on a commit
// is per base branch, so two pull requests that share a head commit into different
// bases each have their own, and one's evaluation cannot turn the other's required
// check green. Branch protection requires the gate of its own branch.
func GateName(base string) string { return CheckName + ": " + base }

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
	// FindCheckRun returns the newest check run called name on sha that app (the
	// App's slug; "" for any) created, if there is one.
	FindCheckRun(ctx context.Context, owner, repo, sha, name, app string) (CheckRunRef, bool, error)
	CreateCheckRun(ctx context.Context, owner, repo string, in CheckRunInput) (int64, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, in CheckRunInput) error
}

// statuses reads and sets commit statuses.
type statuses interface {
	// CommitStatuses lists the states of a commit's statuses of one context that
	// creator ("" for anyone) set.
	CommitStatuses(ctx context.Context, owner, repo, sha, context, creator string) ([]string, error)
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

// converge is the pipeline's last stage: GitHub shows the report. One sticky comment
// (edited in place, signed, holding the state notify left), a check run on the head
// commit with annotations in batches, or where the Checks API refuses the credentials
// (403: a token, not a GitHub App) a commit status "contractbot" with the verdict line
// and a link to the comment; review requests to the teams whose sign-off is newly
// required; labels that mirror the verdict. Each side effect is tried whatever
// happened to the others; a failure is logged and counted
// (contractbot_side_effect_failures_total). A failed comment or verdict (check run
// and status) is returned, so the job is retried and the failure shown.
func (b *Bot) converge(ctx context.Context, ev *evaluation) error {
	pr, r := *ev.pr, ev.report
	st := ev.stateToWrite()
	var errs []error
	fail := func(effect string, err error, args ...any) {
		b.Metrics.failed(effect)
		ev.log.Warn(effect+" failed; the others go on, and the next evaluation tries again", append(args, "err", err)...)
	}
	var comment Comment
	seal := "" // set when the comment is written: the check run then carries its time
	switch {
	case ev.noComment:
	case b.unchanged(ev, st):
		// Written as it stands: its seal on the check run stays, and notify's
		// memory is written over it (keepSent) as over a comment written now.
		comment, ev.written = *ev.mem.Comment, *ev.mem.State
	default:
		st.WrittenAt = b.now().UTC()
		if st.HeadSince.IsZero() {
			st.HeadSince = st.WrittenAt
		}
		c, err := b.writeComment(ctx, ev.gh, pr, st, ev.markdown)
		if err != nil {
			fail("comment", err)
			errs = append(errs, fmt.Errorf("update the sticky comment: %w", err))
		} else {
			seal, ev.written = sealOf(st.WrittenAt), st
		}
		comment = c
	}
	checkErr := errStatusOnly
	if !ev.statusOnly {
		checkErr = upsertCheckRun(ctx, ev.gh, b.app(), pr, r, seal)
	}
	if checkErr != nil {
		if !errors.Is(checkErr, errStatusOnly) && !githubapi.IsForbidden(checkErr) {
			fail("check_run", checkErr)
			errs = append(errs, fmt.Errorf("update the check run: %w", checkErr))
		} else if err := ev.gh.CreateStatus(ctx, pr.Owner, pr.Repo, pr.HeadSHA, verdictStatus(pr.BaseRef, r, comment)); err != nil {
			fail("commit_status", err)
			errs = append(errs, fmt.Errorf("set the commit status %s: %w", GateName(pr.BaseRef), err))
		}
	}
	if checkErr == nil && Conclusion(r) != ConclusionSuccess {
		b.correctStatus(ctx, ev, comment, fail)
	}
	if users, teams := newReviewRequests(r, ev.prior(), ev.in.Requested); len(users)+len(teams) > 0 {
		if err := ev.gh.RequestReviewers(ctx, pr.Owner, pr.Repo, pr.Number, users, teams); err != nil {
			fail("review_request", err, "users", users, "teams", teams)
		}
	}
	add, remove := LabelChanges(pr.Labels, WantLabels(r))
	if len(add) > 0 {
		if err := ev.gh.AddLabels(ctx, pr.Owner, pr.Repo, pr.Number, add); err != nil {
			fail("label", err, "labels", add)
		}
	}
	for _, l := range remove {
		if err := ev.gh.RemoveLabel(ctx, pr.Owner, pr.Repo, pr.Number, l); err != nil {
			fail("label", err, "label", l)
		}
	}
	return errors.Join(errs...)
}

// correctStatus writes the verdict as a commit status too when the newest status
// named like the gate on the head says success (App mode): someone else set it, and
// branch protection that accepts the check from any source would let the change
// merge on it. The bot's own status, newer, takes its place.
func (b *Bot) correctStatus(ctx context.Context, ev *evaluation, comment Comment, fail func(string, error, ...any)) {
	pr := ev.pr
	states, err := ev.gh.CommitStatuses(ctx, pr.Owner, pr.Repo, pr.HeadSHA, GateName(pr.BaseRef), "")
	if err != nil {
		fail("commit_status", err)
		return
	}
	if len(states) == 0 || states[0] != "success" {
		return
	}
	ev.log.Warn("a success status named like the gate, not the bot's, is on the head; the bot writes its verdict over it")
	if err := ev.gh.CreateStatus(ctx, pr.Owner, pr.Repo, pr.HeadSHA, verdictStatus(pr.BaseRef, ev.report, comment)); err != nil {
		fail("commit_status", err)
	}
}

// errStatusOnly stands for the check run not written where the verdict is a commit
// status by design (EvaluateCheckout).
var errStatusOnly = errors.New("the verdict is a commit status")

// verdictStatus is the commit status GateName(base) that stands for the check run in
// token mode:
// success only when the change may merge; pending while it waits for what it needs;
// failure when the contract files are broken. The description is the verdict line,
// the target the bot's comment.
func verdictStatus(base string, r *verdict.Report, comment Comment) githubapi.Status {
	st := githubapi.Status{Context: GateName(base), Description: checkTitle(r), TargetURL: comment.HTMLURL}
	switch Conclusion(r) {
	case ConclusionSuccess:
		st.State = "success"
	case ConclusionFailure:
		st.State = "failure"
	default:
		st.State = "pending"
	}
	if len(st.Description) > 140 {
		st.Description = st.Description[:137] + "..."
	}
	return st
}

// unchanged says whether writing st would leave the bot's comment as it is but for
// the time of the evaluation (in its footer and state) and of the write: the verified
// comment already shows this report and this state. The write is then skipped: a
// reconcile loop evaluates every open pull request again and again, and each PATCH
// counts against GitHub's rate limits. The comment keeps the times of the last
// evaluation that changed it.
func (b *Bot) unchanged(ev *evaluation, st State) bool {
	prev, c := ev.mem.State, ev.mem.Comment
	if prev == nil || c == nil || ev.mem.Rebuilt || st.HeadSince.IsZero() {
		return false
	}
	st.WrittenAt, st.EvaluatedAt = prev.WrittenAt, prev.EvaluatedAt
	then := *ev.report
	then.Now = prev.EvaluatedAt
	body, err := memory.RenderComment(b.StateKey, commentRef(*ev.pr), ev.render(&then), st)
	return err == nil && body == c.Body
}

// writeComment signs the state into the comment and writes it (memory.Keeper.Write).
func (b *Bot) writeComment(ctx context.Context, gh comments, pr PullRequest, st State, markdown string) (Comment, error) {
	return b.keeper().Write(ctx, gh, pr, st, markdown)
}

// upsertCheckRun creates or updates the check run on the head SHA, sending the
// annotations in the batches verdict.CheckRunOutput lays out (GitHub appends them per
// request; the run carries at most verdict.MaxCheckRunAnnotations, its summary counts
// the rest). Only a run app created is updated (GitHub refuses the others). seal, when
// set, becomes the run's external_id (internal/bot/memory, Seal).
func upsertCheckRun(ctx context.Context, gh checkRuns, app string, pr PullRequest, r *verdict.Report, seal string) error {
	out := verdict.CheckRunOutput(r)
	name := GateName(pr.BaseRef)
	in := CheckRunInput{Name: name, HeadSHA: pr.HeadSHA, Conclusion: Conclusion(r), Title: checkTitle(r), Summary: out.Summary, ExternalID: seal}
	if len(out.Batches) > 0 {
		in.Annotations = out.Batches[0]
	}
	run, found, err := gh.FindCheckRun(ctx, pr.Owner, pr.Repo, pr.HeadSHA, name, app)
	if err != nil {
		return err
	}
	id := run.ID
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
		more.ExternalID = ""
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
//
// When the memory was rebuilt (there is no verified previous state), a handle the
// timeline shows the bot already asked is not asked again: a new request would restart
// the clock the next rebuild reads from the timeline, so editing the bot's comment
// again and again could keep a sign-off from ever falling due.
func newReviewRequests(r *verdict.Report, prev *State, requested map[string]time.Time) (users, teams []string) {
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
			if _, asked := requested[strings.ToLower(h)]; asked {
				continue
			}
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
