// Package calendar is the pure core of the change calendar: freeze occurrences and
// their scope, the rules a verdict applies (does a change need a calendar entry, is
// there a valid one, is merging blocked by a freeze), conflicts between planned
// changes, a suggested entry for the next free window, and the agenda view with its
// text, JSON and iCalendar (RFC 5545) renderers.
//
// Everything here is a function of a loaded contract.Tree and the time passed in as
// now: no clock, no files, no network. The CLI, the bot and the web pages call it.
package calendar

import (
	"fmt"
	"slices"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// Window is one span of time in which a freeze holds: a one-off freeze, or one
// occurrence of a weekly freeze.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Name is the freeze's name; Reason its reason.
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
	// Weekly is true for an occurrence of a recurring freeze.
	Weekly bool `json:"weekly,omitempty"`
	// Freeze is the freeze the window comes from.
	Freeze *contract.Freeze `json:"-"`
}

// Overlaps reports whether the window and [start, end) share an instant.
func (w Window) Overlaps(start, end time.Time) bool {
	return w.Start.Before(end) && start.Before(w.End)
}

// Occurrences returns the windows of f that overlap [from, to), in order of start. A
// one-off freeze gives its window as written. A weekly freeze is expanded in its own
// time zone: each occurrence's start and end are computed with time.Date in that zone,
// so "fri 18:00" stays 18:00 local on both sides of a daylight saving change and the
// UTC instants move with it. A window whose end day and time come before its start
// ("fri 18:00" to "mon 08:00") wraps into the next week; an end equal to the start
// means a whole week.
func Occurrences(f *contract.Freeze, from, to time.Time) []Window {
	if f == nil || !from.Before(to) {
		return nil
	}
	if f.Weekly == nil {
		w := Window{Start: f.Start, End: f.End, Name: f.Name, Reason: f.Reason, Freeze: f}
		if w.Start.IsZero() || !w.Overlaps(from, to) {
			return nil
		}
		return []Window{w}
	}
	loc := Location(f.Timezone)
	fh, fm, err1 := clock(f.Weekly.FromTime)
	th, tm, err2 := clock(f.Weekly.ToTime)
	if err1 != nil || err2 != nil {
		return nil
	}
	span := (int(f.Weekly.ToDay) - int(f.Weekly.FromDay) + 7) % 7
	if span == 0 && th*60+tm <= fh*60+fm {
		span = 7
	}
	// Start a week (plus the span) before from, so an occurrence that began earlier and
	// is still running is found.
	d := from.In(loc).AddDate(0, 0, -7-span)
	y, m, day := d.Date()
	var occ []Window
	for {
		start := time.Date(y, m, day, fh, fm, 0, 0, loc)
		if !start.Before(to) {
			break
		}
		if start.Weekday() == f.Weekly.FromDay {
			end := time.Date(y, m, day+span, th, tm, 0, 0, loc)
			w := Window{Start: start, End: end, Name: f.Name, Reason: f.Reason, Weekly: true, Freeze: f}
			if w.Overlaps(from, to) {
				occ = append(occ, w)
			}
			day += 7
		} else {
			day++
		}
	}
	return occ
}

// clock reads "HH:MM".
func clock(s string) (h, m int, err error) {
	if _, err := fmt.Sscanf(s, "%d:%d", &h, &m); err != nil {
		return 0, 0, fmt.Errorf("read time of day %q: %w", s, err)
	}
	if h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0, fmt.Errorf("time of day %q is out of range", s)
	}
	return h, m, nil
}

// Location returns the IANA zone tz, or UTC when tz is empty or unknown (the loader
// has already reported an unknown zone).
func Location(tz string) *time.Location {
	if tz == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Covers reports whether freeze f applies to subject: always for scope everything;
// for domains, when the subject's domain is listed; for tiers, when its tier is (an
// empty tier counts as "standard", the loader's default). A nil subject (not in the
// tree) is covered only by an everything freeze.
func Covers(f *contract.Freeze, subject *contract.Subject) bool {
	if f == nil {
		return false
	}
	if f.Scope.Everything {
		return true
	}
	if subject == nil {
		return false
	}
	tier := subject.Tier
	if tier == "" {
		tier = "standard"
	}
	return slices.Contains(f.Scope.Domains, subject.Domain) || slices.Contains(f.Scope.Tiers, tier)
}

// ScopeString describes a freeze's scope: "everything", "domains: orders, dw",
// "tiers: core".
func ScopeString(s contract.Scope) string {
	switch {
	case s.Everything:
		return "everything"
	case len(s.Domains) > 0 && len(s.Tiers) > 0:
		return "domains: " + join(s.Domains) + "; tiers: " + join(s.Tiers)
	case len(s.Domains) > 0:
		return "domains: " + join(s.Domains)
	case len(s.Tiers) > 0:
		return "tiers: " + join(s.Tiers)
	}
	return "nothing"
}

// freezesFor returns the freezes of tree that cover any of the named subjects, in file
// order.
func freezesFor(tree *contract.Tree, subjects []string) []*contract.Freeze {
	var out []*contract.Freeze
	for _, f := range tree.Freezes {
		for _, s := range subjects {
			if Covers(f, tree.Subject(s)) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// freezeWindows returns every occurrence of the freezes fs overlapping [from, to),
// sorted by start, then name.
func freezeWindows(fs []*contract.Freeze, from, to time.Time) []Window {
	var out []Window
	for _, f := range fs {
		out = append(out, Occurrences(f, from, to)...)
	}
	sortWindows(out)
	return out
}

func sortWindows(ws []Window) {
	slices.SortStableFunc(ws, func(a, b Window) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		if a.Name != b.Name {
			if a.Name < b.Name {
				return -1
			}
			return 1
		}
		return a.End.Compare(b.End)
	})
}
