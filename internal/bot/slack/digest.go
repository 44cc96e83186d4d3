package slack

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/report"
)

// digestMaxItems is how many items a digest section lists before it counts the rest.
const digestMaxItems = 10

// DigestMessage is a team's part of the monthly health digest, for its lead: the
// team's unused subjects, its consumers' reads of deprecated fields, the reads that
// hold up the removal of fields it deprecated, its jobs without lineage, and its
// subjects' history that broke their level, each with what to do.
func DigestMessage(repo, month string, r *report.Health, team *contract.Team, p report.TeamPart) Message {
	who := ""
	if team.Lead != nil && team.Lead.GitHub != "" {
		who = " (lead " + slackEscape(team.Lead.GitHub) + ")"
	}
	head := fmt.Sprintf(":bar_chart: Contract health for team *%s*%s, %s: %s at commit %s.", slackEscape(team.ID), who, month, slackEscape(repo), shortSHA(r.Commit))
	blocks := []slackgo.Block{section(head)}
	var items []string
	for _, u := range p.Unused {
		topic := ""
		if u.Topic != "" {
			topic = ", topic " + slackEscape(u.Topic)
		}
		since := "age unknown"
		if !u.Since.IsZero() {
			since = fmt.Sprintf("registered %s, %d day(s) ago", day(u.Since), u.Days)
		}
		items = append(items, fmt.Sprintf("• `%s`%s: %s", slackEscape(u.Subject), topic, since))
	}
	blocks = appendSection(blocks, fmt.Sprintf("*Unused subjects (%d)*: no consumer declares a read. Retire them, or ask their readers to add consumer files.", len(p.Unused)), items)
	items = nil
	for _, d := range p.DeprecatedReads {
		items = append(items, "• "+deprecatedLine(d))
	}
	blocks = appendSection(blocks, fmt.Sprintf("*Deprecated fields your consumers still read (%d)*: move them to the replacement before the removal day.", len(p.DeprecatedReads)), items)
	items = nil
	for _, d := range p.DeprecatedOwned {
		items = append(items, fmt.Sprintf("• %s (team %s)", deprecatedLine(d), slackEscape(d.Owner)))
	}
	blocks = appendSection(blocks, fmt.Sprintf("*Fields you deprecated that others still read (%d)*: their removal waits for these readers.", len(p.DeprecatedOwned)), items)
	items = nil
	for _, c := range p.BlackBoxes {
		items = append(items, fmt.Sprintf("• `%s` (%s) reads `%s`", slackEscape(c.Name), slackEscape(c.Kind), slackEscape(c.Subject)))
	}
	blocks = appendSection(blocks, fmt.Sprintf("*Jobs without lineage (%d)*: they declare no `produces:`, so impact analysis stops at them. Declare what they write (`contractbot lineage sync` reads it from Flink SQL).", len(p.BlackBoxes)), items)
	items = nil
	for _, br := range p.Broken {
		against := make([]string, len(br.Against))
		for i, v := range br.Against {
			against[i] = strconv.Itoa(v)
		}
		items = append(items, fmt.Sprintf("• `%s` version %d (commit %s, %s): refused by %s against version(s) %s", slackEscape(br.Subject), br.Version,
			shortSHA(br.Commit), day(br.Time), slackEscape(br.Level), strings.Join(against, ", ")))
	}
	blocks = appendSection(blocks, fmt.Sprintf("*History that broke its level (%d)*: these versions went around the bot; a registry would refuse them. Check their consumers.", len(p.Broken)), items)
	items = nil
	for _, d := range p.Departing {
		items = append(items, fmt.Sprintf("• `%s` (`%s`): %d of %d sampled message(s) conform; %s", slackEscape(d.Topic), slackEscape(d.Subject),
			d.Conforming, d.Messages, slackEscape(strings.Join(d.Kinds, ", "))))
	}
	blocks = appendSection(blocks, fmt.Sprintf("*Topics whose data departs from the contract (%d)*: what producers write is not what the contract says. `contractbot sample --topic T` shows each problem and what to do.", len(p.Departing)), items)
	blocks = append(blocks, slackgo.NewContextBlock("", slackgo.NewTextBlockObject(slackgo.MarkdownType,
		"Sent once a month by contractbot. `contractbot report` prints the whole repository's report; a team lead is set with `lead:` in contracts/teams.yaml.", false, false)))
	return Message{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

func deprecatedLine(d report.DeprecatedRead) string {
	s := fmt.Sprintf("`%s` reads `%s` of `%s`", slackEscape(d.Name), slackEscape(d.Field), slackEscape(d.Subject))
	if !d.RemoveAfter.IsZero() {
		s += ", to be removed after " + day(d.RemoveAfter)
	}
	if d.Replacement != "" {
		s += "; use `" + slackEscape(d.Replacement) + "`"
	}
	return s
}

func section(text string) slackgo.Block {
	return slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, text, false, false), nil, nil)
}

// appendSection adds a section with title and at most digestMaxItems items (and a
// count of the rest), when there are items; it stays under Slack's 3,000 characters.
func appendSection(blocks []slackgo.Block, title string, items []string) []slackgo.Block {
	if len(items) == 0 {
		return blocks
	}
	text := title
	for i, it := range items {
		rest := fmt.Sprintf("\n… and %d more", len(items)-i)
		if i == digestMaxItems || len(text)+len(it)+1+len(rest) > sectionLimit {
			text += rest
			break
		}
		text += "\n" + it
	}
	return append(blocks, section(text))
}
