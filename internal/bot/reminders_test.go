package bot

import (
	"reflect"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/verdict"
)

func TestDueReminders(t *testing.T) {
	deadline := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	r := &verdict.Report{SignOffs: []*verdict.SignOff{
		{Team: "analytics", Status: verdict.Pending, Deadline: deadline},
		{Team: "platform", Status: verdict.Approved, Deadline: deadline},
	}}
	at := func(h float64) time.Time { return deadline.Add(-time.Duration(h * float64(time.Hour))) }
	var sent map[string][]string
	step := func(now time.Time, want string) {
		t.Helper()
		due := DueReminders(r, sent, now, DefaultMarks)
		got := ""
		if len(due) > 1 {
			t.Fatalf("%v: %d reminders at once", now, len(due))
		}
		if len(due) == 1 {
			got = due[0].Team + " " + due[0].Mark
			sent = MarkSent(sent, due[0], DefaultMarks)
		}
		if got != want {
			t.Errorf("at %s before the deadline: %q, want %q", deadline.Sub(now), got, want)
		}
	}
	step(at(13), "")
	step(at(12), "analytics 12h") // 12 h before
	step(at(11), "")              // sent once only
	step(at(2), "analytics 2h")
	step(at(0), "analytics overdue") // the deadline: escalate
	step(at(-5), "")
	if !reflect.DeepEqual(sent["analytics"], []string{"12h", "2h", "overdue"}) {
		t.Errorf("sent %v", sent)
	}
	// The bot was down until 1 h before the deadline: only the 2 h reminder goes out,
	// and the 12 h one is not sent afterwards.
	sent = nil
	step(at(1), "analytics 2h")
	step(at(0.5), "")
	if !reflect.DeepEqual(sent["analytics"], []string{"12h", "2h"}) {
		t.Errorf("sent %v", sent)
	}
}
