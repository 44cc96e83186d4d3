package calendar

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// icsComponent is a parsed iCalendar component: properties by name (values unfolded,
// raw) and sub-components.
type icsComponent struct {
	Name  string
	Props map[string][]string
	Subs  []*icsComponent
}

// readICS is a small, strict RFC 5545 reader for the tests: it checks CRLF line
// endings and the 75-octet limit, unfolds, and builds the component tree.
func readICS(data []byte) (*icsComponent, error) {
	if !bytes.HasSuffix(data, []byte("\r\n")) {
		return nil, fmt.Errorf("the stream does not end with CRLF")
	}
	physical := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	var logical []string
	for i, l := range physical {
		if strings.ContainsAny(l, "\r\n") {
			return nil, fmt.Errorf("line %d holds a bare CR or LF: %q", i+1, l)
		}
		if len(l) > 75 {
			return nil, fmt.Errorf("line %d is %d octets long: %q", i+1, len(l), l)
		}
		if !utf8.ValidString(l) {
			return nil, fmt.Errorf("line %d splits a UTF-8 sequence: %q", i+1, l)
		}
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			if len(logical) == 0 {
				return nil, fmt.Errorf("line %d continues nothing", i+1)
			}
			logical[len(logical)-1] += l[1:]
			continue
		}
		logical = append(logical, l)
	}
	var stack []*icsComponent
	var root *icsComponent
	for i, l := range logical {
		colon := strings.IndexByte(l, ':')
		if colon <= 0 {
			return nil, fmt.Errorf("content line %d has no name: %q", i+1, l)
		}
		name, value := l[:colon], l[colon+1:]
		if semi := strings.IndexByte(name, ';'); semi >= 0 {
			name = name[:semi]
		}
		switch name {
		case "BEGIN":
			c := &icsComponent{Name: value, Props: map[string][]string{}}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("a second top-level component %s", value)
				}
				root = c
			} else {
				top := stack[len(stack)-1]
				top.Subs = append(top.Subs, c)
			}
			stack = append(stack, c)
		case "END":
			if len(stack) == 0 || stack[len(stack)-1].Name != value {
				return nil, fmt.Errorf("END:%s does not close the open component", value)
			}
			stack = stack[:len(stack)-1]
		default:
			if len(stack) == 0 {
				return nil, fmt.Errorf("property %s outside a component", name)
			}
			top := stack[len(stack)-1]
			top.Props[name] = append(top.Props[name], value)
		}
	}
	if len(stack) != 0 || root == nil {
		return nil, fmt.Errorf("unclosed component")
	}
	return root, nil
}

// unescapeText reads a TEXT value and refuses unescaped commas and semicolons.
func unescapeText(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return "", fmt.Errorf("dangling backslash in %q", s)
			}
			i++
			switch s[i] {
			case '\\', ';', ',':
				b.WriteByte(s[i])
			case 'n', 'N':
				b.WriteByte('\n')
			default:
				return "", fmt.Errorf("unknown escape \\%c in %q", s[i], s)
			}
		case ',', ';':
			return "", fmt.Errorf("unescaped %c in %q", c, s)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func (c *icsComponent) one(t *testing.T, name string) string {
	t.Helper()
	if len(c.Props[name]) != 1 {
		t.Fatalf("%s has %d %s properties, want 1", c.Name, len(c.Props[name]), name)
	}
	return c.Props[name][0]
}

func (c *icsComponent) text(t *testing.T, name string) string {
	t.Helper()
	s, err := unescapeText(c.one(t, name))
	if err != nil {
		t.Fatalf("%s %s: %v", c.Name, name, err)
	}
	return s
}

const trickyTitle = `Split "amount"; add fee, tax \ 拆分订单金额为总额与运费字段以便数据仓库层直接读取而不必自行换算单位`

