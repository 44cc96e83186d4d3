package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestCalendarConflictIsFlagged: the change's calendar entry overlaps another planned
// change whose subject's consumers the change also reaches (through lineage): the
// pull request shows the conflict, and it does not block.
func TestCalendarConflictIsFlagged(t *testing.T) {
	base := contract.MemSource(testutil.ExampleFiles(t))
	head := contract.MemSource(testutil.ExampleFiles(t))
	f := "contracts/orders/order-created/order_created.avsc"
	head[f] = []byte(strings.Replace(string(base[f]), "\"type\": \"long\",\n      \"doc\": \"Order total", "\"type\": \"string\",\n      \"doc\": \"Order total", 1))
	head["calendar/2026-12-08-gmv-dashboard-upgrade.yaml"] = []byte(`title: Move the GMV dashboard to the new Doris cluster
kind: consumer-upgrade
subjects: [dws.gmv-1min-value]
owner: analytics
window: {start: "2026-12-08T11:00", end: "2026-12-08T13:00", timezone: Europe/Berlin}
`)
	bt, err := contract.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	ht, err := contract.Load(head)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	r := Assess(Input{Base: bt, Head: ht, Now: at, OpenedAt: at})
	var cc *CalendarCheck
	for _, c := range r.Calendar {
		if c.Subject == "orders.order-created-value" {
			cc = c
		}
	}
	if cc == nil || cc.Entry != "calendar/2026-12-08-split-order-amount.yaml" {
		t.Fatalf("calendar check: %+v", cc)
	}
	if len(cc.Conflicts) != 1 || !strings.Contains(cc.Conflicts[0], "2026-12-08-gmv-dashboard-upgrade.yaml") || !strings.Contains(cc.Conflicts[0], "gmv-dashboard") {
		t.Errorf("conflicts: %v", cc.Conflicts)
	}
	for _, b := range r.Blockers {
		if strings.Contains(b, "conflict") {
			t.Errorf("a conflict blocks: %s", b)
		}
	}
	if !strings.Contains(Markdown(r, MarkdownOptions{}), "conflict: calendar/2026-12-08-split-order-amount.yaml and calendar/2026-12-08-gmv-dashboard-upgrade.yaml overlap") {
		t.Error("the comment does not show the conflict")
	}
}
