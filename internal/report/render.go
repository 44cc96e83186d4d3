package report

import (
	"encoding/json"
	"fmt"
	"strings"
)

// JSON renders the report as indented JSON.
func JSON(r *Health) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b) + "\n"
}

// Text renders the report for a terminal.
func Text(r *Health) string {
	return render(r, false)
}

// Markdown renders the report for a page or an issue.
func Markdown(r *Health) string {
	return render(r, true)
}

// render writes both text forms: Markdown adds headings and code spans.
func render(r *Health, md bool) string {
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	code := func(s string) string {
		if md {
			return "`" + s + "`"
		}
		return s
	}
	// head starts a section of items lines (text: a colon only when lines follow).
	head := func(title string, items int) {
		switch {
		case md:
			f("\n## %s\n\n", title)
		case items > 0:
			f("\n%s:\n", strings.ToLower(title))
		default:
			f("\n%s.\n", strings.ToLower(title))
		}
	}
	item := func(format string, args ...any) {
		if md {
			f("- "+format+"\n", args...)
		} else {
			f("  "+format+"\n", args...)
		}
	}
	commit := r.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if md {
		f("# Contract repository health\n\n")
	}
	f("%d subject(s) at commit %s, %s.\n", r.Subjects, code(orNone(commit)), r.At.UTC().Format("2006-01-02 15:04 UTC"))

	if len(r.Unused) == 0 {
		head("Unused subjects: none, every subject has a consumer", 0)
	} else {
		head(fmt.Sprintf("Unused subjects (%d): no consumer declares a read", len(r.Unused)), len(r.Unused))
	}
	for _, u := range r.Unused {
		age := "age unknown"
		if !u.Since.IsZero() {
			age = fmt.Sprintf("registered %s, %d day(s) ago", u.Since.UTC().Format("2006-01-02"), u.Days)
		}
		topic := ""
		if u.Topic != "" {
			topic = ", topic " + code(u.Topic)
		}
		item("%s (owner %s%s): %s", code(u.Subject), u.Owner, topic, age)
	}

	l := r.Lineage
	if l.Jobs == 0 {
		head("Lineage: no jobs (no consumer is a flink-job, spark-job, kafka-streams or batch-job), so no lineage to cover", 0)
	} else {
		head(fmt.Sprintf("Lineage: %d of %d job(s) declare what they produce (%.0f%%)", l.Declared, l.Jobs, 100*l.Coverage), len(l.BlackBoxes))
	}
	if len(l.BlackBoxes) > 0 {
		item("black boxes (jobs without produces:; whatever they write is invisible to impact):")
	}
	for _, c := range l.BlackBoxes {
		item("  %s on %s (team %s, %s)", code(c.Name), code(c.Subject), c.Owner, c.Kind)
	}

	head(fmt.Sprintf("Deprecated fields still read (%d)", len(r.DeprecatedReads)), len(r.DeprecatedReads))
	for _, d := range r.DeprecatedReads {
		s := fmt.Sprintf("%s (team %s) reads %s of %s", code(d.Name), d.Owner, code(d.Field), code(d.Subject))
		if !d.Since.IsZero() {
			s += ", deprecated since " + d.Since.Format("2006-01-02")
		}
		if !d.RemoveAfter.IsZero() {
			s += ", to be removed after " + d.RemoveAfter.Format("2006-01-02")
		}
		if d.Replacement != "" {
			s += "; read " + code(d.Replacement) + " instead"
		}
		item("%s", s)
	}

	head(fmt.Sprintf("History that broke its level (%d)", len(r.Broken)), len(r.Broken))
	for _, br := range r.Broken {
		against := make([]string, len(br.Against))
		for i, v := range br.Against {
			against[i] = fmt.Sprint(v)
		}
		rules := map[string]bool{}
		var rs []string
		for _, fd := range br.Findings {
			if !rules[fd.Rule] {
				rules[fd.Rule] = true
				rs = append(rs, fd.Rule)
			}
		}
		item("%s version %d (commit %s, %s): refused by %s against version %s (%s)", code(br.Subject), br.Version,
			code(short(br.Commit)), br.Time.UTC().Format("2006-01-02"), br.Level, strings.Join(against, ", "), strings.Join(rs, ", "))
	}

	if r.Automation != nil {
		title, lines := AutomationLines(r.Automation)
		head(title, len(lines))
		for _, l := range lines {
			item("%s", l)
		}
	}

	if sm := r.Sampled; sm != nil {
		head(fmt.Sprintf("Topics whose data departs from the contract (%d of %d sampled)", len(sm.Departing), sm.Topics), 1)
		item("sample: %s", sm.Source)
		for _, d := range sm.Departing {
			item("%s", departingLine(d, code))
		}
	}

	head("Not derived here", len(r.NotDerived))
	for _, n := range r.NotDerived {
		item("%s", n)
	}
	return b.String()
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
