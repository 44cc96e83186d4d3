package verdict

import (
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/impact"
)

// Annotation levels, as GitHub's check runs name them.
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is one remark on a line of a file in the form a check run carries it
// (GitHub's fields and levels). It is pure data made from a located.Message in one
// place (annotation); the bot copies it into the API's type.
type Annotation struct {
	Path        string `json:"path"`
	StartLine   int    `json:"start_line"`
	EndLine     int    `json:"end_line"`
	StartColumn int    `json:"start_column,omitempty"`
	EndColumn   int    `json:"end_column,omitempty"`
	// Level is LevelFailure, LevelWarning or LevelNotice.
	Level   string `json:"annotation_level"`
	Title   string `json:"title"`
	Message string `json:"message"`
}

// annotation is the one conversion of a located message into a check run's
// annotation: an error is a failure, the span is one place (start and end alike).
func annotation(m located.Message) Annotation {
	a := Annotation{Path: m.File, StartLine: m.Line, EndLine: m.Line, Level: LevelNotice, Title: m.Title, Message: m.Message}
	if m.Column > 0 {
		a.StartColumn, a.EndColumn = m.Column, m.Column
	}
	switch m.Severity {
	case located.Error:
		a.Level = LevelFailure
	case located.Warning:
		a.Level = LevelWarning
	}
	return a
}

// Annotations lists the report's remarks on exact lines as a check run's annotations,
// in the order of Messages.
func Annotations(r *Report) []Annotation {
	ms := Messages(r)
	out := make([]Annotation, len(ms))
	for i, m := range ms {
		out[i] = annotation(m)
	}
	return out
}

// Messages lists the report's remarks on exact lines, sorted by file, line and column
// (located.Sort): registry findings, contract file errors and field changes that break
// a consumer are errors; changes of meaning, and breaking changes nobody reads, are
// warnings; other field changes are notices. Changes to a deleted subject have no line
// left to point at and are left to the summary. A message without a line points at
// line 1.
func Messages(r *Report) []located.Message {
	var out []located.Message
	add := func(m located.Message) {
		m.Line = max(m.Line, 1)
		out = append(out, m)
	}
	at := func(file string, line, column int) located.Span {
		return located.Span{File: file, Line: line, Column: column}
	}
	for _, s := range r.Subjects {
		touched := touchedIndex(s.Affected)
		for _, f := range s.Findings {
			m := f.Located()
			m.File = orDefault(m.File, s.SchemaFile)
			add(m)
		}
		for _, d := range s.DataRules {
			add(located.Message{Span: at(d.File, d.Line, d.Column), Severity: located.Error, Title: "data rule " + d.Rule, Message: d.Message})
		}
		for _, w := range s.Warnings {
			add(located.Message{Span: at(s.SchemaFile, 1, 0), Severity: located.Warning, Title: "warning: " + s.Subject, Message: w})
		}
		if s.Group != nil {
			for _, g := range s.Group.Migration {
				add(located.Message{Span: at(g.File, g.Line, g.Column), Severity: located.Error, Title: g.Rule + " " + g.Direction, Message: g.Message})
			}
		}
		for _, p := range s.Policy {
			sev := located.Error
			if p.Class != Breaking {
				sev = located.Warning
			}
			add(located.Message{Span: at(orDefault(p.File, s.SchemaFile), p.Line, p.Column), Severity: sev,
				Title: p.Rule + " at " + p.Path, Message: p.Message})
		}
		for _, c := range s.Changes {
			if c.File == "" {
				continue
			}
			sev := located.Notice
			switch c.Effect {
			case checker.Breaks:
				sev = located.Warning
				if touched[changeKeyOf(c)] != nil {
					sev = located.Error
				}
			case checker.ChangesMeaning:
				sev = located.Warning
			}
			from, to := changePath(c)
			title := fmt.Sprintf("%s %s", strings.ReplaceAll(string(c.Kind), "_", " "), to)
			if from != "" {
				title = fmt.Sprintf("%s %s -> %s", c.Kind, from, to)
			}
			add(located.Message{Span: at(c.File, c.Line, c.Column), Severity: sev,
				Title: title + ": " + effectWord(c.Effect), Message: c.Message + touched[changeKeyOf(c)].sentence()})
		}
	}
	for _, d := range r.Lint {
		m := d.Located()
		m.Severity = located.Error // the report's lint holds the errors only
		add(m)
	}
	located.Sort(out)
	return out
}

