package verdict

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/contractbot/contractbot/checker/located"
)

// GitHub's limits on what a check run or a workflow log carries, and ours below them.
const (
	// AnnotationsPerRequest is how many annotations GitHub accepts in one request that
	// creates or updates a check run; it appends each request's to the run's.
	AnnotationsPerRequest = 50
	// MaxCheckRunAnnotations is how many annotations one check run carries in all
	// (ten requests); the rest are counted in the run's summary.
	MaxCheckRunAnnotations = 500
	// MaxActionsLines is how many workflow command lines GitHubActions prints in all,
	// its summary line included.
	MaxActionsLines = 1000
	// MaxActionsAnnotations is how many annotation lines GitHubActions prints before
	// its summary line, which counts the rest.
	MaxActionsAnnotations = MaxActionsLines - 1
	// MaxSummaryBytes is where a check run's summary is cut (GitHub refuses a summary
	// over 65,535 characters; the note on what was cut fits in the difference).
	MaxSummaryBytes = 60000
)

// CheckRun is what the bot's check run shows of a report, within GitHub's limits.
type CheckRun struct {
	// Summary is the text report in a fenced code block (GitHub renders a check run's
	// summary as Markdown: inside the fence nothing from the tree can become a
	// heading, a link, an image, HTML or a <details> that hides the blockers), cut at
	// MaxSummaryBytes on a line boundary, followed by a sentence counting the
	// annotations left out, if any.
	Summary string
	// Batches are the annotations to send, one slice per request (the first with the
	// request that creates or updates the run): at most AnnotationsPerRequest each and
	// MaxCheckRunAnnotations in all, failures kept before warnings before notices.
	// Empty when there are none.
	Batches [][]Annotation
	// Omitted is how many annotations were left out.
	Omitted int
}

// CheckRunOutput lays out a report for a check run: the summary and the annotation
// batches, each within GitHub's limits.
func CheckRunOutput(r *Report) CheckRun {
	kept, left := keepWorst(Messages(r), MaxCheckRunAnnotations)
	out := CheckRun{Summary: fenced(cutText(Text(r), MaxSummaryBytes)), Omitted: left.total()}
	if out.Omitted > 0 {
		out.Summary += "\n" + left.sentence(len(kept)) + "\n"
	}
	anns := make([]Annotation, len(kept))
	for i, m := range kept {
		anns[i] = annotation(m)
	}
	out.Batches = Batches(anns, AnnotationsPerRequest)
	return out
}

// fenced puts text in a fenced code block that GitHub shows as it is: the fence is
// one backtick longer than the longest run of backticks in text (at least three), so
// no line of text can close it (CommonMark: a closing fence is at least as long as
// the opening one), and nothing inside is rendered.
func fenced(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + strings.TrimSuffix(text, "\n") + "\n" + fence + "\n"
}

// Batches splits annotations into consecutive slices of at most n (n > 0).
func Batches(anns []Annotation, n int) [][]Annotation {
	var out [][]Annotation
	for len(anns) > 0 {
		k := min(n, len(anns))
		out = append(out, anns[:k:k])
		anns = anns[k:]
	}
	return out
}

// omitted counts annotations left out, by level.
type omitted struct{ failures, warnings, notices int }

func (o omitted) total() int { return o.failures + o.warnings + o.notices }

// sentence says what was left out: "99,500 more annotations (99,500 warnings) are
// not shown here; ...".
func (o omitted) sentence(shown int) string {
	var parts []string
	for _, p := range []struct {
		n         int
		one, many string
	}{{o.failures, "failure", "failures"}, {o.warnings, "warning", "warnings"}, {o.notices, "notice", "notices"}} {
		if p.n > 0 {
			parts = append(parts, countWords(p.n, p.one, p.many))
		}
	}
	return fmt.Sprintf("%s more %s (%s) are not shown here; the %s shown are the worst. `contractbot check --format json` lists them all.",
		thousands(o.total()), plural(o.total(), "annotation", "annotations"), strings.Join(parts, ", "), thousands(shown))
}

// keepWorst keeps at most n messages, errors before warnings before notices and
// otherwise in their order, and returns them in their order with a count of the rest.
func keepWorst(ms []located.Message, n int) ([]located.Message, omitted) {
	if len(ms) <= n {
		return ms, omitted{}
	}
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return ms[b].Severity.Rank() - ms[a].Severity.Rank() })
	var left omitted
	for _, i := range idx[n:] {
		switch ms[i].Severity {
		case located.Error:
			left.failures++
		case located.Warning:
			left.warnings++
		default:
			left.notices++
		}
	}
	idx = idx[:n]
	slices.Sort(idx)
	kept := make([]located.Message, n)
	for k, i := range idx {
		kept[k] = ms[i]
	}
	return kept, left
}

// cutText cuts s to at most limit bytes, on a UTF-8 boundary and, where one lies in
// the last half, after a line break, and says so; s itself when it fits.
func cutText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	total, cut := len(s), limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	head := s[:cut] + "\n"
	if i := strings.LastIndexByte(s[:cut], '\n'); i >= limit/2 {
		head = s[:i+1]
	}
	return head + fmt.Sprintf("… (the report is cut here, after %s of its %s bytes; `contractbot check` prints it whole.)\n", thousands(len(head)), thousands(total))
}

func countWords(n int, one, many string) string { return thousands(n) + " " + plural(n, one, many) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// thousands writes n with comma separators: 100,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
