package verdict

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/impact"
	"github.com/contractbot/contractbot/internal/inert"
)

// What every renderer shares: caps on long lists, time and change wording, and the
// escapers for text that comes from schemas and contract files.

// Caps on long lists, so a change to a large repository still fits a pull-request
// comment (GitHub refuses bodies over 65,536 characters).
const (
	maxFindings  = 50
	maxChanges   = 50
	maxConsumers = 50
	maxChains    = 3
	maxLint      = 50
	// maxFields caps the fields named per consumer (a consumer reading "*" of a
	// subject with 10,000 changed fields would otherwise fill the comment).
	maxFields = 10
)

// some joins at most maxFields items and counts the rest: "a, b and 9,998 more".
func some(items []string) string {
	if len(items) <= maxFields {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxFields], ", ") + fmt.Sprintf(" and %s more", thousands(len(items)-maxFields))
}

// escapeMarkdown makes text from schemas and contract files (field names, docs,
// messages, consumer names, reasons) inert in GitHub Markdown: every character that can
// start Markdown or HTML is backslash-escaped, @ is followed by a zero-width space so
// no user or team is mentioned, and line breaks become spaces so the text cannot start
// a new block (a heading, a list, a table row, a code fence). Text past inert.MaxText
// characters is shortened with an ellipsis, so no value can crowd the comment's later
// sections out of GitHub's limit.
func escapeMarkdown(s string) string {
	s = inert.Shorten(s, inert.MaxText)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '(', ')', '<', '>', '#', '|', '~', '!', '&':
			// All ASCII punctuation, which CommonMark lets a backslash escape; '&'
			// keeps an entity (&#64;) from turning into markup.
			b.WriteByte('\\')
			b.WriteRune(r)
		case '@':
			b.WriteString("@\u200b")
		case '\n', '\r', '\t', '\u2028', '\u2029':
			b.WriteByte(' ')
		default:
			if unicode.IsControl(r) {
				b.WriteRune('\ufffd')
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// code renders an identifier from the tree (a field path, a consumer, a subject) as a
// code span, inside which Markdown, HTML and mentions are inert. Text a code span
// cannot hold safely (a backtick, a pipe that would split a table cell, a line break)
// is escaped as prose instead. A name past inert.MaxName characters is shortened.
func code(s string) string {
	s = inert.Name(s)
	if s == "" || strings.ContainsAny(s, "`|\n\r") || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return escapeMarkdown(s)
	}
	return "`" + s + "`"
}

// handlePattern is a GitHub user (@login) or team (@org/team) handle.
var handlePattern = regexp.MustCompile(`^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$`)

// mention renders a handle the bot means to notify (a sign-off team, an approver) as a
// real mention when it is a well-formed GitHub handle, escaped otherwise.
func mention(h string) string {
	if !strings.HasPrefix(h, "@") {
		h = "@" + h
	}
	if handlePattern.MatchString(h) {
		return h
	}
	return escapeMarkdown(h)
}

// plain makes text from the tree inert in a terminal or a CI log: inert.Terminal's
// escapes for control characters and line breaks, and a backslash before a value
// that would start its line with a GitHub Actions workflow command ("::error::").
func plain(s string) string { return inert.Terminal(s) }

// stamp formats a time for people: "Wed 2026-12-02 08:00 UTC".
func stamp(t time.Time) string { return t.UTC().Format("Mon 2006-01-02 15:04 UTC") }

// relative says how far a deadline is from now: "in 5 h", "overdue by 2 h".
func relative(deadline, now time.Time) string {
	d := deadline.Sub(now)
	if d > 0 {
		return "in " + span(d)
	}
	return "overdue by " + span(-d)
}

// span renders a duration coarsely: minutes under an hour, hours under two days,
// then days and hours.
func span(d time.Duration) string {
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%d min", max(1, int(d/time.Minute)))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	days, hours := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
	if hours == 0 {
		return fmt.Sprintf("%d d", days)
	}
	return fmt.Sprintf("%d d %d h", days, hours)
}

// effectWord says what a change means for a reader.
func effectWord(e checker.Effect) string {
	switch e {
	case checker.Breaks:
		return "breaking"
	case checker.ChangesMeaning:
		return "changes meaning"
	case checker.Harmless:
		return "harmless"
	}
	return string(e)
}

// changeWords renders a field change's values: "int -> long", "was long", "new: string".
func changeWords(c checker.Change) string {
	switch {
	case c.Kind == checker.ChangesCut:
		return c.New + " more changes, not listed"
	case c.Old != "" && c.New != "":
		return c.Old + " -> " + c.New
	case c.Old != "":
		return "was " + c.Old
	case c.New != "":
		return "now " + c.New
	}
	return ""
}

// changePath is the field a change is about: "user_id -> buyer_id" for a rename.
func changePath(c checker.Change) (from, to string) {
	if c.OldPath != "" && c.OldPath != c.Path {
		return c.OldPath, c.Path
	}
	return "", c.Path
}

// read is one way a consumer is touched: the field that changed for it and the entry
// of its reads (or lineage inputs) that matched.
type read struct{ Field, Read string }

// reads lists the distinct (field, read) pairs of a consumer's hits, sorted.
func reads(a impact.Affected) []read {
	seen := map[read]bool{}
	var out []read
	for _, h := range a.Hits {
		k := read{h.Field, h.Read}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Field != out[j].Field {
			return out[i].Field < out[j].Field
		}
		return out[i].Read < out[j].Read
	})
	return out
}

