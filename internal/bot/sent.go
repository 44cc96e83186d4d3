package bot

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/verdict"
)

// What the bot sent to Slack is remembered where no writer of the repository can
// take it away: in Slack itself. Every message about a pull request that must go out
// once carries a key in its Slack metadata (sentKey), and before an evaluation sends
// such messages it reads the channels they go to (their history since the pull
// request opened, and the threads of the teams' messages) and drops what is already
// there. So deleting the bot's comment, editing it or restoring an earlier version
// (which makes its memory be rebuilt, or believed while stale) never sends a message
// twice. The comment's Slack memory stays the fast path and the replicas' claim.

// keyedNotifier is a Notifier that marks messages with a key and finds them again
// (internal/bot/slack's Client).
type keyedNotifier interface {
	PostKeyed(ctx context.Context, channel string, msg slack.Message, threadTS, key string) (string, error)
	Keyed(ctx context.Context, channel, prefix string, since time.Time, threaded func(key string) bool) (map[string]string, error)
}

// The keys of the messages about a pull request (ref: commentRef).
func threadKey(ref, team string) string { return ref + "|thread|" + team }
func reminderSentKey(ref, team, fingerprint, mark string) string {
	return ref + "|remind|" + reminderKey(team, fingerprint) + "|" + mark
}
func fyiSentKey(ref string, f verdict.FYI) string { return ref + "|fyi|" + f.Team + "|" + fyiKey(f) }
func announceSentKey(ref, key string) string      { return ref + "|" + key }

// post sends msg with key when the notifier keeps keys, else as a plain message.
func (b *Bot) post(ctx context.Context, channel string, msg slack.Message, threadTS, key string) (string, error) {
	if kn, ok := b.Notify.(keyedNotifier); ok && key != "" {
		return kn.PostKeyed(ctx, channel, msg, threadTS, key)
	}
	return b.Notify.Post(ctx, channel, msg, threadTS)
}

// recall reads from Slack what the outbox's once-only messages would repeat and
// records it in ev.next (threads, reminder marks, FYIs told, announcements), so plan
// leaves it out. A channel that cannot be read (no channels:history scope, the bot
// not in the channel, a history too long) is logged and counted, and the comment's
// memory decides for it, as without this.
func (b *Bot) recall(ctx context.Context, ev *evaluation, out outbox) {
	kn, ok := b.Notify.(keyedNotifier)
	if !ok || !out.claims() {
		return
	}
	r, base, ref := ev.report, ev.loaded.Base, commentRef(*ev.pr)
	var channels []string
	add := func(ch string) {
		if ch != "" && !slices.Contains(channels, ch) {
			channels = append(channels, ch)
		}
	}
	for _, so := range out.threads {
		add(base.Teams[so.Team].Slack)
	}
	for _, rem := range out.reminders {
		for _, ch := range reminderChannels(base, r, rem) {
			add(ch)
		}
	}
	for _, f := range out.fyis {
		add(base.Teams[f.Team].Slack)
	}
	if out.announce {
		for _, ch := range producerChannels(base, r) {
			add(ch)
		}
	}
	since := ev.pr.CreatedAt.Add(-time.Minute)
	threaded := func(key string) bool { return strings.HasPrefix(key, ref+"|thread|") }
	for _, ch := range channels {
		found, err := kn.Keyed(ctx, ch, ref+"|", since, threaded)
		if err != nil {
			b.Metrics.failed("slack")
			ev.log.Warn("could not read what was sent to a Slack channel; the comment's memory decides what is sent there", "channel", ch, "err", err)
			continue
		}
		ev.remember(ch, found)
	}
}

// remember records in ev.next the messages found in channel ch (key -> ts).
func (ev *evaluation) remember(ch string, found map[string]string) {
	if len(found) == 0 {
		return
	}
	r, ref := ev.report, commentRef(*ev.pr)
	for _, so := range r.SignOffs {
		if ts, ok := found[threadKey(ref, so.Team)]; ok {
			if th, has := ev.next.Slack[so.Team]; !has || th.TS == "" {
				if ev.next.Slack == nil {
					ev.next.Slack = map[string]SlackThread{}
				}
				ev.next.Slack[so.Team] = SlackThread{Channel: ch, TS: ts}
			}
		}
		for key := range found {
			mark, ok := strings.CutPrefix(key, ref+"|remind|"+reminderKey(so.Team, so.Fingerprint)+"|")
			if !ok {
				continue
			}
			k := reminderKey(so.Team, so.Fingerprint)
			if ev.next.Reminded == nil {
				ev.next.Reminded = map[string][]string{}
			}
			if !slices.Contains(ev.next.Reminded[k], mark) {
				ev.next.Reminded[k] = append(ev.next.Reminded[k], mark)
			}
		}
	}
	for _, f := range r.FYI {
		if _, ok := found[fyiSentKey(ref, f)]; ok {
			if ev.next.Told == nil {
				ev.next.Told = map[string]string{}
			}
			ev.next.Told[f.Team] = fyiKey(f)
		}
	}
	if k := announcementKey(r); !slices.Contains(ev.next.Announced, k) {
		if _, ok := found[announceSentKey(ref, k)]; ok {
			ev.next.Announced = append(ev.next.Announced, k)
		}
	}
}
