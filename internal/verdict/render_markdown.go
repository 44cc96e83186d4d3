package verdict

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/impact"
)

// MarkdownOptions say where the pull request's files live, for links to lines.
type MarkdownOptions struct {
	// RepoURL is the repository's web address, e.g. https://github.com/acme/contracts.
	RepoURL string
	// HeadSHA is the evaluated commit; links point at this exact version of a file.
	HeadSHA string
}

// maxMarkdown keeps a comment under GitHub's limit of 65,536 characters.
const maxMarkdown = 60000

// Markdown renders the report as the bot's pull-request comment: a one-line verdict,
// a section per changed subject, sign-offs, calendar, contract file errors and what to
// do next. `contractbot check --format markdown` prints the same text. Text that comes
// from schemas and contract files is escaped; only the sign-off teams' GitHub handles
// are real mentions.
func Markdown(r *Report, opt MarkdownOptions) string {
	m := &mdWriter{opt: opt, r: r}
	m.verdict()
	for _, s := range r.Subjects {
		m.subject(s)
	}
	m.signOffs()
	m.calendar()
	m.lint()
	m.next()
	m.footer()
	return truncateMarkdown(m.b.String())
}

type mdWriter struct {
	b   strings.Builder
	opt MarkdownOptions
	r   *Report
}

func (m *mdWriter) f(format string, args ...any) { fmt.Fprintf(&m.b, format, args...) }

// link renders file:line, linked to the line at the head commit when the options
// allow it, and file:line:col otherwise (or always, with withCol).
func (m *mdWriter) link(file string, line, col int, withCol bool) string {
	text := fmt.Sprintf("%s:%d", file, max(line, 1))
	linked := m.opt.RepoURL != "" && m.opt.HeadSHA != "" && file != ""
	if col > 0 && (withCol || !linked) {
		text += fmt.Sprintf(":%d", col)
	}
	if !linked {
		return escapeMarkdown(text)
	}
	return fmt.Sprintf("[%s](%s#L%d)", escapeMarkdown(text), m.fileURL(file), max(line, 1))
}

// fileLink renders a file name, linked to the file at the head commit when possible.
func (m *mdWriter) fileLink(file string) string {
	if m.opt.RepoURL == "" || m.opt.HeadSHA == "" {
		return code(file)
	}
	return fmt.Sprintf("[%s](%s)", code(file), m.fileURL(file))
}

func (m *mdWriter) fileURL(file string) string {
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.TrimSuffix(m.opt.RepoURL, "/") + "/blob/" + url.PathEscape(m.opt.HeadSHA) + "/" + strings.Join(segs, "/")
}

func badge(c Class) string { return "**" + string(c) + "**" }

// verdict writes the first line: the class and whether the change may merge.
func (m *mdWriter) verdict() {
	r := m.r
	switch {
	case len(r.Subjects) == 0 && len(r.Lint) == 0:
		m.f("%s: no schema contract changes. Ready to merge.\n", badge(r.Class))
	case len(r.Blockers) == 0:
		m.f("%s: ready to merge.\n", badge(r.Class))
	case r.Override != nil:
		m.f("%s: ready to merge by override (%s).\n", badge(r.Class), summary(r))
	default:
		m.f("%s: not ready to merge (%s).\n", badge(r.Class), summary(r))
	}
	if o := r.Override; o != nil {
		m.f("\nOverride by %s at %s: %s\n", escapeMarkdown("@"+o.By), stamp(o.At), escapeMarkdown(o.Reason))
	}
	for _, n := range r.Notices {
		m.f("\n> %s\n", escapeMarkdown(n))
	}
}

func (m *mdWriter) subject(s *SubjectReport) {
	m.f("\n### %s %s\n\n", code(s.Subject), escapeMarkdown(string(s.Kind)))
	m.f("| Format | Level | Owner | Tier | Class |\n|---|---|---|---|---|\n")
	m.f("| %s | %s | %s | %s | %s |\n", escapeMarkdown(s.Format), escapeMarkdown(levelWords(s)),
		escapeMarkdown(s.Owner), escapeMarkdown(s.Tier), badge(s.Class))
	if s.Error != "" {
		m.f("\n**Not evaluated:** %s\n", escapeMarkdown(s.Error))
	}
	m.findings(s)
	m.policy(s)
	m.state(s)
	m.changes(s)
	m.affected(s)
	if len(s.Governance) > 0 {
		m.f("\n**Governance** (every consumer's team must agree):\n\n")
		for _, g := range s.Governance {
			m.f("- %s\n", escapeMarkdown(g))
		}
	}
	if len(s.DataRules) > 0 {
		m.f("\n**Data rules** the change breaks:\n\n")
		for _, d := range s.DataRules {
			m.f("- `%s:%d`: %s\n", d.File, d.Line, escapeMarkdown(d.Message))
		}
	}
	if len(s.Warnings) > 0 {
		m.f("\n**Warnings**\n\n")
		for _, w := range s.Warnings {
			m.f("- :warning: %s\n", escapeMarkdown(w))
		}
	}
	if len(s.Notes) > 0 {
		m.f("\n**Notes**\n\n")
		for _, n := range s.Notes {
			m.f("- %s\n", escapeMarkdown(n))
		}
	}
}

