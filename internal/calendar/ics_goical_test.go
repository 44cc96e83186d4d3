package calendar

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	ical "github.com/emersion/go-ical"
)

// TestICSReadByAnIndependentParser decodes WriteICS's output with emersion/go-ical (the
// parser behind go-webdav's CalDAV), encodes it again (its encoder checks the
// properties each component must have exactly once) and compares every event with the
// view.
func TestICSReadByAnIndependentParser(t *testing.T) {
	v, now := icsTree(t)
	checkWithGoICal(t, v, now)
}

// TestICSWeeklyFreezeAcrossDaylightSaving: a weekly freeze over the spring and autumn
// daylight saving changes of its zone (Europe/Berlin) is one recurring event whose
// expansion by an independent RRULE engine gives every occurrence Occurrences gives,
// at 18:00 and 08:00 local on both sides of each change.
func TestICSWeeklyFreezeAcrossDaylightSaving(t *testing.T) {
	tree := load(t, nil)
	for _, r := range [][2]string{{"2027-03-01 00:00", "2027-04-30 00:00"}, {"2026-10-01 00:00", "2026-11-15 00:00"}} {
		v := Agenda(tree, at(time.UTC, r[0]), at(time.UTC, r[1]), "")
		checkWithGoICal(t, v, utc("2026-12-01T09:00:00Z"))
		var buf bytes.Buffer
		if err := WriteICS(&buf, v, ICSOptions{Now: utc("2026-12-01T09:00:00Z")}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "BEGIN:DAYLIGHT") || strings.Count(buf.String(), "RRULE:") != 1 {
			t.Errorf("%s..%s: want one RRULE and a VTIMEZONE with its daylight saving change:\n%s", r[0], r[1], buf.String())
		}
	}
}

// checkWithGoICal writes v as ICS, reads it back with go-ical and compares every
// occurrence it expands to with the view's items.
func checkWithGoICal(t *testing.T, v View, now time.Time) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteICS(&buf, v, ICSOptions{Now: now, Sequence: func(it Item) int { return len(it.Title) % 7 }}); err != nil {
		t.Fatal(err)
	}
	cal, err := ical.NewDecoder(bytes.NewReader(buf.Bytes())).Decode()
	if err != nil {
		t.Fatalf("go-ical cannot read the feed: %v", err)
	}
	if err := ical.NewEncoder(io.Discard).Encode(cal); err != nil {
		t.Fatalf("go-ical finds the feed invalid: %v", err)
	}
	for _, p := range []string{ical.PropVersion, ical.PropProductID, ical.PropCalendarScale} {
		if cal.Props.Get(p) == nil {
			t.Errorf("calendar lacks %s", p)
		}
	}
	// Every occurrence, as a calendar client computes it: an RRULE expanded by
	// rrule-go (through go-ical) in the TZID's zone, each occurrence ending the
	// event's nominal DURATION later (days in local time, then hours).
	type instance struct {
		ev         ical.Event
		start, end time.Time
	}
	var got []instance
	for _, ev := range cal.Events() {
		start, err := ev.DateTimeStart(time.UTC)
		if err != nil {
			t.Fatalf("DTSTART: %v", err)
		}
		if ev.Props.Get(ical.PropRecurrenceRule) == nil {
			end, err := ev.DateTimeEnd(time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, instance{ev, start, end})
			continue
		}
		set, err := ev.RecurrenceSet(time.UTC)
		if err != nil {
			t.Fatalf("go-ical cannot read the RRULE: %v", err)
		}
		loc := time.UTC
		if tz := ev.Props.Get(ical.PropDateTimeStart).Params.Get(ical.PropTimezoneID); tz != "" {
			loc, _ = time.LoadLocation(tz)
		}
		days, rest := nominal(t, ev.Props.Get(ical.PropDuration).Value)
		for _, s := range set.All() {
			l := s.In(loc)
			end := time.Date(l.Year(), l.Month(), l.Day()+days, l.Hour(), l.Minute(), 0, 0, loc).Add(rest)
			got = append(got, instance{ev, s, end})
		}
	}
	// In the view's order: by start, freezes before entries, then by title.
	key := func(in instance) string {
		summary, _ := in.ev.Props.Text(ical.PropSummary)
		kind := "1"
		if title, ok := strings.CutPrefix(summary, "Freeze: "); ok {
			kind, summary = "0", title
		}
		return in.start.UTC().Format(time.RFC3339) + kind + summary
	}
	slices.SortStableFunc(got, func(a, b instance) int { return strings.Compare(key(a), key(b)) })
	items := v.Items()
	if len(got) != len(items) {
		t.Fatalf("the feed expands to %d occurrences, the view has %d items", len(got), len(items))
	}
	for i, in := range got {
		ev, it := in.ev, items[i]
		if !in.start.Equal(it.Start) || !in.end.Equal(it.End) {
			t.Errorf("occurrence %d: %s..%s, want %s..%s", i, in.start, in.end, it.Start, it.End)
		}
		summary, err := ev.Props.Text(ical.PropSummary)
		want := it.Title
		if it.Kind == KindFreeze {
			want = "Freeze: " + it.Title
		}
		if err != nil || summary != want {
			t.Errorf("event %d: summary %q (%v), want %q", i, summary, err, want)
		}
		seq, err := ev.Props.Get(ical.PropSequence).Int()
		if err != nil || seq != len(it.Title)%7 {
			t.Errorf("event %d: SEQUENCE %d (%v)", i, seq, err)
		}
		if _, err := ev.Props.DateTime(ical.PropDateTimeStamp, time.UTC); err != nil {
			t.Errorf("event %d: DTSTAMP: %v", i, err)
		}
		if it.Kind == KindEntry {
			if uid, _ := ev.Props.Text(ical.PropUID); uid != UID(it.File) {
				t.Errorf("event %d: UID %s, want %s", i, uid, UID(it.File))
			}
			if it.Entry.Notes != "" {
				desc, err := ev.Props.Text(ical.PropDescription)
				if err != nil || !bytes.Contains([]byte(desc), []byte(it.Entry.Notes[:20])) {
					t.Errorf("event %d: description %q (%v) lacks the notes", i, desc, err)
				}
			}
		}
	}
}

// nominal reads an RFC 5545 duration of days and hours/minutes ("P2DT14H").
func nominal(t *testing.T, v string) (days int, rest time.Duration) {
	t.Helper()
	d, timePart, _ := strings.Cut(strings.TrimPrefix(v, "P"), "T")
	if d != "" {
		if _, err := fmt.Sscanf(d, "%dD", &days); err != nil {
			t.Fatalf("DURATION %q: %v", v, err)
		}
	}
	if timePart != "" {
		dur, err := time.ParseDuration(strings.ToLower(timePart))
		if err != nil {
			t.Fatalf("DURATION %q: %v", v, err)
		}
		rest = dur
	}
	return days, rest
}
