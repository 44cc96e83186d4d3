package bot

import (
	"fmt"
	"sort"
	"time"

	"github.com/contractbot/contractbot/internal/verdict"
)

// DefaultMarks are when a pending sign-off is reminded: 12 h and 2 h before its
// deadline. At the deadline it is escalated.
var DefaultMarks = []time.Duration{12 * time.Hour, 2 * time.Hour}

// Overdue is the mark of the escalation at the deadline.
const Overdue = "overdue"

// Reminder is one message due for a team's sign-off.
type Reminder struct {
	Team     string
	Mark     string // "12h", "2h" or Overdue
	Deadline time.Time
	SignOff  *verdict.SignOff
}

// Escalation reports whether the reminder is the one at the deadline.
func (r Reminder) Escalation() bool { return r.Mark == Overdue }

func markName(d time.Duration) string { return fmt.Sprintf("%dh", int(d.Hours())) }

// DueReminders returns the reminders due at now for the report's pending sign-offs,
// given those already sent. When several marks have passed (the bot was down) only
// the latest is sent; the earlier ones count as sent. Pure: the caller sends them and
// records the marks (MarkSent) in the state it keeps.
func DueReminders(r *verdict.Report, sent map[string][]string, now time.Time, marks []time.Duration) []Reminder {
	sorted := append([]time.Duration(nil), marks...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] > sorted[j] }) // 12h before 2h
	var out []Reminder
	for _, so := range r.SignOffs {
		if so.Status == verdict.Approved {
			continue
		}
		have := map[string]bool{}
		for _, m := range sent[so.Team] {
			have[m] = true
		}
		due := ""
		if !now.Before(so.Deadline) {
			due = Overdue
		} else {
			for _, m := range sorted {
				if !now.Before(so.Deadline.Add(-m)) {
					due = markName(m)
				}
			}
		}
		if due != "" && !have[due] {
			out = append(out, Reminder{Team: so.Team, Mark: due, Deadline: so.Deadline, SignOff: so})
		}
	}
	return out
}

// MarkSent records a sent reminder, and the earlier marks it makes moot.
func MarkSent(sent map[string][]string, rem Reminder, marks []time.Duration) map[string][]string {
	out := map[string][]string{}
	for k, v := range sent {
		out[k] = append([]string(nil), v...)
	}
	add := func(m string) {
		for _, have := range out[rem.Team] {
			if have == m {
				return
			}
		}
		out[rem.Team] = append(out[rem.Team], m)
	}
	for _, m := range marks {
		if rem.Escalation() || m >= markDuration(rem.Mark) { // an earlier mark, now moot
			add(markName(m))
		}
	}
	add(rem.Mark)
	sort.Strings(out[rem.Team])
	return out
}

func markDuration(mark string) time.Duration {
	var h int
	if _, err := fmt.Sscanf(mark, "%dh", &h); err != nil {
		return 0
	}
	return time.Duration(h) * time.Hour
}