func icsTree(t *testing.T) (v View, now time.Time) {
	tree := load(t, map[string]string{
		"calendar/2026-12-09-tricky.yaml": "title: '" + trickyTitle + "'\nkind: backfill\nsubjects: [dws.gmv-1min-value]\nowner: data-warehouse\n" +
			"window:\n  start: \"2026-12-09T10:00\"\n  end: \"2026-12-09T12:00\"\n  timezone: Asia/Shanghai\n" +
			"notes: |\n  line one, with a comma; and a semicolon\n  line two \\ backslash\n",
	})
	now = utc("2026-12-01T09:00:00Z")
	return Agenda(tree, at(time.UTC, "2026-12-01 00:00"), at(time.UTC, "2026-12-31 00:00"), ""), now
}

func TestICSParsesBackWithEveryEvent(t *testing.T) {
	v, now := icsTree(t)
	var buf bytes.Buffer
	seq := func(it Item) int {
		if it.File == "calendar/2026-12-09-tricky.yaml" {
			return 3
		}
		return 0
	}
	if err := WriteICS(&buf, v, ICSOptions{Now: now, Sequence: seq}); err != nil {
		t.Fatal(err)
	}
	cal, err := readICS(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if cal.Name != "VCALENDAR" || cal.one(t, "VERSION") != "2.0" || cal.one(t, "PRODID") != ProdID || cal.one(t, "CALSCALE") != "GREGORIAN" {
		t.Fatalf("calendar properties: %v", cal.Props)
	}
	items := v.Items()
	// Expected events: entries and one-off freezes one each, a weekly freeze once
	// (its first occurrence in the view).
	events := groupWeekly(items)
	var vevents []*icsComponent
	for _, c := range cal.Subs {
		if c.Name == "VEVENT" {
			vevents = append(vevents, c)
		} else if c.Name != "VTIMEZONE" {
			t.Fatalf("component %s", c.Name)
		}
	}
	if len(vevents) != len(events) || len(events) >= len(items) {
		t.Fatalf("%d events, want %d (one per entry and one-off freeze, one per weekly freeze; %d items)", len(vevents), len(events), len(items))
	}
	uids := map[string]bool{}
	recurring := 0
	for i, ev := range vevents {
		it := events[i].Item
		uid := ev.one(t, "UID")
		if uids[uid] || !strings.HasSuffix(uid, "@contractbot") {
			t.Errorf("UID %s repeated or malformed", uid)
		}
		uids[uid] = true
		if got := ev.one(t, "DTSTAMP"); got != "20261201T090000Z" {
			t.Errorf("DTSTAMP %s", got)
		}
		if events[i].recur != nil {
			recurring++
			if rule := ev.one(t, "RRULE"); !strings.HasPrefix(rule, "FREQ=WEEKLY;UNTIL=") || len(ev.Props["DTEND"]) != 0 {
				t.Errorf("weekly freeze %s: RRULE %q, DTEND %v", it.Title, rule, ev.Props["DTEND"])
			}
		} else {
			start, err1 := time.Parse(icsTime, ev.one(t, "DTSTART"))
			end, err2 := time.Parse(icsTime, ev.one(t, "DTEND"))
			if err1 != nil || err2 != nil || !start.Equal(it.Start) || !end.Equal(it.End) {
				t.Errorf("event %d: %s..%s, want %s..%s (%v %v)", i, start, end, it.Start.UTC(), it.End.UTC(), err1, err2)
			}
		}
		ev.text(t, "DESCRIPTION")
		summary := ev.text(t, "SUMMARY")
		switch it.Kind {
		case KindEntry:
			if summary != it.Title || uid != UID(it.File) {
				t.Errorf("entry event: summary %q uid %s, want %q %s", summary, uid, it.Title, UID(it.File))
			}
		case KindFreeze:
			if summary != "Freeze: "+it.Title || ev.one(t, "TRANSP") != "TRANSPARENT" {
				t.Errorf("freeze event: %v", ev.Props)
			}
		}
	}
	if recurring == 0 {
		t.Error("no weekly freeze was written as a recurring event")
	}
	cal.Subs = vevents
	items = nil
	for _, ev := range events {
		items = append(items, ev.Item)
	}
	var tricky *icsComponent
	for i, it := range items {
		if it.File == "calendar/2026-12-09-tricky.yaml" {
			tricky = cal.Subs[i]
		}
	}
	if tricky == nil {
		t.Fatal("the tricky entry is missing")
	}
	if got := tricky.text(t, "SUMMARY"); got != trickyTitle {
		t.Errorf("summary read back as %q", got)
	}
	if got := tricky.one(t, "SEQUENCE"); got != "3" {
		t.Errorf("SEQUENCE %s, want 3 from the Sequence function", got)
	}
	desc := tricky.text(t, "DESCRIPTION")
	for _, want := range []string{"Subjects: dws.gmv-1min-value\n", "\nline one, with a comma; and a semicolon\nline two \\ backslash"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description %q lacks %q", desc, want)
		}
	}
	// Folding happened, and inside the multi-byte title.
	if !strings.Contains(buf.String(), "\r\n ") {
		t.Error("no line was folded")
	}
}

