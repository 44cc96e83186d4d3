// Package located is the one shape of a message that points at a place in a file of
// the contract repository, as buf's FileAnnotation is for buf: where it points (Span),
// how bad it is (Severity), a short title (a rule id or a code, with what it is about)
// and a sentence a person can act on.
//
// The records that find something keep the data of their own kind and their own JSON
// form (a compatibility finding its schema path and the version it fails against, a
// contract diagnostic its code, a SQL finding its table), and share the Span:
// checker.Finding, checker.InputError, contract.Diagnostic, flinksql.Error and
// lineage.Finding embed it. A finding and a diagnostic turn themselves into a Message with one method
// (Located), and what lists messages of several kinds (the verdict's check-run
// annotations and GitHub Actions commands) works on Messages only. A Span's File is a
// path in the repository: the names engines report (a Protobuf import path, relative
// to contracts/) are mapped to it in one place, contract.RepoPath, where the loader
// and the verdict receive an engine's output.
package located

import (
	"cmp"
	"slices"
)

// Span is where a message points: a file of the repository (slash-separated, from its
// root) and a 1-based line and column; 0 where the line or column is not known. File
// is empty only for a finding an engine could not place in a file. Span has no
// methods: the records that embed it keep their own String and JSON forms.
type Span struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// Compare orders spans by file, line and column: -1, 0 or +1.
func Compare(a, b Span) int {
	if c := cmp.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	return cmp.Compare(a.Column, b.Column)
}

// Severity says what a message means for the change or the file it is about.
type Severity string

// The severities: an error fails (lint, the check), a warning is shown, a notice says
// what changed.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Notice  Severity = "notice"
)

// Rank orders severities from notice (0) to error (2).
func (s Severity) Rank() int {
	switch s {
	case Error:
		return 2
	case Warning:
		return 1
	}
	return 0
}

// Message is one located message. Renderers that print messages of several kinds
// (GitHub's check run annotations, GitHub Actions workflow commands) take Messages;
// the edge that speaks GitHub's API converts them once, there.
type Message struct {
	Span
	Severity Severity
	// Title is the rule id or code, with what the message is about where that helps
	// ("TYPE_MISMATCH at amount").
	Title string
	// Message is a sentence a person can act on.
	Message string
}

// Sort orders messages by place, then the worst first, then by title and message, so
// that output built from them is deterministic.
func Sort(ms []Message) {
	slices.SortStableFunc(ms, func(a, b Message) int {
		if c := Compare(a.Span, b.Span); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Severity.Rank(), a.Severity.Rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Title, b.Title); c != 0 {
			return c
		}
		return cmp.Compare(a.Message, b.Message)
	})
}
