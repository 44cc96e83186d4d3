package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/verdict"
)

// Notifier posts and edits Slack messages. Slack being down never blocks GitHub
// updates: the bot logs a failure and tries again at the next evaluation (a reminder's
// mark is recorded only once every channel got it).
type Notifier interface {
	// Post sends msg to channel, in the thread of threadTS when it is not empty, and
	// returns the new message's timestamp.
	Post(ctx context.Context, channel string, msg SlackMessage, threadTS string) (string, error)
	// Update replaces the message at ts.
	Update(ctx context.Context, channel, ts string, msg SlackMessage) error
}

// SlackMessage is a message in Block Kit, with a plain-text fallback.
type SlackMessage struct {
	Text   string
	Blocks []slack.Block
}

// SlackNotifier posts with slack-go.
type SlackNotifier struct{ Client *slack.Client }

// Post sends msg to channel, threaded under threadTS when given.
func (n *SlackNotifier) Post(ctx context.Context, channel string, msg SlackMessage, threadTS string) (string, error) {
	opts := []slack.MsgOption{slack.MsgOptionText(msg.Text, false), slack.MsgOptionBlocks(msg.Blocks...)}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	_, ts, err := n.Client.PostMessageContext(ctx, channel, opts...)
	return ts, err
}

// Update edits the message at ts.
func (n *SlackNotifier) Update(ctx context.Context, channel, ts string, msg SlackMessage) error {
	_, _, _, err := n.Client.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText(msg.Text, false), slack.MsgOptionBlocks(msg.Blocks...))
	return err
}

// digest identifies a message's content.
func (m SlackMessage) digest() string {
	data, _ := json.Marshal(struct {
		T string
		B []slack.Block
	}{m.Text, m.Blocks})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// TeamMessage is a team's message about a pull request: what changes for its
// consumers, the fields, the deadline and where the sign-off stands. It holds no
// relative times, so it changes only when the facts do.
func TeamMessage(pr PullRequest, so *verdict.SignOff) SlackMessage {
	link := fmt.Sprintf("%s/pull/%d", strings.TrimSuffix(pr.HTMLURL, "/"), pr.Number)
	var status string
	switch so.Status {
	case verdict.Approved:
		status = fmt.Sprintf(":white_check_mark: signed off by %s", slackEscape(so.ApprovedBy))
	case verdict.Overdue:
		status = fmt.Sprintf(":rotating_light: sign-off overdue since %s", so.Deadline.UTC().Format("Mon 2006-01-02 15:04 UTC"))
	default:
		status = fmt.Sprintf(":hourglass: sign-off needed by %s", so.Deadline.UTC().Format("Mon 2006-01-02 15:04 UTC"))
	}
	head := fmt.Sprintf("%s/%s#%d changes what team *%s* reads. %s.", slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number, slackEscape(so.Team), status)
	var lines []string
	for _, c := range so.For {
		fields := ""
		if len(c.Fields) > 0 {
			fields = " (" + slackEscape(strings.Join(c.Fields, ", ")) + ")"
		}
		lines = append(lines, fmt.Sprintf("• `%s` on `%s`%s: %s", slackEscape(c.Consumer), slackEscape(c.Subject), fields, slackEscape(c.Reason)))
	}
	blocks := []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, head, false, false), nil, nil)}
	if len(lines) > 0 {
		blocks = append(blocks, slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Join(lines, "\n"), false, false), nil, nil))
	}
	blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, fmt.Sprintf("<%s|Open the pull request>: approving it is the sign-off.", link), false, false)))
	return SlackMessage{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

// AllSignedOffMessage tells the producer that every required team has signed off.
func AllSignedOffMessage(pr PullRequest, r *verdict.Report) SlackMessage {
	var teams []string
	for _, so := range r.SignOffs {
		teams = append(teams, fmt.Sprintf("%s (%s)", slackEscape(so.Team), slackEscape(so.ApprovedBy)))
	}
	text := fmt.Sprintf(":white_check_mark: All sign-offs are in for %s/%s#%d: %s.", slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number, strings.Join(teams, ", "))
	return SlackMessage{Text: text, Blocks: []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)}}
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
