package bot

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/contractbot/contractbot/internal/bot/slack"
)

// Slack's side effects come after GitHub's (evaluate.go, run), and a Slack message
// that fails is not left for the next event: the pull request is evaluated again on
// its own schedule, after what Slack asked for (429 Retry-After) or a backoff that
// doubles from Bot.SlackRetry (DefaultSlackRetry) up to MaxSlackRetry, until an
// evaluation sends everything. The retries run through the webhook queue (Bot.Queue),
// behind and never instead of the pull request's other jobs; without a queue the
// next event or the reconcile loop sends what failed.

// DefaultSlackRetry is the first wait before a Slack message that failed is tried
// again; MaxSlackRetry the longest.
const (
	DefaultSlackRetry = 30 * time.Second
	MaxSlackRetry     = 15 * time.Minute
)

// slackFailed records a failed Slack call of the evaluation.
func (ev *evaluation) slackFailed(err error) {
	ev.slackFailures++
	if d, ok := slack.RetryAfter(err); ok && d > ev.retryAfter {
		ev.retryAfter = d
	}
}

// slackRetries are the retries scheduled, per pull request.
type slackRetries struct {
	mu      sync.Mutex
	backoff map[string]time.Duration
	pending map[string]bool
}

// scheduleSlackRetry queues the evaluation again when Slack failed, once per pull
// request at a time; an evaluation whose Slack messages all went out resets the
// backoff.
func (b *Bot) scheduleSlackRetry(ev *evaluation) {
	pr := ev.pr
	key := fmt.Sprintf("%s/%s#%d", pr.Owner, pr.Repo, pr.Number)
	s := &b.slackRetries
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.slackFailures == 0 {
		delete(s.backoff, key)
		return
	}
	if b.Queue == nil || s.pending[key] {
		return
	}
	first := b.SlackRetry
	if first <= 0 {
		first = DefaultSlackRetry
	}
	wait := s.backoff[key]
	if wait == 0 {
		wait = first
	}
	if s.backoff == nil {
		s.backoff, s.pending = map[string]time.Duration{}, map[string]bool{}
	}
	s.backoff[key] = min(2*wait, MaxSlackRetry)
	wait = max(wait, ev.retryAfter)
	s.pending[key] = true
	log := ev.log.With("slack_retry_in", wait)
	log.Info("Slack failed; the pull request is evaluated again on Slack's schedule")
	owner, repo, n, inst := pr.Owner, pr.Repo, pr.Number, ev.installation
	time.AfterFunc(wait, func() {
		s.mu.Lock()
		delete(s.pending, key)
		s.mu.Unlock()
		b.enqueue(context.Background(), b.evaluationJobFor(owner, repo, n, inst, evalOptions{}, log), log)
	})
}

// keepSent writes the comment again when notify changed the Slack memory converge
// wrote (what was sent, where the teams' threads are). What another replica recorded
// since this evaluation read the comment is kept: the comment is read afresh and its
// records merged in first.
// before is sentPart of the state converge wrote.
func (b *Bot) keepSent(ctx context.Context, ev *evaluation, before State) {
	if ev.noComment || ev.written.WrittenAt.IsZero() {
		return
	}
	if reflect.DeepEqual(before, sentPart(ev.stateToWrite())) {
		return
	}
	ev.gh.forget()
	if m, err := b.keeper().Reread(ctx, ev.gh, *ev.pr, ev.log); err != nil {
		ev.log.Warn("could not read the comment back before recording what was sent", "err", err)
	} else if m.State != nil {
		ev.mergeSent(*m.State)
	}
	st := ev.stateToWrite()
	st.HeadSince, st.WrittenAt = ev.written.HeadSince, b.now().UTC()
	if _, err := b.writeComment(ctx, ev.gh, *ev.pr, st, ev.markdown); err != nil {
		b.Metrics.failed("comment")
		ev.log.Warn("could not write what was sent to Slack into the comment; Slack itself still tells (sent.go)", "err", err)
	}
}

// mergeSent adds to ev.next what fresh (the comment as another evaluation left it)
// records as sent for the report's current requirements: a team's message this
// evaluation does not know, reminder marks, announcements, FYIs told.
func (ev *evaluation) mergeSent(fresh State) {
	for team, th := range fresh.Slack {
		if mine, ok := ev.next.Slack[team]; th.TS != "" && (!ok || mine.TS == "") {
			ev.threaded(team, th)
		}
	}
	ev.next.Announced = mergeList(ev.next.Announced, fresh.Announced)
	ev.next.Told = mergeTold(ev.next.Told, fresh.Told, ev.report)
	for _, so := range ev.report.SignOffs {
		k := reminderKey(so.Team, so.Fingerprint)
		if marks, ok := fresh.Reminded[k]; ok {
			if ev.next.Reminded == nil {
				ev.next.Reminded = map[string][]string{}
			}
			ev.next.Reminded[k] = mergeList(ev.next.Reminded[k], marks)
		}
	}
}

// sentPart is the Slack memory of a state, copied: notify records what it sends in
// the maps the state was made from.
func sentPart(s State) State {
	return State{Reminded: maps.Clone(s.Reminded), Slack: maps.Clone(s.Slack), Told: maps.Clone(s.Told), Announced: slices.Clone(s.Announced)}
}
