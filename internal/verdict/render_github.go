package verdict

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/impact"
)

// Annotation levels, as GitHub's check runs name them.
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is one remark on a line of a file, as a check run carries it. It is pure
// data: the bot turns it into the API's type.
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

// Annotations lists the report's remarks on exact lines, sorted by path, line and
// column: registry findings, contract file errors and field changes that break a
// consumer are failures; changes of meaning, and breaking changes nobody reads, are
// warnings; other field changes are notices. Changes to a deleted subject have no line left to point at and are left to
// the summary.
func Annotations(r *Report) []Annotation {
	var out []Annotation
	add := func(a Annotation) {
		a.StartLine = max(a.StartLine, 1)
		a.EndLine = a.StartLine
		if a.StartColumn > 0 {
			a.EndColumn = a.StartColumn
		}
		out = append(out, a)
	}
	for _, s := range r.Subjects {
		touched := touchedIndex(s.Affected)
		for _, f := range s.Findings {
			title := f.Rule
			if f.Path != "" {
				title += " at " + f.Path
			}
			add(Annotation{Path: orDefault(f.File, s.SchemaFile), StartLine: f.Line, StartColumn: f.Column, Level: LevelFailure,
				Title: title, Message: f.Message})
		}
		for _, d := range s.DataRules {
			add(Annotation{Path: d.File, StartLine: d.Line, StartColumn: d.Column, Level: LevelFailure, Title: "data rule " + d.Rule, Message: d.Message})
		}
		for _, w := range s.Warnings {
			add(Annotation{Path: s.SchemaFile, StartLine: 1, Level: LevelWarning, Title: "warning: " + s.Subject, Message: w})
		}
		if s.Group != nil {
			for _, g := range s.Group.Migration {
				add(Annotation{Path: g.File, StartLine: g.Line, StartColumn: g.Column, Level: LevelFailure, Title: g.Rule + " " + g.Direction, Message: g.Message})
			}
		}
		for _, p := range s.Policy {
			level := LevelFailure
			if p.Class != Breaking {
				level = LevelWarning
			}
			add(Annotation{Path: orDefault(p.File, s.SchemaFile), StartLine: p.Line, StartColumn: p.Column, Level: level,
				Title: p.Rule + " at " + p.Path, Message: p.Message})
		}
		for _, c := range s.Changes {
			if c.File == "" {
				continue
			}
			level := LevelNotice
			switch c.Effect {
			case checker.Breaks:
				level = LevelWarning
				if touched[changeKeyOf(c)] != nil {
					level = LevelFailure
				}
			case checker.ChangesMeaning:
				level = LevelWarning
			}
			from, to := changePath(c)
			title := fmt.Sprintf("%s %s", strings.ReplaceAll(string(c.Kind), "_", " "), to)
			if from != "" {
				title = fmt.Sprintf("%s %s -> %s", c.Kind, from, to)
			}
			add(Annotation{Path: c.File, StartLine: c.Line, StartColumn: c.Column, Level: level,
				Title: title + ": " + effectWord(c.Effect), Message: c.Message + touched[changeKeyOf(c)].sentence()})
		}
	}
	for _, d := range r.Lint {
		add(Annotation{Path: d.File, StartLine: d.Line, StartColumn: d.Column, Level: LevelFailure, Title: d.Code, Message: d.Message})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		if a.StartColumn != b.StartColumn {
			return a.StartColumn < b.StartColumn
		}
		if a.Level != b.Level {
			return levelRank(a.Level) > levelRank(b.Level)
		}
		if a.Title != b.Title {
			return a.Title < b.Title
		}
		return a.Message < b.Message
	})
	return out
}

func levelRank(l string) int {
	switch l {
	case LevelFailure:
		return 2
	case LevelWarning:
		return 1
	}
	return 0
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
	kept, left := keepWorst(Annotations(r), MaxActionsAnnotations)
	for _, a := range kept {
		cmd := "notice"
		switch a.Level {
		case LevelFailure:
			cmd = "error"
		case LevelWarning:
			cmd = "warning"
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,endLine=%d", cmd, escapeProperty(a.Path), a.StartLine, a.EndLine)
		if a.StartColumn > 0 {
			fmt.Fprintf(&b, ",col=%d,endColumn=%d", a.StartColumn, a.EndColumn)
		}
		fmt.Fprintf(&b, ",title=%s::%s\n", escapeProperty(a.Title), escapeData(a.Message))
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
