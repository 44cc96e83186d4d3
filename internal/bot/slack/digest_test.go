package slack

import (
	"fmt"
	"strings"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
)

// TestDigestMessageGolden pins a team lead's monthly digest: every section, with a
// name that tries to inject a Slack link.
func TestDigestMessageGolden(t *testing.T) {
	r := &report.Health{Commit: "0123456789abcdef0123456789abcdef01234567"}
	team := &contract.Team{ID: "data-warehouse", Slack: "#dw-realtime", Lead: &contract.Lead{Slack: "U05DWLEAD01", GitHub: "@zhangmin"}}
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	p := report.TeamPart{Team: "data-warehouse",
		Unused: []report.Unused{{Subject: "dw.refund-detail-value", Owner: "data-warehouse", Topic: "dwd_refund_detail", Since: day("2026-05-04"), Days: 211}},
		DeprecatedReads: []report.DeprecatedRead{{Consumer: report.Consumer{Subject: "dw.order-detail-value", Name: "dws-gmv-1min", Owner: "data-warehouse"},
			Field: "user_id", Since: day("2026-11-15"), RemoveAfter: day("2027-03-01"), Replacement: "buyer_id"}},
		DeprecatedOwned: []report.DeprecatedRead{{Consumer: report.Consumer{Subject: "dw.order-detail-value", Name: "<http://evil|clickhouse>", Owner: "analytics"},
			Field: "user_id", RemoveAfter: day("2027-03-01")}},
		BlackBoxes: []report.Consumer{{Subject: "orders.order-created-value", Name: "dwd-order-enrich", Owner: "data-warehouse", Kind: "flink-job"}},
		Broken: []history.Break{{Subject: "dws.gmv-1min-value", Version: 2, Against: []int{1}, Level: "BACKWARD",
			Commit: "89abcdef0123456789abcdef0123456789abcdef", Time: day("2026-11-30")}},
		Departing: []report.Departing{{Topic: "dwd_order_detail", Subject: "dw.order-detail-value", Messages: 200, Conforming: 188,
			Kinds: []string{"undeclared-field", "missing-field"}}},
	}
	golden(t, "slack-digest.json", messageJSON(t, DigestMessage("acme/contracts", "2026-12", r, team, p)))
}

// TestDigestSectionsStayWithinSlackLimits: a long list is cut at ten items, with a
// count of the rest, and every section stays under Slack's 3,000 characters.
func TestDigestSectionsStayWithinSlackLimits(t *testing.T) {
	var p report.TeamPart
	for i := range 25 {
		p.BlackBoxes = append(p.BlackBoxes, report.Consumer{Subject: strings.Repeat("s", 300), Name: fmt.Sprintf("job-%d", i), Kind: "flink-job"})
	}
	msg := DigestMessage("acme/contracts", "2026-12", &report.Health{}, &contract.Team{ID: "t"}, p)
	text := msg.Blocks[1].(*slackgo.SectionBlock).Text.Text
	if len(text) > 3000 || !strings.Contains(text, "more") {
		t.Errorf("section of %d bytes:\n%s", len(text), text)
	}
	p.BlackBoxes = p.BlackBoxes[:12]
	for i := range p.BlackBoxes {
		p.BlackBoxes[i].Subject = "s"
	}
	msg = DigestMessage("acme/contracts", "2026-12", &report.Health{}, &contract.Team{ID: "t"}, p)
	if text := msg.Blocks[1].(*slackgo.SectionBlock).Text.Text; !strings.HasSuffix(text, "… and 2 more") {
		t.Errorf("12 black boxes:\n%s", text)
	}
}
