package slack

import (
	"fmt"
	"strings"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/bot/githubapi"
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

// slackEscape escapes Slack's control characters in text from contract files.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// humanDuration writes "12 h", "1 h 30 min" or "45 min".
func humanDuration(d time.Duration) string { return report.HumanDuration(d) }
