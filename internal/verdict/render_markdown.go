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
	m.process()
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
	case len(r.Subjects) == 0 && len(r.Lint) == 0 && len(r.Blockers) == 0:
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

// process lists the changes to the rules the gate applies, which take effect after
// the merge.
func (m *mdWriter) process() {
	if len(m.r.Process) == 0 {
		return
	}
	m.f("\n### Changes to the rules\n\nThey take effect once merged; this pull request is judged by the base's rules. Each needs the sign-off of the team named.\n\n")
	for _, pc := range m.r.Process {
		m.f("- %s (%s): %s\n", m.fileLink(pc.File), escapeMarkdown(pc.Team), escapeMarkdown(pc.Message))
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
	m.group(s)
	m.state(s)
	m.changes(s)
	m.affected(s)
	if len(s.DataContract) > 0 {
		m.f("\n**Data contract** (what the registry receives as metadata and ruleSet):\n\n")
		for _, c := range s.DataContract {
			m.f("- %s\n", escapeMarkdown(c.Message))
		}
	}
	m.list("**Governance** (every consumer's team must agree):", "", s.Governance)
	if len(s.DataRules) > 0 {
		m.f("\n**Data rules** the change breaks:\n\n")
		for _, d := range s.DataRules {
			m.f("- `%s:%d`: %s\n", d.File, d.Line, escapeMarkdown(d.Message))
		}
	}
	m.list("**Warnings**", ":warning: ", s.Warnings)
	m.list("**Notes**", "", s.Notes)
}

// list writes a titled bullet list of items, each escaped and after mark; nothing
// when there are none.
func (m *mdWriter) list(title, mark string, items []string) {
	if len(items) == 0 {
		return
	}
	m.f("\n%s\n\n", title)
	for _, it := range items {
		m.f("- %s%s\n", mark, escapeMarkdown(it))
	}
}

func (m *mdWriter) findings(s *SubjectReport) {
	if s.Kind != Modified || s.Error != "" {
		return
	}
	if len(s.Findings) == 0 {
		switch {
		case s.SchemaUnchanged:
			m.f("\nSchema and level unchanged: no registry check.\n")
		case s.Group != nil:
			m.f("\nNew compatibility group %s: no registry check (checked against no earlier version).\n", code(s.Group.Key+"="+s.Group.New))
		case s.Compatible:
			m.f("\nRegistry check at %s: passes.\n", escapeMarkdown(s.Level))
		default:
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

func (m *mdWriter) group(s *SubjectReport) {
	g := s.Group
	if g == nil {
		return
	}
	m.f("\n**Major version**: compatibility group %s %s → %s, checked against no earlier version. Readers:%s\n",
		code(g.Key), code(orNone(g.Old)), code(g.New), escapeMarkdown(groupReaders(g)))
	if len(g.Migration) > 0 {
		m.f("\n")
	}
	for _, f := range g.Migration {
		m.f("- %s %s: %s\n", m.link(f.File, f.Line, f.Column, false), code(f.Rule), escapeMarkdown(f.Message))
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
	parts := readWords(a, code)
	if len(parts) == 1 && parts[0] == "the whole subject" {
		return parts[0]
	}
	return "fields " + strings.Join(parts, ", ")
}
