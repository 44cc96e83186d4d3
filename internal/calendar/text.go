package calendar

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText prints the view as an agenda for a terminal: one block per day, times in
// the view's zone, freezes and conflicts marked.
func WriteText(w io.Writer, v View) error {
	loc := v.From.Location()
	var b strings.Builder
	from, to := v.From.In(loc), v.To.In(loc)
	if from.Format("15:04:05") == "00:00:00" && to.Format("15:04:05") == "00:00:00" {
		fmt.Fprintf(&b, "Calendar %s to %s (%s)", from.Format("Mon 2006-01-02"), to.Add(-time.Nanosecond).Format("Mon 2006-01-02"), v.Timezone)
	} else {
		fmt.Fprintf(&b, "Calendar %s to %s (%s)", from.Format("Mon 2006-01-02 15:04"), to.Format("Mon 2006-01-02 15:04"), v.Timezone)
	}
	if v.Team != "" {
		fmt.Fprintf(&b, ", team %s", v.Team)
	}
	b.WriteString("\n")
	entries, freezes := 0, 0
	for _, d := range v.Days {
		day, _ := time.ParseInLocation("2006-01-02", d.Date, loc)
		fmt.Fprintf(&b, "\n%s\n", day.Format("Mon 2006-01-02"))
		for _, it := range d.Items {
			when := span(it, loc)
			const indent = "                                 "
			switch it.Kind {
			case KindFreeze:
				freezes++
				fmt.Fprintf(&b, "  %-30s FREEZE %s (%s)\n", when, it.Title, it.Scope)
				if it.Reason != "" {
					fmt.Fprintf(&b, "%s%s\n", indent, it.Reason)
				}
			case KindEntry:
				entries++
				fmt.Fprintf(&b, "  %-30s %s [%s]\n", when, it.Title, it.EntryKind)
				fmt.Fprintf(&b, "%ssubjects: %s\n", indent, join(it.Subjects))
				owner := "owner: " + it.Owner
				if it.PullRequest > 0 {
					owner += fmt.Sprintf(", pull request #%d", it.PullRequest)
				}
				fmt.Fprintf(&b, "%s%s\n", indent, owner)
				fmt.Fprintf(&b, "%s%s\n", indent, it.File)
				for _, c := range it.ConflictsWith {
					fmt.Fprintf(&b, "%sCONFLICT with %s\n", indent, c)
				}
				for _, f := range it.InFreezes {
					fmt.Fprintf(&b, "%sIN FREEZE %s: this window cannot carry a change to its subjects\n", indent, f)
				}
			}
		}
	}
	if len(v.Days) == 0 {
		b.WriteString("\nNothing planned and no freeze in this range.\n")
	}
	if len(v.Conflicts) > 0 {
		b.WriteString("\nConflicts:\n")
		for _, c := range v.Conflicts {
			fmt.Fprintf(&b, "  - %s\n", c.Message)
		}
	}
	fmt.Fprintf(&b, "\n%d entr%s, %d freeze window(s), %d conflict(s)\n", entries, plural(entries, "y", "ies"), freezes, len(v.Conflicts))
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// span renders an item's time on the day it is listed: "10:00-16:00" within the day,
// "18:00 to Mon 12-07 08:00" across days (with the year when it changes), "ongoing,
// to Mon 12-07 08:00" for an item already under way when the view begins, "ended Mon
// 12-07 07:00" for one that began before the view and is over now, and a trailing
// "(ended)" for one that began in the view and is over.
func span(it Item, loc *time.Location) string {
	s, e := it.Start.In(loc), it.End.In(loc)
	if it.Ended && it.Ongoing {
		return "ended " + e.Format("Mon 01-02 15:04")
	}
	if it.Ended {
		it.Ended = false
		return span(it, loc) + " (ended)"
	}
	start := s.Format("15:04")
	if it.Ongoing {
		start = "ongoing,"
	}
	if !it.Ongoing && sameDay(s, e) {
		return start + "-" + e.Format("15:04")
	}
	if e.Format("15:04") == "00:00" && !it.Ongoing && sameDay(s, e.Add(-time.Minute)) {
		return start + "-24:00"
	}
	layout := "Mon 01-02 15:04"
	if s.Year() != e.Year() {
		layout = "Mon 2006-01-02 15:04"
	}
	return start + " to " + e.Format(layout)
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// WriteJSON writes the view as indented JSON.
func WriteJSON(w io.Writer, v View) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
