package calendar

import (
	"bytes"
	"io"
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
	events := cal.Events()
	items := v.Items()
	if len(events) != len(items) {
		t.Fatalf("go-ical reads %d events, the view has %d items", len(events), len(items))
	}
	for i, ev := range events {
		it := items[i]
		start, err1 := ev.DateTimeStart(time.UTC)
		end, err2 := ev.DateTimeEnd(time.UTC)
		if err1 != nil || err2 != nil || !start.Equal(it.Start) || !end.Equal(it.End) {
			t.Errorf("event %d: %s..%s (%v, %v), want %s..%s", i, start, end, err1, err2, it.Start, it.End)
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