// changeKey identifies a change among a subject's changes, as impact hits name it.
type changeKey struct {
	kind          checker.ChangeKind
	path, oldPath string
}

func changeKeyOf(c checker.Change) changeKey { return changeKey{c.Kind, c.Path, c.OldPath} }

// touched names the consumers one change reaches, direct ones first.
type touched struct{ direct, indirect []string }

// touchedIndex maps each change to the consumers it reaches, in one pass over the
// hits (looking them up per change would cost changes x hits).
func touchedIndex(as []impact.Affected) map[changeKey]*touched {
	out := map[changeKey]*touched{}
	for _, a := range as {
		seen := map[changeKey]bool{}
		for _, h := range a.Hits {
			k := changeKeyOf(h.Change)
			if seen[k] {
				continue
			}
			seen[k] = true
			t := out[k]
			if t == nil {
				t = &touched{}
				out[k] = t
			}
			name := a.Name + " (" + a.Owner + ")"
			if a.Direct {
				t.direct = append(t.direct, name)
			} else {
				t.indirect = append(t.indirect, name)
			}
		}
	}
	return out
}

// sentence names who a change reaches: " Read by a (t), b (u); indirectly by c (v)."
func (t *touched) sentence() string {
	if t == nil {
		return ""
	}
	var parts []string
	if len(t.direct) > 0 {
		parts = append(parts, "read by "+strings.Join(t.direct, ", "))
	}
	if len(t.indirect) > 0 {
		parts = append(parts, "indirectly by "+strings.Join(t.indirect, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ")
	return " " + strings.ToUpper(s[:1]) + s[1:] + "."
}

// GitHubActions renders the report as GitHub Actions workflow commands: one
// `::error`, `::warning` or `::notice` line per annotation, at most
// MaxActionsAnnotations of them (failures kept first), then a summary line without a
// file (an error when the change is not ready to merge) that counts the annotations
// left out. Data is escaped as GitHub's workflow command rules require, so a message
// cannot end the command or start another.
func GitHubActions(r *Report) string {
	var b strings.Builder
	kept, left := keepWorst(Messages(r), MaxActionsAnnotations)
	for _, m := range kept {
		// A workflow command is named as the severity is (error, warning, notice).
		fmt.Fprintf(&b, "::%s file=%s,line=%d,endLine=%d", m.Severity, escapeProperty(m.File), m.Line, m.Line)
		if m.Column > 0 {
			fmt.Fprintf(&b, ",col=%d,endColumn=%d", m.Column, m.Column)
		}
		fmt.Fprintf(&b, ",title=%s::%s\n", escapeProperty(m.Title), escapeData(m.Message))
	}
	title := "contractbot: " + string(r.Class)
	more := func(msg string) string {
		if left.total() == 0 {
			return msg
		}
		return strings.TrimSuffix(msg, ".") + ". " + left.sentence(len(kept))
	}
	switch {
	case len(r.Blockers) == 0:
		fmt.Fprintf(&b, "::notice title=%s::%s\n", escapeProperty(title), escapeData(more("Ready to merge.")))
	case r.Override != nil:
		fmt.Fprintf(&b, "::notice title=%s::%s\n", escapeProperty(title), escapeData(more("Ready to merge by override: "+strings.Join(r.Blockers, "; "))))
	default:
		fmt.Fprintf(&b, "::error title=%s::%s\n", escapeProperty(title), escapeData(more("Not ready to merge: "+strings.Join(r.Blockers, "; "))))
	}
	return b.String()
}

// dataEscaper escapes a workflow command's message: %, CR and LF.
var dataEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

func escapeData(s string) string { return dataEscaper.Replace(s) }

// escapeProperty escapes a workflow command's property value: as data, plus : and ,.
var propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

// ActionsCommand formats one GitHub Actions workflow command line ("::error
// file=...,line=...::message"), escaping each property value and the message so that
// a file name or text carrying ":", ",", "%" or a line break cannot end the command
// early. props are key, value pairs in the order they are printed.
func ActionsCommand(command, message string, props ...string) string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(command)
	for i := 0; i+1 < len(props); i += 2 {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(props[i])
		b.WriteByte('=')
		b.WriteString(escapeProperty(props[i+1]))
	}
	b.WriteString("::")
	b.WriteString(escapeData(message))
	b.WriteByte('\n')
	return b.String()
}
