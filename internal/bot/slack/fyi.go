package slack

import (
	"fmt"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/verdict"
)

// Limits of an FYI, so its section stays under Slack's 3,000 characters.
const (
	fyiMaxConsumers = 10
	fyiMaxChains    = 3
	sectionLimit    = 2900
)

// FYIMessage tells the owner of indirect consumers (reached through lineage, not
// asked to sign off) what a pull request changes for them: which subject, which
// field, through which hops, and where the pull request is; and the owner of
// consumers that read a field the pull request deprecates, until when and what to
// read instead. It is sent once per change of what reaches the team.
func FYIMessage(pr githubapi.PullRequest, f verdict.FYI) Message {
	worst := checker.Harmless
	for _, c := range f.Consumers {
		if c.Effect.Rank() > worst.Rank() {
			worst = c.Effect
		}
	}
	what := "changes the meaning of fields"
	if worst == checker.Breaks {
		what = "breaks fields"
	}
	head := fmt.Sprintf(":information_source: FYI: %s/%s#%d %s that team *%s* reads through lineage. No sign-off is asked of you.",
		slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number, what, slackEscape(f.Team))
	switch {
	case len(f.Consumers) == 0:
		head = fmt.Sprintf(":information_source: FYI: %s/%s#%d deprecates fields that team *%s* reads. No sign-off is asked of you.",
			slackEscape(pr.Owner), slackEscape(pr.Repo), pr.Number, slackEscape(f.Team))
	case len(f.Deprecated) > 0:
		head = strings.TrimSuffix(head, ". No sign-off is asked of you.") + ", and deprecates fields it reads. No sign-off is asked of you."
	}
	var lines []string
	for i, c := range f.Consumers {
		if i == fyiMaxConsumers {
			lines = append(lines, fmt.Sprintf("… and %d more consumers: the pull request's comment has the whole impact.", len(f.Consumers)-i))
			break
		}
		effect := map[bool]string{true: "its meaning changes", false: "their meaning changes"}[len(c.Fields) == 1]
		if c.Effect == checker.Breaks {
			effect = map[bool]string{true: "it breaks", false: "they break"}[len(c.Fields) == 1]
		}
		lines = append(lines, fmt.Sprintf("• `%s` reads %s of `%s`: %s (%s).", slackEscape(c.Consumer),
			slackEscape(strings.Join(c.Fields, ", ")), slackEscape(c.Subject), effect, slackEscape(c.Reason)))
		for j, ch := range c.Chains {
			if j == fyiMaxChains {
				lines = append(lines, fmt.Sprintf("    … and %d more paths", len(c.Chains)-j))
				break
			}
			lines = append(lines, "    via "+slackEscape(strings.ReplaceAll(ch, " -> ", " → ")))
		}
	}
	for i, c := range f.Deprecated {
		if i == fyiMaxConsumers {
			lines = append(lines, fmt.Sprintf("… and %d more readers of deprecated fields: the pull request's comment has them all.", len(f.Deprecated)-i))
			break
		}
		lines = append(lines, fmt.Sprintf("• `%s` reads %s of `%s`, %s.", slackEscape(c.Consumer),
			slackEscape(strings.Join(c.Fields, ", ")), slackEscape(c.Subject), slackEscape(c.Reason)))
	}
	body := strings.Join(lines, "\n")
	if len(body) > sectionLimit {
		cut := strings.LastIndex(body[:sectionLimit], "\n")
		if cut < 0 {
			cut = strings.LastIndex(body[:sectionLimit], " ")
		}
		body = body[:max(cut, 0)] + "\n… (cut: the pull request's comment has the whole impact)"
	}
	action := fmt.Sprintf("<%s|Open the pull request> to follow the change or ask the producer for time. To be asked to sign off such changes, set `signoff: required` in the consumer's file.", pr.URL())
	if len(f.Consumers) == 0 {
		action = fmt.Sprintf("<%s|Open the pull request> to follow the change. Read the replacement before the removal date: the pull request that removes the field will ask you to sign off only while you still read it.", pr.URL())
	}
	blocks := []slackgo.Block{
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil),
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, body, false, false), nil, nil),
		slackgo.NewContextBlock("", slackgo.NewTextBlockObject(slackgo.MarkdownType, action, false, false)),
	}
	return Message{Text: strings.ReplaceAll(head, "*", ""), Blocks: blocks}
}
