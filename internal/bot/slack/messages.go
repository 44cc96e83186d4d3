package slack

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/inert"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/verdict"
)

// TeamMessage is a team's message about a pull request: what changes for its
// consumers, the fields, the deadline and where the sign-off stands. It holds no
// relative times, so it changes only when the facts do.
func TeamMessage(pr githubapi.PullRequest, so *verdict.SignOff) Message {
	link := pr.URL()
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
	blocks := []slackgo.Block{slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil)}
	if lines := consumerLines(so.For); lines != "" {
		blocks = append(blocks, slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, lines, false, false), nil, nil))
	}
	blocks = append(blocks, slackgo.NewContextBlock("", slackgo.NewTextBlockObject(slackgo.MarkdownType, fmt.Sprintf("<%s|Open the pull request>: approving it is the sign-off.", link), false, false)))
	return Message{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

// AllSignedOffMessage tells the producer that every required team has signed off.
func AllSignedOffMessage(pr githubapi.PullRequest, r *verdict.Report) Message {
	var teams []string
	for _, so := range r.SignOffs {
		teams = append(teams, fmt.Sprintf("%s (%s)", slackEscape(so.Team), slackEscape(so.ApprovedBy)))
	}
	text := fmt.Sprintf(":white_check_mark: All sign-offs are in for %s/%s#%d: %s.", slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number, strings.Join(teams, ", "))
	return Message{Text: text, Blocks: []slackgo.Block{slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, text, false, false), nil, nil)}}
}

// ReminderMessage renders a reminder of one team's sign-off, or its escalation at
// the deadline. A reminder asked for after the deadline (`/contractbot remind`) says
// the sign-off is overdue.
func ReminderMessage(pr githubapi.PullRequest, so *verdict.SignOff, escalation bool, now time.Time) Message {
	deadline := so.Deadline.UTC().Format("Mon 2006-01-02 15:04 UTC")
	ref := fmt.Sprintf("%s/%s#%d", slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number)
	var head string
	switch {
	case escalation:
		head = fmt.Sprintf(":rotating_light: Sign-off overdue: team *%s* has not approved %s (deadline %s).", slackEscape(so.Team), ref, deadline)
	case !now.Before(so.Deadline):
		head = fmt.Sprintf(":rotating_light: Reminder: team *%s* has not signed off %s, and its deadline (%s) passed %s ago.", slackEscape(so.Team), ref, deadline, humanDuration(now.Sub(so.Deadline)))
	default:
		head = fmt.Sprintf(":hourglass: Reminder: team *%s* is asked to sign off %s within %s (deadline %s).", slackEscape(so.Team), ref, humanDuration(so.Deadline.Sub(now)), deadline)
	}
	action := fmt.Sprintf("<%s|Review the pull request> and approve it if your consumers are ready.", pr.URL())
	blocks := []slackgo.Block{slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil)}
	if lines := consumerLines(so.For); lines != "" {
		blocks = append(blocks, slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, lines, false, false), nil, nil))
	}
	blocks = append(blocks, slackgo.NewContextBlock("", slackgo.NewTextBlockObject(slackgo.MarkdownType, action, false, false)))
	return Message{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

// consumerLines lists the consumers a sign-off is for, one bullet each.
func consumerLines(refs []verdict.ConsumerRef) string {
	var lines []string
	for _, c := range refs {
		fields := ""
		if len(c.Fields) > 0 {
			fields = " (" + slackEscape(strings.Join(c.Fields, ", ")) + ")"
		}
		what := fmt.Sprintf("`%s` on `%s`", slackEscape(c.Consumer), slackEscape(c.Subject))
		if c.Consumer == "" { // a change to a rule of the base: the file changed
			what = fmt.Sprintf("`%s`", slackEscape(c.File))
		}
		lines = append(lines, fmt.Sprintf("• %s%s: %s", what, fields, slackEscape(c.Reason)))
	}
	return strings.Join(lines, "\n")
}

// slackEscape makes text from contract files and schemas inert in Slack's mrkdwn:
// &, < and > as entities (Slack's escaping: no link, mention or @channel); a
// formatting character (*bold*, _italic_, ~strike~) at the edge of a word, and the
// colon that opens an :emoji:, get a zero-width space beside them, so they show as
// themselves (Slack has no backslash escape; inside a word, as in user_id, they mean
// nothing and stay as they are); a backtick, which would end a code span, becomes ˋ;
// the text is shortened to maxSlackText characters (Slack refuses a section over
// 3,000).
func slackEscape(s string) string {
	rs := []rune(inert.Shorten(s, maxSlackText))
	word := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '`':
			b.WriteRune('\u02cb')
		case (r == '*' || r == '_' || r == '~') && !(word(i-1) && word(i+1)):
			b.WriteString("\u200b" + string(r) + "\u200b")
		case r == ':' && (word(i+1) || i+1 < len(rs) && strings.ContainsRune("_+-", rs[i+1])):
			b.WriteString(":\u200b")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxSlackText bounds one value in a message.
const maxSlackText = 1000

// humanDuration writes "12 h", "1 h 30 min" or "45 min".
func humanDuration(d time.Duration) string { return report.HumanDuration(d) }
