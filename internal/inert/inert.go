// Package inert makes text that a pull request controls (field, subject, consumer
// and team names, calendar titles, messages that quote them) inert where it is
// printed: it shows as the characters it is, never as a terminal control sequence, a
// GitHub Actions workflow command or markup, and a name of any length is shortened
// so that it cannot crowd out the rest of a report. One function per medium; every
// renderer passes each value it did not write itself through its medium's function.
// Markdown has verdict's escapeMarkdown and code, Slack mrkdwn internal/bot/slack's escape,
// iCalendar calendar's escapeText, HTML html/template.
package inert

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxName is the length, in characters, past which Name shortens a name; MaxText the
// length of a sentence or a note (which may quote names) in a report.
const (
	MaxName = 200
	MaxText = 2000
)

// Shorten cuts s to at most n characters (runes), the last of them "…" when it is cut.
func Shorten(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// Name is Shorten(s, MaxName): a name as every renderer shows it.
func Name(s string) string { return Shorten(s, MaxName) }

// Terminal is s as a terminal or a CI log may print it on one line: control
// characters (C0 and C1, DEL, line and paragraph separators, the bidirectional
// overrides that reorder what is shown) are written as Go escapes (\n, \x1b,
// \u202e), so a value can neither start a line of its own nor move the cursor, and a
// value that would begin its line with "::" (a GitHub Actions workflow command such
// as ::error:: or ::add-mask::) gets a backslash before it.
func Terminal(s string) string {
	out := escape(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
	})
	if strings.HasPrefix(strings.TrimLeft(out, " \t"), "::") {
		out = `\` + out
	}
	return out
}

// Visible is a name as a page shows it: every character that is not seen as itself
// (control characters, the bidirectional controls that reorder what follows, and the
// invisible format characters such as the zero-width space and joiners, a soft hyphen
// or a byte-order mark) is written as a Go escape (\u202e, \u200b), so two names that
// differ only by such a character never look alike and none can reorder a page.
func Visible(s string) string {
	return escape(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control, unicode.Cf, unicode.Zl, unicode.Zp)
	})
}

// escape writes s with each rune hidden says as a Go escape (\n, \x1b, \u202e).
func escape(s string, hidden func(rune) bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError || !hidden(r):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
