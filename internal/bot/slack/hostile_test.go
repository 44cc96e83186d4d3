package slack

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/verdict"
)

// TestNamesAreInertInMrkdwn: a consumer, a field and a reason that carry Slack's
// formatting, an emoji code, a mention and a link show as the characters they are,
// and a 70,000-character field name is shortened with an ellipsis.
func TestNamesAreInertInMrkdwn(t *testing.T) {
	hostile := "*bold* _it_ ~strike~ :emoji: <!channel> <http://evil|click> `code` & more"
	long := strings.Repeat("f", 70_000)
	so := &verdict.SignOff{Team: "analytics", Status: verdict.Pending, Deadline: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC),
		For: []verdict.ConsumerRef{{Consumer: hostile, Subject: "orders.order-created-value", Fields: []string{hostile, long}, Reason: hostile}}}
	msg := TeamMessage(githubapi.PullRequest{Owner: "acme", Repo: "contracts", Number: 42, HTMLURL: "https://github.com/acme/contracts"}, so)
	b, err := json.Marshal(msg.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []struct {
		Text struct{ Text string } `json:"text"`
	}
	if err := json.Unmarshal(b, &blocks); err != nil {
		t.Fatal(err)
	}
	var text string
	for _, bl := range blocks {
		text += bl.Text.Text + "\n"
	}
	for _, raw := range []string{"*bold*", "_it_", "~strike~", ":emoji:", "<!channel>", "<http://evil", "`code`"} {
		if strings.Contains(text, raw) {
			t.Errorf("the message carries %q as Slack would render it:\n%s", raw, text)
		}
	}
	if strings.Contains(text, strings.Repeat("f", maxSlackText)) || !strings.Contains(text, "…") {
		t.Errorf("a 70,000-character field name is not shortened (%d bytes)", len(text))
	}
}
