package bot

import (
	"context"
	"time"

	"github.com/contractbot/contractbot/internal/bot/slack"

	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/guard"
)

// MarkedNotifier posts messages that carry a key, and tells whether a message with a
// key was already posted to a channel: Slack itself keeps the memory of what was
// sent, so any replica, after any restart, sends a calendar reminder once.
type MarkedNotifier interface {
	PostMarked(ctx context.Context, channel string, msg slack.Message, key string) error
	Marked(ctx context.Context, channel, key string, since time.Time) (bool, error)
}

// CalendarReminders sends the calendar reminders due now to the owner's and the
// affected consumers' channels, each once per channel (across replicas through
// b.Alerts when set: once.go).
func (b *Bot) CalendarReminders(ctx context.Context, tree *contract.Tree, n MarkedNotifier) {
	now := b.now()
	for _, rem := range calendar.DueWindowReminders(tree, now) {
		msg := slack.WindowMessage(rem)
		since := rem.Entry.Start.Add(-5 * 24 * time.Hour)
		for _, team := range calendar.ReminderTeams(tree, rem.Entry) {
			t := tree.Teams[team]
			if t == nil || t.Slack == "" {
				continue
			}
			log := b.Log.With("entry", rem.Entry.File, "mark", rem.Mark, "channel", t.Slack)
			told, err := tell(ctx, b.Alerts, n, t.Slack, msg, rem.Key, since)
			if err != nil {
				log.Warn("calendar reminder failed; trying again later", "err", err)
				continue
			}
			if told {
				log.Debug("calendar reminder told")
			}
		}
	}
}

// CalendarRemindersEvery runs CalendarReminders on the current tree at once and then
// every interval until ctx ends; a round that panics is logged and the next one runs.
func (b *Bot) CalendarRemindersEvery(ctx context.Context, current func() (*contract.Tree, error), n MarkedNotifier, interval time.Duration) {
	guard.Every(ctx, interval, b.Log, "calendar reminders", func(ctx context.Context) {
		if tree, err := current(); err != nil {
			b.Log.Warn("calendar reminders: the tree cannot be read", "err", err)
		} else {
			b.CalendarReminders(ctx, tree, n)
		}
	})
}
