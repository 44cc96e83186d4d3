package slack

import (
	"fmt"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/registry"
)

// PublishedMessage announces a published version.
func PublishedMessage(p events.Published) Message {
	from := ""
	if p.PullRequest != nil {
		from = fmt.Sprintf(" from pull request #%d", p.PullRequest.Number)
		if p.PullRequest.URL != "" {
			from = fmt.Sprintf(" from <%s|pull request #%d>", p.PullRequest.URL, p.PullRequest.Number)
		}
	}
	head := fmt.Sprintf(":package: Published *%s* version %d (schema id %d), %s%s.", slackEscape(p.Subject), p.Version, p.ID, slackEscape(p.Class), from)
	blocks := []slackgo.Block{slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil)}
	var lines []string
	for _, c := range p.Affected {
		how := "directly"
		if !c.Direct {
			how = fmt.Sprintf("%d hop(s) down", c.Hops)
		}
		lines = append(lines, fmt.Sprintf("• `%s` (%s, %s): %s", slackEscape(c.Name), slackEscape(c.Owner), how, slackEscape(c.Effect)))
	}
	if len(lines) > 0 {
		blocks = append(blocks, slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, "Affected consumers:\n"+strings.Join(lines, "\n"), false, false), nil, nil))
	}
	return Message{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

// WindowMessage renders a calendar reminder.
func WindowMessage(rem calendar.WindowReminder) Message {
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
	blocks := []slackgo.Block{
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil),
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, detail, false, false), nil, nil),
		slackgo.NewContextBlock("", slackgo.NewTextBlockObject(slackgo.MarkdownType, "Planned in `"+slackEscape(e.File)+"`.", false, false)),
	}
	return Message{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

// DriftMessage renders a drift report for Slack.
func DriftMessage(r *registry.DriftReport) Message {
	head := fmt.Sprintf(":warning: The schema registry has drifted from Git (commit %s): %d difference(s).", shortSHA(r.Head), len(r.Drift))
	var lines []string
	for i, d := range r.Drift {
		if i == 20 {
			lines = append(lines, fmt.Sprintf("… and %d more (run `contractbot registry diff`)", len(r.Drift)-20))
			break
		}
		lines = append(lines, fmt.Sprintf("• %s: %s", slackEscape(string(d.Kind)), slackEscape(d.Message)))
	}
	text := head + "\n" + strings.Join(lines, "\n")
	return Message{Text: text, Blocks: []slackgo.Block{
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil),
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, strings.Join(lines, "\n"), false, false), nil, nil),
	}}
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// DegradedMessage alerts that the embedded registry cannot follow its branch: which
// commit it keeps serving, since when, why and what to do (the reason says it).
func DegradedMessage(st registry.Status) Message {
	head := fmt.Sprintf(":rotating_light: The embedded schema registry is degraded: it cannot follow %s and keeps serving commit %s (since %s).",
		slackEscape(st.Branch), shortSHA(st.Serving), st.Since.UTC().Format("2006-01-02 15:04 UTC"))
	detail := slackEscape(st.Reason) + fmt.Sprintf("\nCause `%s`; the pages show the same commit, and `/readyz` and the metric contractbot_registry_degraded say so until the registry follows the branch again.", slackEscape(st.Cause))
	return Message{Text: head + "\n" + detail, Blocks: []slackgo.Block{
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil),
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, detail, false, false), nil, nil),
	}}
}
