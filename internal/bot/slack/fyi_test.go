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

// TestFYIMessageDeprecatedGolden pins the FYI the owner of a field's readers gets when
// a pull request deprecates it: alone, and beside a lineage FYI.
func TestFYIMessageDeprecatedGolden(t *testing.T) {
	pr := githubapi.PullRequest{Owner: "acme", Repo: "contracts", Number: 43, HTMLURL: "https://github.com/acme/contracts"}
	dep := []verdict.ConsumerRef{{Subject: "orders.order-created-value", Consumer: "dwd-order-detail", Effect: checker.Harmless, Fields: []string{"coupon_code"},
		Reason: "deprecated since 2026-12-01, to be removed after 2027-03-01; read promotion.code instead"}}
	golden(t, "slack-fyi-deprecated.json", messageJSON(t, FYIMessage(pr, verdict.FYI{Team: "data-warehouse", Consumers: []verdict.ConsumerRef{}, Deprecated: dep})))
	both := FYIMessage(pr, verdict.FYI{Team: "data-warehouse", Consumers: []verdict.ConsumerRef{{Subject: "dw.order-detail-value", Consumer: "x",
		Effect: checker.Breaks, Fields: []string{"amount_cents"}, Reason: "r"}}, Deprecated: dep})
	if !strings.Contains(both.Text, "breaks fields that team data-warehouse reads through lineage, and deprecates fields it reads") ||
		!strings.Contains(both.Blocks[1].(*slackgo.SectionBlock).Text.Text, "`dwd-order-detail` reads coupon_code of") {
		t.Errorf("lineage and deprecation in one FYI:\n%s\n%s", both.Text, both.Blocks[1].(*slackgo.SectionBlock).Text.Text)
	}
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
