package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"
)

// Notifier sends a message to a Slack channel. Slack being down never blocks GitHub
// updates: the bot logs a failure and tries again at the next evaluation (the mark
// is recorded only once every channel got it).
type Notifier interface {
	Send(ctx context.Context, channel string, msg SlackMessage) error
}

// SlackMessage is a message in Block Kit, with a plain-text fallback.
type SlackMessage struct {
	Text   string
	Blocks []slack.Block
}

// SlackNotifier posts with slack-go.
type SlackNotifier struct{ Client *slack.Client }

// Send posts msg to channel.
func (n *SlackNotifier) Send(ctx context.Context, channel string, msg SlackMessage) error {
	_, _, err := n.Client.PostMessageContext(ctx, channel, slack.MsgOptionText(msg.Text, false), slack.MsgOptionBlocks(msg.Blocks...))
	return err
}

// ReminderMessage renders a reminder or an escalation for one team's sign-off.
func ReminderMessage(pr PullRequest, rem Reminder, now time.Time) SlackMessage {
	link := fmt.Sprintf("%s/pull/%d", strings.TrimSuffix(pr.HTMLURL, "/"), pr.Number)
	var head string
	if rem.Escalation() {
		head = fmt.Sprintf(":rotating_light: Sign-off overdue: team *%s* has not approved %s/%s#%d (deadline %s).",
			slackEscape(rem.Team), slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number, rem.Deadline.UTC().Format("Mon 2006-01-02 15:04 UTC"))
	} else {
		head = fmt.Sprintf(":hourglass: Reminder: team *%s* is asked to sign off %s/%s#%d within %s (deadline %s).",
			slackEscape(rem.Team), slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number, humanDuration(rem.Deadline.Sub(now)), rem.Deadline.UTC().Format("Mon 2006-01-02 15:04 UTC"))
	}
	var lines []string
	for _, c := range rem.SignOff.For {
		fields := ""
		if len(c.Fields) > 0 {
			fields = " (" + slackEscape(strings.Join(c.Fields, ", ")) + ")"
		}
		lines = append(lines, fmt.Sprintf("• `%s` on `%s`%s: %s", slackEscape(c.Consumer), slackEscape(c.Subject), fields, slackEscape(c.Reason)))
	}
	action := fmt.Sprintf("<%s|Review the pull request> and approve it if your consumers are ready.", link)
	blocks := []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, head, false, false), nil, nil),
	}
	if len(lines) > 0 {
		blocks = append(blocks, slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Join(lines, "\n"), false, false), nil, nil))
	}
	blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, action, false, false)))
	return SlackMessage{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

// slackEscape escapes Slack's control characters in text from contract files.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// humanDuration writes "12 h", "1 h 30 min" or "45 min".
func humanDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h > 0 && m > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case h > 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d min", m)
}
