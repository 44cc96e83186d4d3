package slack

import (
	"fmt"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/sample"
)

// SampleMessage tells a team that the messages on a topic depart from the contract
// (serve --sample-brokers): the problem, where the first such message is, what to
// do, and which consumers read the field concerned.
func SampleMessage(a sample.Alert) Message {
	p := a.Problem
	where := "the messages"
	if p.Field != "" {
		where = fmt.Sprintf("field `%s`", slackEscape(p.Field))
	}
	if p.Part == "key" {
		where = "the key's " + where
	}
	head := fmt.Sprintf(":rotating_light: Topic `%s` carries messages that depart from the contract of `%s`: *%s* at %s (%d in the last sample; first at partition %d, offset %d).",
		slackEscape(a.Topic), slackEscape(a.Subject), slackEscape(string(p.Kind)), where, p.Count, p.Example.Partition, p.Example.Offset)
	lines := []string{slackEscape(p.Message)}
	if len(a.Consumers) > 0 {
		names := a.Consumers
		if len(names) > 10 {
			names = append(names[:10:10], fmt.Sprintf("and %d more", len(a.Consumers)-10))
		}
		lines = append(lines, fmt.Sprintf("Read by: %s.", slackEscape(strings.Join(names, ", "))))
	}
	lines = append(lines, fmt.Sprintf("Owner: %s. Run `contractbot sample --topic %s` to see it again.", slackEscape(a.Owner), slackEscape(a.Topic)))
	body := strings.Join(lines, "\n")
	if len(body) > sectionLimit {
		body = body[:sectionLimit] + "…"
	}
	return Message{Text: head + "\n" + body, Blocks: []slackgo.Block{
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, head, false, false), nil, nil),
		slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, body, false, false), nil, nil),
	}}
}
