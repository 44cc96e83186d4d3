package calendar

import (
	"fmt"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// event is one VEVENT of a feed: an item, or the first occurrence of a weekly freeze
// standing for every occurrence in the view (recur).
type event struct {
	Item
	recur *recurrence
}

// recurrence is a weekly freeze written as one event: the first occurrence's local
// start in loc, a nominal duration, and the last occurrence's start.
type recurrence struct {
	loc        *time.Location
	days       int
	rest       time.Duration
	last       time.Time
	occurrence int
}

// groupWeekly turns the occurrences of each weekly freeze into one recurring event at
// the place of its first occurrence, when a weekly rule reproduces every occurrence
// exactly; other items stay as they are.
func groupWeekly(items []Item) []event {
	series := map[*contract.Freeze][]Item{}
	for _, it := range items {
		if it.Kind == KindFreeze && it.Weekly && it.Freeze != nil {
			series[it.Freeze] = append(series[it.Freeze], it)
		}
	}
	var out []event
	done := map[*contract.Freeze]bool{}
	for _, it := range items {
		occ, weekly := series[it.Freeze]
		if !weekly || it.Kind != KindFreeze || !it.Weekly {
			out = append(out, event{Item: it})
			continue
		}
		if done[it.Freeze] {
			continue
		}
		if r := weeklyRule(occ); r != nil {
			done[it.Freeze] = true
			out = append(out, event{Item: it, recur: r})
			continue
		}
		out = append(out, event{Item: it}) // occurrences one by one
	}
	return out
}

// weeklyRule returns the rule that reproduces occ (occurrences of one freeze, in
// order), or nil when none does.
func weeklyRule(occ []Item) *recurrence {
	first := occ[0]
	loc := Location(first.Timezone)
	s := first.Start.In(loc)
	e := first.End.In(loc)
	days := dayNumber(e) - dayNumber(s)
	mid := time.Date(s.Year(), s.Month(), s.Day()+days, s.Hour(), s.Minute(), s.Second(), 0, loc)
	if mid.After(e) {
		days--
		mid = time.Date(s.Year(), s.Month(), s.Day()+days, s.Hour(), s.Minute(), s.Second(), 0, loc)
	}
	r := &recurrence{loc: loc, days: days, rest: e.Sub(mid), last: occ[len(occ)-1].Start, occurrence: len(occ)}
	for i, o := range occ {
		start := time.Date(s.Year(), s.Month(), s.Day()+7*i, s.Hour(), s.Minute(), s.Second(), 0, loc)
		if !start.Equal(o.Start) || !r.end(start).Equal(o.End) {
			return nil
		}
	}
	return r
}

// end is where an occurrence starting at start ends under the nominal duration: the
// same local time days later, then rest of elapsed time (RFC 5545 3.3.6).
func (r *recurrence) end(start time.Time) time.Time {
	s := start.In(r.loc)
	return time.Date(s.Year(), s.Month(), s.Day()+r.days, s.Hour(), s.Minute(), s.Second(), 0, r.loc).Add(r.rest)
}

func dayNumber(t time.Time) int {
	return int(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// write writes DTSTART, DURATION and RRULE.
func (r *recurrence) write(line func(name, value string), it Item) {
	if r.loc == time.UTC {
		line("DTSTART", it.Start.UTC().Format(icsTime))
	} else {
		line("DTSTART;TZID="+r.loc.String(), it.Start.In(r.loc).Format(icsLocal))
	}
	line("DURATION", duration(r.days, r.rest))
	line("RRULE", "FREQ=WEEKLY;UNTIL="+r.last.UTC().Format(icsTime))
}

const icsLocal = "20060102T150405"

// duration writes a nominal duration: P2DT14H.
func duration(days int, rest time.Duration) string {
	s := "P"
	if days > 0 {
		s += fmt.Sprintf("%dD", days)
	}
	if rest > 0 || days == 0 {
		s += "T"
		h, m := int(rest/time.Hour), int(rest%time.Hour/time.Minute)
		if h > 0 || m == 0 {
			s += fmt.Sprintf("%dH", h)
		}
		if m > 0 {
			s += fmt.Sprintf("%dM", m)
		}
	}
	return s
}

// zonesOf lists the zones of the recurring events, in order of first use.
func zonesOf(events []event) []*time.Location {
	var out []*time.Location
	seen := map[string]bool{}
	for _, ev := range events {
		if ev.recur != nil && ev.recur.loc != time.UTC && !seen[ev.recur.loc.String()] {
			seen[ev.recur.loc.String()] = true
			out = append(out, ev.recur.loc)
		}
	}
	return out
}

// writeTimezone writes a VTIMEZONE for loc covering [from, to) (and a week either
// side): one STANDARD or DAYLIGHT component per period of one offset, from Go's zone
// data, each starting at its transition in the local time before it.
func writeTimezone(line func(name, value string), loc *time.Location, from, to time.Time) {
	line("BEGIN", "VTIMEZONE")
	line("TZID", loc.String())
	t := from.Add(-8 * 24 * time.Hour).In(loc)
	limit := to.Add(8 * 24 * time.Hour)
	for i := 0; i < 64; i++ {
		start, end := t.ZoneBounds()
		name, offset := t.Zone()
		kind := "STANDARD"
		if t.IsDST() {
			kind = "DAYLIGHT"
		}
		line("BEGIN", kind)
		if start.IsZero() {
			line("DTSTART", "19700101T000000")
			line("TZOFFSETFROM", offsetString(offset))
		} else {
			_, before := start.Add(-time.Second).Zone()
			line("DTSTART", start.UTC().Add(time.Duration(before)*time.Second).Format(icsLocal))
			line("TZOFFSETFROM", offsetString(before))
		}
		line("TZOFFSETTO", offsetString(offset))
		line("TZNAME", name)
		line("END", kind)
		if end.IsZero() || end.After(limit) {
			break
		}
		t = end.In(loc)
	}
	line("END", "VTIMEZONE")
}

func offsetString(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("%s%02d%02d", sign, sec/3600, sec%3600/60)
}
