package calendar

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/contractbot/contractbot/internal/contract"
)

// ICSOptions are the inputs of WriteICS beyond the view.
type ICSOptions struct {
	// Now is the DTSTAMP of every event: the time the feed was made (injected clock).
	Now time.Time
	// Sequence returns an event's SEQUENCE, a number that must grow each time the
	// item changes so calendar clients replace their copy. The calendar core cannot
	// know that (a hash of the content is not monotonic); the bot derives it from Git
	// history, e.g. the number of commits that touched the entry's file (or
	// calendar/freezes.yaml). Nil means 0 for every event.
	Sequence func(Item) int
	// Name is the calendar's display name (X-WR-CALNAME); default "contractbot
	// changes", with the team appended when the view has one.
	Name string
	// PullRequestURL turns a pull request number into a link for the description;
	// nil writes "#42".
	PullRequestURL func(n int) string
	// EventURL returns the URL property of an event (the page that shows it, or its
	// pull request); nil or "" writes none.
	EventURL func(Item) string
}

// ProdID is the iCalendar PRODID of every feed.
const ProdID = "-//contractbot//contractbot calendar//EN"

// UID returns the stable iCalendar UID of a calendar entry: a hash of its file path,
// so moving the window updates the same event.
func UID(file string) string { return hashID(file) }

// FreezeUID returns the UID of a freeze occurrence: one-off freezes by name, weekly
// occurrences by name and start (each occurrence is its own event).
func FreezeUID(w Window) string {
	key := contract.FreezesFile + "#" + w.Name
	if w.Weekly {
		key += "#" + w.Start.UTC().Format(icsTime)
	}
	return hashID(key)
}

func hashID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + "@contractbot"
}

const icsTime = "20060102T150405Z"

// WriteICS writes the view as an RFC 5545 iCalendar stream: one VEVENT per entry and
// per one-off freeze, times in UTC, lines folded at 75 octets and ended with CRLF, text
// escaped. A weekly freeze is one recurring VEVENT: DTSTART in the freeze's zone (with
// a VTIMEZONE listing that zone's offsets and daylight saving changes over the view,
// taken from Go's zone data), a DURATION in nominal days plus hours, and
// RRULE:FREQ=WEEKLY;UNTIL=the last occurrence in the view; a series the rule cannot
// reproduce exactly (a daylight saving change inside the hours part) is written as its
// occurrences instead. Entries are busy (TRANSP:OPAQUE); freezes are TRANSPARENT so they do
// not block anyone's free/busy time. Output is deterministic for a given view and
// options.
func WriteICS(w io.Writer, v View, opt ICSOptions) error {
	name := opt.Name
	if name == "" {
		name = "contractbot changes"
		if v.Team != "" {
			name += " (" + v.Team + ")"
		}
	}
	seq := opt.Sequence
	if seq == nil {
		seq = func(Item) int { return 0 }
	}
	stamp := opt.Now.UTC().Format(icsTime)
	var b strings.Builder
	line := func(name, value string) {
		b.WriteString(fold(name + ":" + value))
	}
	line("BEGIN", "VCALENDAR")
	line("VERSION", "2.0")
	line("PRODID", ProdID)
	line("CALSCALE", "GREGORIAN")
	line("METHOD", "PUBLISH")
	line("X-WR-CALNAME", escapeText(name))
	events := groupWeekly(v.Items())
	for _, z := range zonesOf(events) {
		writeTimezone(line, z, v.From, v.To)
	}
	for _, ev := range events {
		writeEvent(line, ev, opt, seq, stamp)
	}
	line("END", "VCALENDAR")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEvent writes one VEVENT: an entry, a one-off freeze, or a weekly freeze as one
// recurring event (RRULE) when ev.recur is set.
func writeEvent(line func(name, value string), ev event, opt ICSOptions, seq func(Item) int, stamp string) {
	it := ev.Item
	line("BEGIN", "VEVENT")
	switch {
	case it.Kind == KindEntry:
		line("UID", UID(it.File))
	case ev.recur != nil:
		line("UID", hashID(contract.FreezesFile+"#"+it.Title+"#weekly"))
	default:
		line("UID", FreezeUID(Window{Start: it.Start, Name: it.Title, Weekly: it.Weekly}))
	}
	line("DTSTAMP", stamp)
	if ev.recur != nil {
		ev.recur.write(line, it)
	} else {
		line("DTSTART", it.Start.UTC().Format(icsTime))
		line("DTEND", it.End.UTC().Format(icsTime))
	}
	line("SEQUENCE", fmt.Sprint(seq(it)))
	if opt.EventURL != nil {
		if u := opt.EventURL(it); u != "" {
			line("URL", u)
		}
	}
	var desc []string
	switch it.Kind {
	case KindEntry:
		line("SUMMARY", escapeText(it.Title))
		desc = append(desc, "Subjects: "+join(it.Subjects), "Owner: "+it.Owner, "Kind: "+it.EntryKind)
		if it.PullRequest > 0 {
			pr := fmt.Sprintf("#%d", it.PullRequest)
			if opt.PullRequestURL != nil {
				pr = opt.PullRequestURL(it.PullRequest)
			}
			desc = append(desc, "Pull request: "+pr)
		}
		desc = append(desc, "File: "+it.File, "Window time zone: "+it.Timezone)
		for _, c := range it.ConflictsWith {
			desc = append(desc, "CONFLICT with "+c)
		}
		for _, f := range it.InFreezes {
			desc = append(desc, "IN FREEZE "+f)
		}
		if it.Notes != "" {
			desc = append(desc, "", strings.TrimRight(it.Notes, "\n"))
		}
		line("CATEGORIES", escapeText(it.EntryKind))
		line("TRANSP", "OPAQUE")
	default:
		line("SUMMARY", escapeText("Freeze: "+it.Title))
		desc = append(desc, "Scope: "+it.Scope)
		if it.Reason != "" {
			desc = append(desc, it.Reason)
		}
		line("CATEGORIES", "freeze")
		line("TRANSP", "TRANSPARENT")
	}
	line("DESCRIPTION", escapeText(strings.Join(desc, "\n")))
	line("END", "VEVENT")
}

// escapeText escapes an iCalendar TEXT value (RFC 5545 3.3.11): backslash, semicolon,
// comma and newline; the other control characters, which a TEXT value may not hold
// (3.1, CONTROL), become U+FFFD, so a title cannot break the feed or a client.
func escapeText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\r' && r != '\t' && unicode.IsControl(r) {
			return '\ufffd'
		}
		return r
	}, s)
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\n", `\n`, "\r", `\n`).Replace(s)
}

// fold ends a content line with CRLF, folding it so that no physical line exceeds 75
// octets (RFC 5545 3.1): continuation lines start with one space, and a UTF-8
// sequence is never split.
func fold(s string) string {
	var b strings.Builder
	limit := 75
	for len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b.WriteString(s[:cut])
		b.WriteString("\r\n ")
		s = s[cut:]
		limit = 74 // the leading space counts
	}
	b.WriteString(s)
	b.WriteString("\r\n")
	return b.String()
}
