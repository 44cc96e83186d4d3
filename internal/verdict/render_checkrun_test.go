package verdict

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
)

// manyAnnotations is a report with n lint errors and n field changes nobody reads
// (warnings): 2n annotations.
func manyAnnotations(n int) *Report {
	s := &SubjectReport{Subject: "s", Kind: Modified, SchemaFile: "contracts/o/s/s.proto", Class: Breaking, Level: "BACKWARD"}
	r := &Report{Class: Breaking, Now: now, Subjects: []*SubjectReport{s}, Blockers: []string{"fix the contract files"}}
	for i := range n {
		r.Lint = append(r.Lint, contract.Diagnostic{Span: located.Span{File: "contracts/o/s/consumers/c.yaml", Line: i + 1, Column: 1}, Severity: contract.Error, Code: "unknown-field", Message: "m"})
		s.Changes = append(s.Changes, checker.Change{Kind: checker.TypeChanged, Path: fmt.Sprintf("f%d", i), Old: "int32", New: "string",
			Effect: checker.Breaks, File: "contracts/o/s/s.proto", Line: i + 1, Column: 3, Message: "changed type"})
	}
	return r
}

func TestBatches(t *testing.T) {
	anns := make([]Annotation, 101)
	for i := range anns {
		anns[i].StartLine = i
	}
	got := Batches(anns, 50)
	equal(t, "batches", len(got), 3)
	equal(t, "sizes", []int{len(got[0]), len(got[1]), len(got[2])}, []int{50, 50, 1})
	equal(t, "first of the last", got[2][0].StartLine, 100)
	if got := Batches(nil, 50); len(got) != 0 {
		t.Errorf("Batches(nil) = %d batches, want none", len(got))
	}
	// A batch cannot grow into the next one's annotations.
	b := Batches(anns, 50)
	_ = append(b[0], Annotation{StartLine: -1})
	equal(t, "next batch untouched", b[1][0].StartLine, 50)
}

func TestCheckRunOutputKeepsFailuresWithinBudget(t *testing.T) {
	r := manyAnnotations(400) // 400 failures (lint) and 400 warnings
	out := CheckRunOutput(r)
	total, failures := 0, 0
	for _, b := range out.Batches {
		if len(b) > AnnotationsPerRequest {
			t.Errorf("a batch of %d annotations, over GitHub's %d", len(b), AnnotationsPerRequest)
		}
		total += len(b)
		for _, a := range b {
			if a.Level == LevelFailure {
				failures++
			}
		}
	}
	equal(t, "annotations sent", total, MaxCheckRunAnnotations)
	equal(t, "failures kept", failures, 400)
	equal(t, "omitted", out.Omitted, 300)
	if !strings.Contains(out.Summary, "300 more annotations (300 warnings) are not shown here") {
		t.Errorf("the summary does not count what was left out:\n%s", tail(out.Summary))
	}
	golden(t, "checkrun-over-budget.tail.txt", []byte(tail(out.Summary)))

	small := CheckRunOutput(manyAnnotations(3))
	equal(t, "omitted of a small report", small.Omitted, 0)
	equal(t, "batches of a small report", len(small.Batches), 1)
	equal(t, "summary of a small report", small.Summary, "```text\n"+Text(manyAnnotations(3))+"```\n")
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-2):], "\n") + "\n"
}

func TestGitHubActionsPrintsAtMostTheBudget(t *testing.T) {
	r := manyAnnotations(1500) // 3,000 annotations
	out := GitHubActions(r)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	equal(t, "lines", len(lines), 1000) // the summary included (issue 13)
	equal(t, "lines", len(lines), MaxActionsLines)
	errs := 0
	for _, l := range lines[:MaxActionsAnnotations] {
		if !strings.Contains(l, "file=") {
			t.Fatalf("an annotation line without a file: %q", l)
		}
		if strings.HasPrefix(l, "::error ") {
			errs++
		}
	}
	equal(t, "error lines (failures first)", errs, MaxActionsAnnotations)
	golden(t, "github-over-budget.tail.txt", []byte(lines[len(lines)-1]+"\n"))
}

func TestCutText(t *testing.T) {
	// A line of 3-byte characters crossing the limit: the cut falls on a line break.
	s := strings.Repeat("a", 70) + "\n" + strings.Repeat("€", 20) + "\n"
	got := cutText(s, 80)
	if !utf8.ValidString(got) || !strings.HasPrefix(got, strings.Repeat("a", 70)+"\n… (the report is cut here") {
		t.Errorf("cut at a line break: %q", got)
	}
	// No line break in the last half: the cut falls between characters.
	s = strings.Repeat("€", 40)
	got = cutText(s, 80) // byte 80 is inside the 27th euro sign
	if !utf8.ValidString(got) || !strings.HasPrefix(got, strings.Repeat("€", 26)+"\n…") {
		t.Errorf("cut inside a character: %q", got)
	}
	equal(t, "short text", cutText("short\n", 80), "short\n")
	// The whole of a cut summary stays under GitHub's 65,535 characters.
	big := strings.Repeat("x€\n", 40000)
	if n := len(cutText(big, MaxSummaryBytes)); n > 65535 || n < MaxSummaryBytes/2 {
		t.Errorf("a cut summary of %d bytes", n)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -1000: "-1,000"} {
		equal(t, fmt.Sprint(n), thousands(n), want)
	}
}

// TestCheckRunHostile: GitHub renders a check run's summary as Markdown. Whatever a
// field, file or team name carries (a forged "SAFE: ready to merge" heading, an
// image, a link, a <details> that would hide the blockers, a run of backticks that
// would close a fence), the summary is one code block: nothing in it is rendered.
func TestCheckRunHostile(t *testing.T) {
	r := hostileReport()
	r.Subjects[0].Notes = append(r.Subjects[0].Notes,
		"x\n## SAFE: ready to merge\n![ok](https://example.com/green.png) [docs](https://example.com)\n<details><summary>more</summary>",
		"```````` closes nothing\n# SAFE")
	out := CheckRunOutput(r)
	golden(t, "checkrun-hostile.md", []byte(out.Summary))
	lines := strings.Split(strings.TrimSuffix(out.Summary, "\n"), "\n")
	fence := lines[0][:strings.LastIndexByte(lines[0], '`')+1]
	if len(fence) < 9 || lines[len(lines)-1] != fence {
		t.Fatalf("the summary is not one fenced block longer than the 8 backticks it holds: opens %q, ends %q", lines[0], lines[len(lines)-1])
	}
	for _, l := range lines[1 : len(lines)-1] {
		if strings.HasPrefix(strings.TrimLeft(l, " "), fence) {
			t.Errorf("a line inside closes the fence: %q", l)
		}
	}
	if !strings.HasPrefix(lines[1], "BREAKING: not ready to merge") {
		t.Errorf("the verdict is not the first line of the block: %q", lines[1])
	}
}