// readWords lists a consumer's reads as a reader sees them, each field through
// quote: "the whole subject", "amount", "amount (reads *)", at most maxFields and
// then "and N more".
func readWords(a impact.Affected, quote func(string) string) []string {
	var words []string
	rds := reads(a)
	for _, rd := range rds[:min(len(rds), maxFields+1)] {
		switch {
		case rd.Field == impact.WholeSubject:
			words = append(words, "the whole subject")
		case rd.Read == rd.Field:
			words = append(words, quote(rd.Field))
		default:
			words = append(words, quote(rd.Field)+" (reads "+quote(rd.Read)+")")
		}
	}
	if len(rds) > maxFields {
		words = append(words[:maxFields], fmt.Sprintf("and %s more", thousands(len(rds)-maxFields)))
	}
	return words
}

// chains lists the distinct lineage chains of an indirect consumer, sorted.
func chains(a impact.Affected) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range a.Hits {
		if len(h.Chain) < 2 {
			continue
		}
		s := impact.ChainString(h.Chain)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// split separates direct from indirect consumers, keeping the engine's order.
func split(as []impact.Affected) (direct, indirect []impact.Affected) {
	for _, a := range as {
		if a.Direct {
			direct = append(direct, a)
		} else {
			indirect = append(indirect, a)
		}
	}
	return direct, indirect
}

// summary counts what keeps a report from merging, for its first line:
// "waiting for 2 sign-offs; 1 contract file error".
func summary(r *Report) string {
	var parts []string
	pending, overdue := 0, 0
	for _, s := range r.SignOffs {
		switch s.Status {
		case Pending:
			pending++
		case Overdue:
			overdue++
		}
	}
	if overdue > 0 {
		parts = append(parts, count(overdue, "sign-off overdue", "sign-offs overdue"))
	}
	if pending > 0 {
		parts = append(parts, "waiting for "+count(pending, "sign-off", "sign-offs"))
	}
	missing, frozen := 0, 0
	for _, c := range r.Calendar {
		if c.Required && c.Entry == "" {
			missing++
		}
		if c.Freeze != "" {
			frozen++
		}
	}
	if missing > 0 {
		parts = append(parts, count(missing, "calendar entry missing", "calendar entries missing"))
	}
	if frozen > 0 {
		parts = append(parts, "in a freeze")
	}
	if n := len(r.Lint); n > 0 {
		parts = append(parts, count(n, "contract file error", "contract file errors"))
	}
	failed := 0
	for _, s := range r.Subjects {
		if s.Error != "" {
			failed++
		}
	}
	if failed > 0 {
		parts = append(parts, count(failed, "subject not evaluated", "subjects not evaluated"))
	}
	if len(parts) == 0 && len(r.Blockers) > 0 {
		parts = append(parts, count(len(r.Blockers), "blocker", "blockers"))
	}
	return strings.Join(parts, "; ")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// subjectIndex maps subject names to their reports.
func subjectIndex(r *Report) map[string]*SubjectReport {
	m := make(map[string]*SubjectReport, len(r.Subjects))
	for _, s := range r.Subjects {
		m[s.Subject] = s
	}
	return m
}

// levelWords is "BACKWARD" or "FULL_TRANSITIVE -> NONE" when the level changed.
func levelWords(s *SubjectReport) string {
	if s.OldLevel != "" && s.OldLevel != s.Level {
		return s.OldLevel + " -> " + s.Level
	}
	return s.Level
}
