package calendar

import (
	"strings"
	"testing"
)

func conflictSummary(cs []Conflict) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.AFile + " x " + c.BFile + " subjects=" + join(c.Subjects) + " consumers=" + join(c.Consumers) + "\n")
	}
	return b.String()
}

func TestConflictsBySameSubject(t *testing.T) {
	tree := load(t, map[string]string{
		// Overlaps the 2026-12-08 entry (10:00-16:00 Berlin) and names one of its subjects.
		"calendar/2026-12-08-backfill.yaml": entryYAML("Backfill order detail", "[dw.order-detail-value]", "data-warehouse", "2026-12-08T22:00", "2026-12-09T01:00", "Asia/Shanghai"),
		// Same subject, but after the window: no conflict.
		"calendar/2026-12-09-later.yaml": entryYAML("Later", "[dw.order-detail-value]", "data-warehouse", "2026-12-09T10:00", "2026-12-09T11:00", "Europe/Berlin"),
	})
	got := conflictSummary(Conflicts(tree, nil))
	want := "calendar/2026-12-08-split-order-amount.yaml x calendar/2026-12-08-backfill.yaml subjects=dw.order-detail-value consumers=dw.order-detail-value/clickhouse-order-detail, dw.order-detail-value/dws-gmv-1min\n"
	if got != want {
		t.Errorf("conflicts:\n%s\nwant:\n%s", got, want)
	}
	c := Conflicts(tree, nil)[0]
	if !strings.Contains(c.Message, "both change dw.order-detail-value") || c.Message != c.String() {
		t.Errorf("message: %s", c.Message)
	}
}

func TestConflictsBySharedConsumer(t *testing.T) {
	// Two entries on different subjects at the same time. With direct consumers only
	// they do not conflict; with impact data saying both reach the GMV dashboard, they do.
	tree := load(t, map[string]string{
		"calendar/2026-12-15-payments.yaml": entryYAML("Payments change", "[payments.payment-authorized-value]", "payments", "2026-12-15T10:00", "2026-12-15T12:00", "Europe/Berlin"),
		"calendar/2026-12-15-gmv.yaml":      entryYAML("GMV change", "[dws.gmv-1min-value]", "data-warehouse", "2026-12-15T18:00", "2026-12-15T20:00", "Asia/Shanghai"),
	})
	if cs := Conflicts(tree, nil); len(cs) != 0 {
		t.Fatalf("direct consumers only: %s", conflictSummary(cs))
	}
	affected := func(subject string) []string {
		switch subject {
		case "payments.payment-authorized-value":
			return []string{"dws.gmv-1min-value/gmv-dashboard", "payments.payment-authorized-value/dwd-payment-detail"}
		case "dws.gmv-1min-value":
			return []string{"dws.gmv-1min-value/gmv-dashboard"}
		}
		return nil
	}
	got := conflictSummary(Conflicts(tree, affected))
	// 18:00 Shanghai is 11:00 Berlin: they overlap; the payments entry starts first.
	want := "calendar/2026-12-15-payments.yaml x calendar/2026-12-15-gmv.yaml subjects= consumers=dws.gmv-1min-value/gmv-dashboard\n"
	if got != want {
		t.Errorf("conflicts:\n%s\nwant:\n%s", got, want)
	}
}

func TestConflictsNeedOverlapInTime(t *testing.T) {
	// Back to back (one ends when the other starts) is not an overlap.
	tree := load(t, map[string]string{
		"calendar/2026-12-08-after.yaml": entryYAML("Right after", "[orders.order-created-value]", "orders", "2026-12-08T16:00", "2026-12-08T17:00", "Europe/Berlin"),
	})
	if cs := Conflicts(tree, nil); len(cs) != 0 {
		t.Errorf("back-to-back windows conflict: %s", conflictSummary(cs))
	}
}
