package verdict

import (
	"fmt"
	"strings"
)

// What a pull request still needs, in the comment: sign-offs, calendar, contract file
// errors, next steps; the footer and the size cut.

func (m *mdWriter) signOffs() {
	if len(m.r.SignOffs) == 0 {
		return
	}
	m.f("\n### Sign-offs\n\n")
	for _, so := range m.r.SignOffs {
		box := " "
		if so.Status == Approved {
			box = "x"
		}
		handles := make([]string, len(so.Handles))
		for i, h := range so.Handles {
			handles[i] = mention(h)
		}
		who := "**" + escapeMarkdown(so.Team) + "**"
		if len(handles) > 0 {
			who += " (" + strings.Join(handles, ", ") + ")"
		}
		switch so.Status {
		case Approved:
			m.f("- [x] %s: approved by %s\n", who, mention(so.ApprovedBy))
		case Overdue:
			m.f("- [%s] %s: **overdue** by %s (was due %s)\n", box, who, span(m.r.Now.Sub(so.Deadline)), stamp(so.Deadline))
		default:
			m.f("- [%s] %s: pending, due %s (%s)\n", box, who, stamp(so.Deadline), relative(so.Deadline, m.r.Now))
		}
		for _, ref := range so.For {
			switch {
			case ref.Consumer == "" && ref.Subject == "":
				m.f("  - %s", code(ref.File))
			case ref.Consumer == "":
				m.f("  - %s of %s", code(ref.File), code(ref.Subject))
			default:
				m.f("  - %s on %s", code(ref.Consumer), code(ref.Subject))
			}
			if fs := nonEmpty(ref.Fields); len(fs) > 0 {
				for i, f := range fs[:min(len(fs), maxFields)] {
					fs[i] = code(f)
				}
				m.f(" (%s)", some(fs))
			}
			m.f(": %s\n", escapeMarkdown(ref.Reason))
		}
		if so.Dropped != "" {
			m.f("  - Earlier approval dropped: %s\n", escapeMarkdown(so.Dropped))
		}
	}
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (m *mdWriter) calendar() {
	if len(m.r.Calendar) == 0 {
		return
	}
	subjects := subjectIndex(m.r)
	m.f("\n### Calendar\n\n")
	for _, c := range m.r.Calendar {
		why := ""
		if s := subjects[c.Subject]; s != nil && c.Required {
			why = fmt.Sprintf(" (a %s change to a %s subject needs one)", s.Class, escapeMarkdown(s.Tier))
		}
		switch {
		case !c.Required:
		case c.Entry != "":
			m.f("- %s: planned in %s%s.\n", code(c.Subject), m.fileLink(c.Entry), why)
			for _, conflict := range c.Conflicts {
				m.f("  - conflict: %s\n", escapeMarkdown(conflict))
			}
		default:
			m.f("- %s: **no usable calendar entry**%s.\n", code(c.Subject), why)
			for _, p := range c.Problems {
				m.f("  - %s\n", escapeMarkdown(p))
			}
			if c.Suggestion != "" {
				fence := fenceFor(c.Suggestion)
				m.f("\n  Add %s, the next free window:\n\n  %syaml\n", code(c.SuggestionFile), fence)
				for _, line := range strings.Split(strings.TrimRight(c.Suggestion, "\n"), "\n") {
					m.f("  %s\n", strings.TrimRight(line, "\r"))
				}
				m.f("  %s\n", fence)
			}
		}
		switch {
		case c.StateMigration && c.StateEntry != "":
			m.f("- %s: the state migration is planned in %s.\n", code(c.Subject), m.fileLink(c.StateEntry))
		case c.StateMigration:
			m.f("- %s: **no state-migration entry**: jobs keep changed fields in state; add a calendar entry of kind `state-migration` (savepoint, migration, restore).\n", code(c.Subject))
		}
		if c.Freeze != "" {
			m.f("- %s: freeze %s is in force until %s (%s); a breaking change cannot merge before then.\n",
				code(c.Subject), code(c.Freeze), stamp(c.FrozenUntil), "ends "+relative(c.FrozenUntil, m.r.Now))
		}
	}
}

// fenceFor returns a code fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

func (m *mdWriter) lint() {
	if len(m.r.Lint) == 0 {
		return
	}
	m.f("\n### Contract file errors (%d)\n\n", len(m.r.Lint))
	for i, d := range m.r.Lint {
		if i == maxLint {
			m.f("- and %d more (run `contractbot lint` to see all)\n", len(m.r.Lint)-i)
			break
		}
		m.f("- %s %s: %s\n", m.link(d.File, d.Line, d.Column, true), code(d.Code), escapeMarkdown(d.Message))
	}
}

// next writes what the author should do, in the order that unblocks the change.
func (m *mdWriter) next() {
	var items []string
	add := func(format string, args ...any) { items = append(items, fmt.Sprintf(format, args...)) }
	r := m.r
	if n := len(r.Lint); n > 0 {
		add("Fix the %s listed above; `contractbot lint` shows them on your machine.", count(n, "contract file error", "contract file errors"))
	}
	for _, s := range r.Subjects {
		if s.Error != "" {
			add("Make %s evaluable: %s", code(s.Subject), escapeMarkdown(s.Error))
		}
	}
	for _, c := range r.Calendar {
		if c.Required && c.Entry == "" {
			switch {
			case c.SuggestionFile != "" && len(c.Problems) > 0:
				add("Add the calendar entry for %s (the suggested %s works), or fix the entry named above.", code(c.Subject), code(c.SuggestionFile))
			case c.SuggestionFile != "":
				add("Add the calendar entry for %s (the suggested %s works, or pick another window).", code(c.Subject), code(c.SuggestionFile))
			default:
				add("Add a calendar entry for %s whose window is ahead and outside every freeze.", code(c.Subject))
			}
		}
		if c.Freeze != "" {
			add("Do not merge before freeze %s ends (%s).", code(c.Freeze), stamp(c.FrozenUntil))
		}
	}
	for _, so := range r.SignOffs {
		switch so.Status {
		case Pending:
			add("Get a sign-off from %s: an approving review by a member, %s.", escapeMarkdown(so.Team), "due "+relative(so.Deadline, r.Now))
		case Overdue:
			add("The sign-off of %s is overdue: talk to the team (its escalation contacts are told), or ask an admin for `/contractbot override <reason>`.", escapeMarkdown(so.Team))
		}
	}
	if r.Class == Breaking && len(r.Blockers) > 0 && r.Override == nil {
		add("Or make the change additive: keep what readers use (the old field, the old subject) next to the new, and remove it in a later pull request once every reader has moved.")
	}
	if len(items) == 0 {
		switch {
		case r.Override != nil:
			add("Nothing else: the override lets this change merge; it is recorded with the change event.")
		case r.Class == Safe:
			add("Nothing: no consumer is affected. Merge once the subject's owner has reviewed.")
		default:
			add("Nothing blocks the merge: every sign-off is in. Merge once the subject's owner has reviewed.")
		}
	}
	m.f("\n### What to do next\n\n")
	for _, it := range items {
		m.f("- %s\n", it)
	}
}

func (m *mdWriter) footer() {
	m.f("\n<sub>contractbot evaluated this at %s", stamp(m.r.Now))
	if sha := m.opt.HeadSHA; sha != "" {
		m.f(" for %s", code(sha[:min(len(sha), 12)]))
	}
	m.f(".</sub>\n")
}

// truncateMarkdown cuts a comment that would exceed GitHub's limit at a line, closing
// an open code fence, and says where to see the rest.
func truncateMarkdown(s string) string {
	if len(s) <= maxMarkdown {
		return s
	}
	cut := strings.LastIndexByte(s[:maxMarkdown], '\n')
	out := s[:cut+1]
	open := ""
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimLeft(line, " ")
		if strings.HasPrefix(t, "```") {
			f := t[:len(t)-len(strings.TrimLeft(t, "`"))]
			switch {
			case open == "":
				open = f
			case f == open && strings.TrimSpace(t) == f:
				open = ""
			}
		}
	}
	if open != "" {
		out += open + "\n"
	}
	return out + "\n_The verdict is too long for one comment; run `contractbot check` to see all of it._\n"
}
