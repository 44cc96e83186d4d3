package verdict

import (
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/internal/impact"
)

// Text renders the report for a terminal (`contractbot check`, the default format):
// the verdict, then per subject compiler-like lines (file:line:col: RULE message) for
// registry findings and field changes, the affected consumers, then sign-offs,
// calendar, contract file errors and blockers. Control characters from the tree are
// replaced, so a file cannot send escape sequences to the terminal.
func Text(r *Report) string {
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	switch {
	case len(r.Subjects) == 0 && len(r.Lint) == 0 && len(r.Blockers) == 0:
		f("%s: no schema contract changes; ready to merge\n", r.Class)
	case len(r.Blockers) == 0:
		f("%s: ready to merge\n", r.Class)
	case r.Override != nil:
		f("%s: ready to merge by override (%s)\n", r.Class, summary(r))
	default:
		f("%s: not ready to merge (%s)\n", r.Class, summary(r))
	}
	if o := r.Override; o != nil {
		f("override by @%s at %s: %s\n", plain(o.By), stamp(o.At), plain(o.Reason))
	}
	for _, n := range r.Notices {
		f("note: %s\n", plain(n))
	}
	for _, s := range r.Subjects {
		f("\n%s: %s (%s; %s; %s; owner %s; tier %s)\n", plain(s.Subject), s.Class, s.Kind, plain(s.Format),
			plain(levelWords(s)), plain(s.Owner), plain(s.Tier))
		if s.Error != "" {
			f("  not evaluated: %s\n", plain(s.Error))
		}
		if s.Kind == Modified && s.Error == "" {
			switch {
			case s.SchemaUnchanged && len(s.Findings) == 0:
				f("  schema and level unchanged: no registry check\n")
			case s.Group != nil:
				f("  new compatibility group %s=%s: no registry check (checked against no earlier version)\n", plain(s.Group.Key), plain(s.Group.New))
			case len(s.Findings) == 0 && s.Compatible:
				f("  registry check at %s: passes\n", plain(s.Level))
			case len(s.Findings) == 0:
				f("  registry check at %s: fails\n", plain(s.Level))
			default:
				f("  registry check at %s: fails (%s)\n", plain(s.Level), count(len(s.Findings), "finding", "findings"))
			}
		}
		for i, fd := range s.Findings {
			if i == maxFindings {
				f("  ... and %d more findings\n", len(s.Findings)-i)
				break
			}
			f("  %s:%d:%d: %s %s\n", plain(orDefault(fd.File, s.SchemaFile)), fd.Line, fd.Column, plain(fd.Rule), plain(fd.Message))
		}
		for _, e := range s.State {
			verdict := "cannot be restored"
			if e.Migratable {
				verdict = "migrates on restore"
			}
			f("  state: job %s (%s, %s state): %s %s, %s: %s\n", plain(e.Consumer), plain(e.Owner), plain(e.Serializer), plain(e.Field), e.Change, verdict, plain(e.Why))
		}
		for _, p := range s.Policy {
			f("  policy: %s:%d:%d: %s at %s, %s by the %s removal policy: %s\n", plain(orDefault(p.File, s.SchemaFile)), p.Line, p.Column, plain(p.Rule), plain(p.Path), p.Class, plain(p.Policy), plain(p.Message))
		}
		for _, d := range s.DataRules {
			f("  data rule: %s:%d:%d: %s\n", plain(d.File), d.Line, d.Column, plain(d.Message))
		}
		if g := s.Group; g != nil {
			f("  major version: %s %s -> %s; readers:%s\n", plain(g.Key), plain(orNone(g.Old)), plain(g.New), plain(groupReaders(g)))
			for _, m := range g.Migration {
				f("  migration: %s:%d:%d: %s %s\n", plain(m.File), m.Line, m.Column, plain(m.Rule), plain(m.Message))
			}
		}
		for i, c := range s.Changes {
			if i == maxChanges {
				f("  ... and %d more field changes\n", len(s.Changes)-i)
				break
			}
			from, to := changePath(c)
			what := to
			if to == impact.WholeSubject {
				what = "the whole subject"
			}
			if from != "" {
				what = from + " -> " + to
			}
			f("  %s:%d:%d: %s %s", plain(c.File), c.Line, c.Column, c.Kind, plain(what))
			if w := changeWords(c); w != "" && from == "" {
				f(" (%s)", plain(w))
			}
			f(": %s\n", effectWord(c.Effect))
		}
		direct, indirect := split(s.Affected)
		textConsumers(&b, "direct", direct)
		textConsumers(&b, "indirect", indirect)
		for _, c := range s.DataContract {
			f("  data contract: %s\n", plain(c.Message))
		}
		for _, g := range s.Governance {
			f("  governance: %s\n", plain(g))
		}
		for _, w := range s.Warnings {
			f("  warning: %s\n", plain(w))
		}
		for _, n := range s.Notes {
			f("  note: %s\n", plain(n))
		}
	}
	if len(r.Process) > 0 {
		f("\nchanges to the rules (they take effect once merged; this change is judged by the base's):\n")
		for _, pc := range r.Process {
			f("  %s (%s): %s\n", plain(pc.File), plain(pc.Team), plain(pc.Message))
		}
	}
	if len(r.SignOffs) > 0 {
		f("\nsign-offs:\n")
	}
	for _, so := range r.SignOffs {
		mark := "[ ]"
		if so.Status == Approved {
			mark = "[x]"
		}
		f("  %s %s", mark, plain(so.Team))
		if len(so.Handles) > 0 {
			f(" (%s)", plain(strings.Join(so.Handles, ", ")))
		}
		f(": ")
		switch so.Status {
		case Approved:
			f("approved by @%s\n", plain(so.ApprovedBy))
		case Overdue:
			f("overdue by %s (was due %s)\n", span(r.Now.Sub(so.Deadline)), stamp(so.Deadline))
		default:
			f("pending, due %s (%s)\n", stamp(so.Deadline), relative(so.Deadline, r.Now))
		}
		for _, ref := range so.For {
			switch {
			case ref.Consumer == "" && ref.Subject == "":
				f("      %s", plain(ref.File))
			case ref.Consumer == "":
				f("      %s of %s", plain(ref.File), plain(ref.Subject))
			default:
				f("      %s on %s", plain(ref.Consumer), plain(ref.Subject))
			}
			if fs := nonEmpty(ref.Fields); len(fs) > 0 {
				f(" (%s)", plain(some(fs)))
			}
			f(": %s\n", plain(ref.Reason))
		}
		if so.Dropped != "" {
			f("      earlier approval dropped: %s\n", plain(so.Dropped))
		}
	}
	if len(r.Calendar) > 0 {
		f("\ncalendar:\n")
	}
	for _, c := range r.Calendar {
		switch {
		case !c.Required:
		case c.Entry != "":
			f("  %s: planned in %s\n", plain(c.Subject), plain(c.Entry))
			for _, conflict := range c.Conflicts {
				f("      conflict: %s\n", plain(conflict))
			}
		default:
			f("  %s: no usable calendar entry\n", plain(c.Subject))
			for _, p := range c.Problems {
				f("      %s\n", plain(p))
			}
			if c.Suggestion != "" {
				f("      suggested entry, %s:\n", plain(c.SuggestionFile))
				for _, line := range strings.Split(strings.TrimRight(c.Suggestion, "\n"), "\n") {
					f("        %s\n", plain(line))
				}
			}
		}
		switch {
		case c.StateMigration && c.StateEntry != "":
			f("  %s: state migration planned in %s\n", plain(c.Subject), plain(c.StateEntry))
		case c.StateMigration:
			f("  %s: no state-migration entry; jobs keep changed fields in state\n", plain(c.Subject))
		}
		if c.Freeze != "" {
			f("  %s: freeze %s in force until %s\n", plain(c.Subject), plain(c.Freeze), stamp(c.FrozenUntil))
		}
	}
	if len(r.Lint) > 0 {
		f("\ncontract file errors:\n")
	}
	for i, d := range r.Lint {
		if i == maxLint {
			f("  ... and %d more (contractbot lint shows all)\n", len(r.Lint)-i)
			break
		}
		f("  %s:%d:%d: %s %s\n", plain(d.File), d.Line, d.Column, d.Code, plain(d.Message))
	}
	if len(r.Blockers) > 0 {
		f("\nblockers:\n")
	}
	for _, bl := range r.Blockers {
		f("  - %s\n", plain(bl))
	}
	return b.String()
}

func textConsumers(b *strings.Builder, label string, as []impact.Affected) {
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(b, "  %s consumers:\n", label)
	for i, a := range as {
		if i == maxConsumers {
			fmt.Fprintf(b, "    ... and %d more\n", len(as)-i)
			break
		}
		fmt.Fprintf(b, "    %s", plain(a.Name))
		if !a.Direct {
			fmt.Fprintf(b, " on %s", plain(a.Subject))
		}
		fmt.Fprintf(b, " (%s, %s)", plain(a.Owner), plain(a.Kind))
		if !a.Direct {
			fmt.Fprintf(b, ", %s", count(a.Hops, "hop", "hops"))
		}
		fields := readWords(a, func(s string) string { return s })
		fmt.Fprintf(b, ": %s: %s\n", effectWord(a.Effect), plain(strings.Join(fields, ", ")))
		cs := chains(a)
		for j, c := range cs {
			if j == maxChains {
				fmt.Fprintf(b, "        ... and %d more chains\n", len(cs)-j)
				break
			}
			fmt.Fprintf(b, "        %s\n", plain(c))
		}
	}
}
