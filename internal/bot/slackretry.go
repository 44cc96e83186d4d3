package bot

import (
	"context"
	"fmt"
	"reflect"
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
// wrote (what was sent, where the teams' threads are, a claim), unless another
// evaluation claimed this moment's messages and writes it itself.
func (b *Bot) keepSent(ctx context.Context, ev *evaluation, before State) {
	if ev.noComment || ev.commentDeferred || ev.written.WrittenAt.IsZero() {
		return
	}
	st := ev.stateToWrite()
	if reflect.DeepEqual(sentPart(before), sentPart(st)) {
		return
	}
	st.HeadSince, st.WrittenAt = ev.written.HeadSince, b.now().UTC()
	if _, err := b.writeComment(ctx, ev.gh, *ev.pr, st, ev.markdown); err != nil {
		b.Metrics.failed("comment")
		ev.log.Warn("could not write what was sent to Slack into the comment; Slack itself still tells (sent.go)", "err", err)
	}
}

// sentPart is the Slack memory of a state.
func sentPart(s State) State {
	return State{Reminded: s.Reminded, Slack: s.Slack, Told: s.Told, Announced: s.Announced, Claim: s.Claim}
}
