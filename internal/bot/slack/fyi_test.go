package slack

import (
	"fmt"
	"strings"
	"testing"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/verdict"
)

// TestFYIMessageGolden pins the FYI an indirect owner gets: the subject each of its
// consumers reads, the fields, the hops from the change and the link.
func TestFYIMessageGolden(t *testing.T) {
	pr := githubapi.PullRequest{Owner: "acme", Repo: "contracts", Number: 42, HTMLURL: "https://github.com/acme/contracts"}
	f := verdict.FYI{Team: "analytics", Consumers: []verdict.ConsumerRef{
		{Subject: "dw.order-detail-value", Consumer: "clickhouse-order-detail", Effect: checker.Breaks, Fields: []string{"amount_cents"},
			Reason: "orders.order-created-value changes 1 hop(s) upstream",
			Chains: []string{"orders.order-created-value.amount -> dwd-order-detail -> dw.order-detail-value.amount_cents"}},
		{Subject: "dws.gmv-1min-value", Consumer: "<http://evil|gmv-dashboard>", Effect: checker.ChangesMeaning, Fields: []string{"gmv_cents"},
			Reason: "orders.order-created-value changes 2 hop(s) upstream",
			Chains: []string{"orders.order-created-value.amount -> dwd-order-detail -> dw.order-detail-value.amount_cents -> dws-gmv-1min -> dws.gmv-1min-value.gmv_cents"}},
	}}
	golden(t, "slack-fyi.json", messageJSON(t, FYIMessage(pr, f)))
}

// TestFYIMessageStaysWithinSlackLimits: a team with many indirect consumers and long
// field lists gets a section under Slack's 3,000 characters that says what was cut.
func TestFYIMessageStaysWithinSlackLimits(t *testing.T) {
	f := verdict.FYI{Team: "analytics"}
	for i := range 40 {
		f.Consumers = append(f.Consumers, verdict.ConsumerRef{Subject: "s", Consumer: fmt.Sprintf("job-%d", i), Effect: checker.Breaks,
			Fields: []string{strings.Repeat("f", 400)}, Reason: "r", Chains: []string{"a -> b -> c", "d -> e -> f", "g", "h"}})
	}
	msg := FYIMessage(githubapi.PullRequest{Owner: "acme", Repo: "contracts", Number: 1}, f)
	body := msg.Blocks[1].(*slackgo.SectionBlock).Text.Text
	if len(body) > 3000 || !strings.Contains(body, "cut: the pull request's comment has the whole impact") {
		t.Errorf("section of %d bytes:\n%s", len(body), body)
	}
	few := FYIMessage(githubapi.PullRequest{}, verdict.FYI{Team: "t", Consumers: f.Consumers[:12]})
	if b := few.Blocks[1].(*slackgo.SectionBlock).Text.Text; !strings.Contains(b, "and 2 more consumers") && !strings.Contains(b, "cut:") {
		t.Errorf("12 consumers:\n%s", b)
	}
}