func (m *mdWriter) findings(s *SubjectReport) {
	if s.Kind != Modified || s.Error != "" {
		return
	}
	if len(s.Findings) == 0 {
		if s.Compatible {
			m.f("\nRegistry check at %s: passes.\n", escapeMarkdown(s.Level))
		} else {
			m.f("\nRegistry check at %s: **fails**.\n", escapeMarkdown(s.Level))
		}
		return
	}
	m.f("\nRegistry check at %s: **fails** (%s).\n\n", escapeMarkdown(s.Level), count(len(s.Findings), "finding", "findings"))
	for i, f := range s.Findings {
		if i == maxFindings {
			m.f("- and %d more\n", len(s.Findings)-i)
			break
		}
		m.f("- %s %s", m.link(orDefault(f.File, s.SchemaFile), f.Line, f.Column, false), code(f.Rule))
		if f.Path != "" {
			m.f(" at %s", code(f.Path))
		}
		m.f(": %s\n", escapeMarkdown(f.Message))
	}
}

func (m *mdWriter) policy(s *SubjectReport) {
	if len(s.Policy) == 0 {
		return
	}
	m.f("\n**Policy**: a field leaves the schema after a deprecation period (removal policy %s).\n\n", code(s.Policy[0].Policy))
	for _, p := range s.Policy {
		m.f("- %s %s at %s, %s by policy: %s\n", m.link(orDefault(p.File, s.SchemaFile), p.Line, p.Column, false), code(p.Rule), code(p.Path), badge(p.Class), escapeMarkdown(p.Message))
	}
}

func (m *mdWriter) state(s *SubjectReport) {
	if len(s.State) == 0 {
		return
	}
	m.f("\n**Job state** (fields jobs keep in state and restore from savepoints):\n\n")
	for _, e := range s.State {
		verdict := "**cannot be restored**"
		if e.Migratable {
			verdict = "migrates on restore"
		}
		m.f("- job %s (team %s, %s state): %s %s, %s: %s.\n", code(e.Consumer), escapeMarkdown(e.Owner), escapeMarkdown(e.Serializer),
			code(e.Field), escapeMarkdown(strings.ReplaceAll(string(e.Change), "_", " ")), verdict, escapeMarkdown(e.Why))
	}
}

func (m *mdWriter) changes(s *SubjectReport) {
	if len(s.Changes) == 0 {
		return
	}
	m.f("\n**Field changes**\n\n")
	for i, c := range s.Changes {
		if i == maxChanges {
			m.f("- and %d more\n", len(s.Changes)-i)
			break
		}
		m.f("- %s %s", escapeMarkdown(strings.ReplaceAll(string(c.Kind), "_", " ")), mdPath(c))
		if w := changeWords(c); w != "" && c.Kind != checker.FieldRenamed {
			m.f(": %s", escapeMarkdown(w))
		}
		m.f(", %s\n", effectBadge(c.Effect))
	}
}

func mdPath(c checker.Change) string {
	from, to := changePath(c)
	if to == impact.WholeSubject {
		return "the whole subject"
	}
	if from != "" {
		return code(from) + " -> " + code(to)
	}
	return code(to)
}

func effectBadge(e checker.Effect) string {
	if e == checker.Harmless {
		return effectWord(e)
	}
	return "**" + effectWord(e) + "**"
}

func (m *mdWriter) affected(s *SubjectReport) {
	direct, indirect := split(s.Affected)
	if len(direct)+len(indirect) == 0 {
		if len(s.Changes) > 0 || s.Kind == Deleted {
			m.f("\nNo consumer reads what changed.\n")
		}
		return
	}
	if len(direct) > 0 {
		m.f("\n**Direct consumers** (read %s)\n\n", code(s.Subject))
		for i, a := range direct {
			if i == maxConsumers {
				m.f("- and %d more\n", len(direct)-i)
				break
			}
			m.f("- %s, %s (%s): %s; %s\n", code(a.Name), escapeMarkdown(a.Owner), escapeMarkdown(a.Kind), effectBadge(a.Effect), mdReads(a))
		}
	}
	if len(indirect) > 0 {
		m.f("\n**Indirect consumers** (through lineage)\n\n")
		for i, a := range indirect {
			if i == maxConsumers {
				m.f("- and %d more\n", len(indirect)-i)
				break
			}
			m.f("- %s on %s, %s (%s), %s: %s; %s\n", code(a.Name), code(a.Subject), escapeMarkdown(a.Owner), escapeMarkdown(a.Kind),
				count(a.Hops, "hop", "hops"), effectBadge(a.Effect), mdReads(a))
			cs := chains(a)
			for j, c := range cs {
				if j == maxChains {
					m.f("  - and %d more\n", len(cs)-j)
					break
				}
				m.f("  - %s\n", code(c))
			}
		}
	}
}

// mdReads says which fields change for a consumer: "reads `amount`", "reads `*`:
// `amount`".
func mdReads(a impact.Affected) string {
	var parts []string
	rds := reads(a)
	for _, rd := range rds[:min(len(rds), maxFields+1)] {
		switch {
		case rd.Field == impact.WholeSubject:
			parts = append(parts, "the whole subject")
		case rd.Read == rd.Field:
			parts = append(parts, code(rd.Field))
		default:
			parts = append(parts, code(rd.Field)+" (reads "+code(rd.Read)+")")
		}
	}
	if len(parts) == 1 && parts[0] == "the whole subject" {
		return parts[0]
	}
	if len(rds) > maxFields {
		parts = append(parts[:maxFields], fmt.Sprintf("and %s more", thousands(len(rds)-maxFields)))
	}
	return "fields " + strings.Join(parts, ", ")
}

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
			m.f("  - %s on %s", code(ref.Consumer), code(ref.Subject))
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
