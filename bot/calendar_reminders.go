package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
)

// MarkedNotifier posts messages that carry a key, and tells whether a message with a
// key was already posted to a channel: Slack itself keeps the memory of what was
// sent, so any replica, after any restart, sends a calendar reminder once.
type MarkedNotifier interface {
	PostMarked(ctx context.Context, channel string, msg SlackMessage, key string) error
	Marked(ctx context.Context, channel, key string, since time.Time) (bool, error)
}

// markerEvent is the Slack message metadata event type of the bot's keyed messages.
const markerEvent = "contractbot_reminder"

// PostMarked posts msg with the key in the message's metadata.
func (n *SlackNotifier) PostMarked(ctx context.Context, channel string, msg SlackMessage, key string) error {
	_, _, err := n.Client.PostMessageContext(ctx, channel, slack.MsgOptionText(msg.Text, false), slack.MsgOptionBlocks(msg.Blocks...),
		slack.MsgOptionMetadata(slack.SlackMetadata{EventType: markerEvent, EventPayload: map[string]any{"key": key}}))
	return err
}

// Marked looks through the channel's history since since for a message with key.
func (n *SlackNotifier) Marked(ctx context.Context, channel, key string, since time.Time) (bool, error) {
	params := &slack.GetConversationHistoryParameters{ChannelID: channel, Oldest: fmt.Sprintf("%d.000000", since.Unix()), Limit: 200, IncludeAllMetadata: true}
	for {
		resp, err := n.Client.GetConversationHistoryContext(ctx, params)
		if err != nil {
			return false, err
		}
		for _, m := range resp.Messages {
			if m.Metadata.EventType == markerEvent && m.Metadata.EventPayload["key"] == key {
				return true, nil
			}
		}
		if !resp.HasMore || resp.ResponseMetaData.NextCursor == "" {
			return false, nil
		}
		params.Cursor = resp.ResponseMetaData.NextCursor
	}
}

// WindowMessage renders a calendar reminder.
func WindowMessage(rem calendar.WindowReminder) SlackMessage {
	e := rem.Entry
	loc := calendar.Location(e.Timezone)
	when := fmt.Sprintf("%s to %s (%s)", e.Start.In(loc).Format("Mon 2006-01-02 15:04"), e.End.In(loc).Format("15:04"), loc)
	var head string
	if rem.Mark == calendar.MarkStart {
		head = fmt.Sprintf(":arrow_forward: Starting now: *%s*, %s.", slackEscape(e.Title), when)
	} else {
		head = fmt.Sprintf(":calendar: Tomorrow (next working day): *%s*, %s.", slackEscape(e.Title), when)
	}
	detail := fmt.Sprintf("Kind %s, owner %s; subjects: %s.", slackEscape(e.Kind), slackEscape(e.Owner), slackEscape(strings.Join(e.Subjects, ", ")))
	if e.Notes != "" {
		detail += "\n" + slackEscape(strings.TrimSpace(e.Notes))
	}
	blocks := []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, head, false, false), nil, nil),
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, detail, false, false), nil, nil),
		slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, "Planned in `"+slackEscape(e.File)+"`.", false, false)),
	}
	return SlackMessage{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

// CalendarReminders sends the calendar reminders due now to the owner's and the
// affected consumers' channels, each once per channel.
func (b *Bot) CalendarReminders(ctx context.Context, tree *contract.Tree, n MarkedNotifier) {
	now := b.Now()
	for _, rem := range calendar.DueWindowReminders(tree, now) {
		msg := WindowMessage(rem)
		since := rem.Entry.Start.Add(-5 * 24 * time.Hour)
		for _, team := range calendar.ReminderTeams(tree, rem.Entry) {
			t := tree.Teams[team]
			if t == nil || t.Slack == "" {
				continue
			}
			log := b.Log.With("entry", rem.Entry.File, "mark", rem.Mark, "channel", t.Slack)
			sent, err := n.Marked(ctx, t.Slack, rem.Key, since)
			if err != nil {
				log.Warn("calendar reminder: reading the channel failed; trying again later", "err", err)
				continue
			}
			if sent {
				continue
			}
			if err := n.PostMarked(ctx, t.Slack, msg, rem.Key); err != nil {
				log.Warn("calendar reminder failed; trying again later", "err", err)
				continue
			}
			log.Info("calendar reminder sent")
		}
	}
}

// CalendarRemindersEvery runs CalendarReminders on the current tree at once and then
// every interval until ctx ends.
func (b *Bot) CalendarRemindersEvery(ctx context.Context, current func() (*contract.Tree, error), n MarkedNotifier, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if tree, err := current(); err != nil {
			b.Log.Warn("calendar reminders: the tree cannot be read", "err", err)
		} else {
			b.CalendarReminders(ctx, tree, n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
