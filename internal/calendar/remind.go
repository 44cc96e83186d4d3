package calendar

import (
	"sort"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// Window reminder marks.
const (
	// MarkDayBefore is due from the same local time on the working day before the
	// window opens (Friday for a Monday window) until it opens.
	MarkDayBefore = "day-before"
	// MarkStart is due while the window is open.
	MarkStart = "start"
)

// WindowReminder is a reminder due for a planned change.
type WindowReminder struct {
	Entry *contract.Entry
	Mark  string
	// Key identifies the reminder for idempotency: the entry's UID, its window and
	// the mark, so a moved window is reminded again.
	Key string
}

// DueWindowReminders lists the reminders due at now: the working day before each
// entry's window opens, and at its start. Pure; the caller sends each once.
func DueWindowReminders(tree *contract.Tree, now time.Time) []WindowReminder {
	var out []WindowReminder
	for _, e := range tree.Entries {
		loc := Location(e.Timezone)
		start := e.Start.In(loc)
		before := start.AddDate(0, 0, -1)
		for before.Weekday() == time.Saturday || before.Weekday() == time.Sunday {
			before = before.AddDate(0, 0, -1)
		}
		key := UID(e.File) + "/" + e.Start.UTC().Format("20060102T1504Z") + "/"
		switch {
		case !now.Before(before) && now.Before(e.Start):
			out = append(out, WindowReminder{Entry: e, Mark: MarkDayBefore, Key: key + MarkDayBefore})
		case !now.Before(e.Start) && now.Before(e.End):
			out = append(out, WindowReminder{Entry: e, Mark: MarkStart, Key: key + MarkStart})
		}
	}
	return out
}

// ReminderTeams lists the teams to tell about an entry: its owner and the owners of
// the direct consumers of its subjects, sorted, without repeats.
func ReminderTeams(tree *contract.Tree, e *contract.Entry) []string {
	seen := map[string]bool{e.Owner: true}
	for _, name := range e.Subjects {
		if s := tree.Subject(name); s != nil {
			for _, c := range s.Consumers {
				seen[c.Owner] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		if t != "" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
