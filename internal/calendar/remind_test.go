package calendar

import (
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

func TestDueWindowReminders(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	monday := time.Date(2026, 12, 7, 10, 0, 0, 0, berlin)
	tree := &contract.Tree{Entries: []*contract.Entry{{File: "calendar/2026-12-07-x.yaml", Start: monday, End: monday.Add(2 * time.Hour), Timezone: "Europe/Berlin"}}}
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 12, 4, 9, 59, 0, 0, berlin), ""},            // Friday, before 10:00
		{time.Date(2026, 12, 4, 10, 0, 0, 0, berlin), MarkDayBefore}, // the working day before, same time
		{time.Date(2026, 12, 6, 18, 0, 0, 0, berlin), MarkDayBefore}, // Sunday: still due (sent once by the caller)
		{monday, MarkStart},             // the window opens
		{monday.Add(2 * time.Hour), ""}, // closed
	} {
		got := ""
		if due := DueWindowReminders(tree, tc.at); len(due) == 1 {
			got = due[0].Mark
			if !strings.HasSuffix(due[0].Key, "/"+got) {
				t.Errorf("key %q", due[0].Key)
			}
		}
		if got != tc.want {
			t.Errorf("at %s: %q, want %q", tc.at, got, tc.want)
		}
	}
}
