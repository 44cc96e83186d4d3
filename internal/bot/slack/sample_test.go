package slack

import (
	"testing"

	"github.com/contractbot/contractbot/internal/sample"
)

// TestSampleMessageGolden pins the alert a team gets when a topic's messages depart
// from the contract, with a consumer name that tries to inject a Slack link.
func TestSampleMessageGolden(t *testing.T) {
	a := sample.Alert{Topic: "ods_order_snapshot", Subject: "orders.order-snapshot-value", Owner: "orders",
		Readers: []string{"data-warehouse"}, Consumers: []string{"<http://evil|dwd-order-snapshot>", "gmv-1min"},
		Problem: sample.ProblemCount{Kind: sample.UndeclaredField, Count: 12, Field: "userid", Example: sample.Example{Partition: 1, Offset: 977},
			Message: `field "userid" is not in the contract; did you mean "userId"? Add the field to the contract through a pull request (its consumers are asked), or stop producing it.`}}
	golden(t, "slack-sample.json", messageJSON(t, SampleMessage(a)))
}