func TestICSIsDeterministicAndUIDsStable(t *testing.T) {
	v, now := icsTree(t)
	var a, b bytes.Buffer
	if err := WriteICS(&a, v, ICSOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	if err := WriteICS(&b, v, ICSOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("two runs differ")
	}
	// The UID depends on the file only: a moved window keeps its event.
	if UID("calendar/2026-12-08-split-order-amount.yaml") != "7a53410f2b84e78fdefe9f886648baac@contractbot" {
		t.Errorf("UID changed: %s", UID("calendar/2026-12-08-split-order-amount.yaml"))
	}
	w1 := Window{Name: "weekend", Weekly: true, Start: utc("2026-12-04T17:00:00Z")}
	w2 := Window{Name: "weekend", Weekly: true, Start: utc("2026-12-11T17:00:00Z")}
	if FreezeUID(w1) == FreezeUID(w2) {
		t.Error("two occurrences of a weekly freeze share a UID")
	}
	once := Window{Name: "year-end", Start: utc("2026-12-17T23:00:00Z")}
	moved := Window{Name: "year-end", Start: utc("2026-12-18T23:00:00Z")}
	if FreezeUID(once) != FreezeUID(moved) {
		t.Error("a one-off freeze's UID depends on its start")
	}
}

func TestFoldAndEscape(t *testing.T) {
	if got := escapeText("a,b;c\\d\ne\r\nf"); got != `a\,b\;c\\d\ne\nf` {
		t.Errorf("escapeText: %s", got)
	}
	// a TEXT value may hold no control character (RFC 5545 3.1): a title's escapes go
	if got := escapeText("Split\x1b[2J\x00amount\x7f"); got != "Split\ufffd[2J\ufffdamount\ufffd" {
		t.Errorf("escapeText of control characters: %q", got)
	}
	long := "SUMMARY:" + strings.Repeat("é", 100) // 2 octets each
	folded := fold(long)
	lines := strings.Split(strings.TrimSuffix(folded, "\r\n"), "\r\n")
	var joined strings.Builder
	for i, l := range lines {
		if len(l) > 75 || !utf8.ValidString(l) {
			t.Errorf("line %d: %d octets, valid UTF-8 %v", i, len(l), utf8.ValidString(l))
		}
		if i > 0 {
			if l[0] != ' ' {
				t.Errorf("continuation line %d does not start with a space", i)
			}
			l = l[1:]
		}
		joined.WriteString(l)
	}
	if joined.String() != long {
		t.Error("unfolding does not give the line back")
	}
	if got := fold("SHORT:x"); got != "SHORT:x\r\n" {
		t.Errorf("fold of a short line: %q", got)
	}
	exact := "X:" + strings.Repeat("a", 73) // 75 octets: not folded
	if got := fold(exact); got != exact+"\r\n" {
		t.Errorf("a 75-octet line was folded")
	}
}
