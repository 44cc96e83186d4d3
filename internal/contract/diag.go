package contract

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/inert"
)

// Severity of a diagnostic: Error or Warning.
type Severity = located.Severity

// Severities: an error fails lint, a warning is shown only.
const (
	Error   = located.Error
	Warning = located.Warning
)

// Diagnostic is one problem in a file of the tree: where (a Span, whose File is never
// empty), which kind (Code) and a sentence that says what is wrong and what to write
// instead.
type Diagnostic struct {
	located.Span
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	// Field is the field of its subject that an unknown-field error of a consumer
	// file names (a read, a lineage input, a state field); empty otherwise.
	Field string `json:"field,omitempty"`
}

// String formats the diagnostic as `file:line:col: message [code]` on one line: the
// file and the message, which may quote names from the files, are inert on a terminal
// and in a CI log (inert.Terminal: no control character, no new line, no workflow
// command).
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", inert.Terminal(d.File), d.Line, d.Column, d.Severity, inert.Terminal(d.Message), d.Code)
}

// Located is the diagnostic as a located message, titled with its code.
func (d Diagnostic) Located() located.Message {
	return located.Message{Span: d.Span, Severity: d.Severity, Title: d.Code, Message: d.Message}
}

// Diagnostics is a list of problems.
type Diagnostics []Diagnostic

// Sort orders by file, line, column, code and message, so output is deterministic.
func (ds Diagnostics) Sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		if c := located.Compare(a.Span, b.Span); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return cmp.Compare(a.Message, b.Message)
	})
}

// Errors counts the diagnostics of severity error.
func (ds Diagnostics) Errors() int {
	n := 0
	for _, d := range ds {
		if d.Severity == Error {
			n++
		}
	}
	return n
}

// ForFile returns the diagnostics of one file.
func (ds Diagnostics) ForFile(file string) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.File == file {
			out = append(out, d)
		}
	}
	return out
}

// The diagnostic codes. Each is one kind of mistake; docs/contract-format.md lists them.
const (
	CodeYAMLSyntax       = "yaml-syntax"
	CodeInternal         = "internal-error" // contractbot failed on the files (a bug): the folder is skipped, the process goes on
	CodeUnknownKey       = "unknown-key"
	CodeMissingKey       = "missing-key"
	CodeWrongType        = "wrong-type"
	CodeInvalidValue     = "invalid-value"
	CodeDuplicateSubject = "duplicate-subject"
	CodeSchemaMissing    = "schema-missing"
	CodeSchemaInvalid    = "schema-invalid"
	CodeSchemaExtension  = "schema-extension"
	CodeUnknownTeam      = "unknown-team"
	CodeUnknownField     = "unknown-field"
	CodeUnknownSubject   = "unknown-subject"
	CodeUnknownOutput    = "unknown-output-field"
	CodePathEscape       = "path-escape"
	CodeSymlink          = "symlink"
	CodeTooLarge         = "file-too-large"
	CodeNameMismatch     = "name-mismatch"
	CodeBadTime          = "invalid-time"
	CodeWindowOrder      = "window-order"
	CodeLayout           = "layout"
	CodeFormatOption     = "format-option"
	CodeDuplicateName    = "duplicate-name"
	CodeFileName         = "file-name"
	CodeAlias            = "yaml-alias"
	CodeLineageCycle     = "lineage-cycle"
	CodeMissingFile      = "missing-file"
	CodeFieldPathsCut    = "field-paths-cut"
	CodeReadsDeprecated  = "reads-deprecated"
	CodeMissingKeys      = "missing-keys"
	CodeMissingDoc       = "missing-doc"
	// CodeCodeownersStale: CODEOWNERS is not what `contractbot codeowners` writes for
	// the tree (reported by check, as `codeowners --check` fails).
	CodeCodeownersStale = "codeowners-stale"
)

// didYouMean returns ` Did you mean "x"?` for the closest candidate within a small
// edit distance, or "".
func didYouMean(got string, candidates []string) string {
	best, ok := Closest(got, candidates)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}

// Closest returns the candidate nearest to got within a small edit distance (letter
// case ignored; ties to the first in sort order), the name a "did you mean" proposes;
// false when none is near enough.
func Closest(got string, candidates []string) (string, bool) {
	best, bestD := "", -1
	limit := len(got)/3 + 1
	if limit > 3 {
		limit = 3
	}
	n := utf8.RuneCountInString(got)
	for _, c := range candidates {
		if m := utf8.RuneCountInString(c); m > n+limit || m < n-limit {
			continue // the distance is at least the difference in length
		}
		d := editDistance(strings.ToLower(got), strings.ToLower(c))
		if d <= limit && (bestD < 0 || d < bestD || (d == bestD && c < best)) {
			best, bestD = c, d
		}
	}
	return best, bestD >= 0
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// oneOf lists allowed values for a message: `"a", "b" or "c"`.
func oneOf(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
