package bot

import (
	"context"
	"slices"

	"github.com/contractbot/contractbot/bot/slack"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/verdict"
)

// Notifier posts and edits Slack messages (bot/slack's Client). Slack being down
// never blocks GitHub updates: the bot logs a failure and tries again at the next
// evaluation (a reminder's mark is recorded only once every channel got it).
type Notifier interface {
	// Post sends msg to channel, in the thread of threadTS when it is not empty, and
	// returns the new message's timestamp.
	Post(ctx context.Context, channel string, msg slack.Message, threadTS string) (string, error)
	// Update replaces the message at ts.
	Update(ctx context.Context, channel, ts string, msg slack.Message) error
}

// notify keeps Slack in line with the report and records what it sent in ev.next:
// each team whose sign-off is required has one message about the pull request in its
// channel, edited in place when the facts change; reminders and the escalation due now
// are threaded under it (an escalation also goes to the team's escalation channel and
// the producers' channels); the producers hear once when every sign-off is in. A
// reminder's mark is recorded only when every channel got it.
func (b *Bot) notify(ctx context.Context, ev *evaluation, opt evalOptions) {
	r, pr, head, log := ev.report, *ev.pr, ev.loaded.Head, ev.log
	if ev.prev != nil {
		ev.next.Reminded = keepReminders(ev.prev.Reminded, ev.prev.Teams, r.State)
		ev.next.Slack, ev.next.Announced = ev.prev.Slack, ev.prev.Announced
	}
	if b.Notify == nil {
		return
	}
	marks := b.Marks
	if marks == nil {
		marks = DefaultMarks
	}
	threads := map[string]SlackThread{}
	for k, v := range ev.next.Slack {
		threads[k] = v
	}
	for _, so := range r.SignOffs {
		team := head.Teams[so.Team]
		if team == nil || team.Slack == "" {
			continue
		}
		msg := slack.TeamMessage(pr, so)
		th, ok := threads[so.Team]
		switch {
		case ok && th.Channel == team.Slack && th.Digest == msg.Digest():
		case ok && th.Channel == team.Slack:
			if err := b.Notify.Update(ctx, th.Channel, th.TS, msg); err != nil {
				log.Warn("Slack update failed; retried at the next evaluation", "channel", th.Channel, "err", err)
				continue
			}
			th.Digest = msg.Digest()
			threads[so.Team] = th
		default:
			ts, err := b.Notify.Post(ctx, team.Slack, msg, "")
			if err != nil {
				log.Warn("Slack message failed; retried at the next evaluation", "channel", team.Slack, "err", err)
				continue
			}
			threads[so.Team] = SlackThread{Channel: team.Slack, TS: ts, Digest: msg.Digest()}
		}
	}
	due := DueReminders(r, ev.next.Reminded, r.Now, marks)
	if opt.remindAll {
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
		msg := slack.ReminderMessage(pr, rem.SignOff, rem.Escalation(), r.Now)
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
			ev.next.Reminded = MarkSent(ev.next.Reminded, rem, marks)
			log.Info("reminder sent", "team", rem.Team, "mark", rem.Mark)
		}
	}
	if allApproved(r) && !slices.Contains(ev.next.Announced, "all-signed-off") {
		ok := true
		for _, ch := range producerChannels(head, r) {
			if _, err := b.Notify.Post(ctx, ch, slack.AllSignedOffMessage(pr, r), ""); err != nil {
				ok = false
				log.Warn("Slack message failed; it is sent again at the next evaluation", "channel", ch, "err", err)
			}
		}
		if ok {
			ev.next.Announced = append(ev.next.Announced, "all-signed-off")
		}
	}
	if len(threads) > 0 {
		ev.next.Slack = threads
	}
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

// producerChannels are the Slack channels of the changed subjects' owners.
func producerChannels(head *contract.Tree, r *verdict.Report) []string {
	var out []string
	for _, s := range r.Subjects {
		if owner := head.Teams[s.Owner]; owner != nil && owner.Slack != "" && !slices.Contains(out, owner.Slack) {
			out = append(out, owner.Slack)
		}
	}
	return out
}

// reminderChannels lists the channels of a reminder, without repeats.
func reminderChannels(head *contract.Tree, r *verdict.Report, rem Reminder) []string {
	var out []string
	add := func(ch string) {
		if ch != "" && !slices.Contains(out, ch) {
			out = append(out, ch)
		}
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
