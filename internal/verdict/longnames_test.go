package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/impact"
	"github.com/contractbot/contractbot/internal/inert"
)

// TestLongNamesDropNoSection: three fields with 70,000-character names (and a
// finding quoting one) are shown shortened with an ellipsis, and every section after
// "Field changes" is still in the comment: the consumers, the sign-offs and what to
// do next.
func TestLongNamesDropNoSection(t *testing.T) {
	var changes []checker.Change
	var names []string
	for _, c := range "abc" {
		name := strings.Repeat(string(c), 70_000)
		names = append(names, name)
		changes = append(changes, checker.Change{Kind: checker.FieldRemoved, Path: name, Effect: checker.Breaks})
	}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	r := &Report{Class: Breaking, Now: now, Subjects: []*SubjectReport{{
		Subject: "orders.order-created-value", Kind: Modified, Format: "avro", Class: Breaking, Level: "BACKWARD",
		Findings: []checker.Finding{{Rule: "READER_FIELD_MISSING_DEFAULT_VALUE", Message: `field "` + names[0] + `" was removed`, Span: located.Span{File: "a.avsc", Line: 1, Column: 1}}},
		Changes:  changes,
		Affected: []impact.Affected{{Name: "dwd-order-detail", Owner: "data-warehouse", Direct: true, Effect: checker.Breaks,
			Hits: []impact.Hit{{Read: names[0], Reads: names, Field: names[0], Change: changes[0], Effect: checker.Breaks}}}},
	}}, SignOffs: []*SignOff{{Team: "data-warehouse", Deadline: now.Add(48 * time.Hour), Status: Pending}},
		Blockers: []string{"the sign-off of data-warehouse"}}
	md := Markdown(r, MarkdownOptions{})
	for _, want := range []string{"**Field changes**", "**Direct consumers**", "### Sign-offs", "### What to do next"} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lost %q (%d bytes)", want, len(md))
		}
	}
	if strings.Contains(md, strings.Repeat("a", inert.MaxText)) || !strings.Contains(md, strings.Repeat("b", inert.MaxName-1)+"…") {
		t.Errorf("a 70,000-character name is not shortened with an ellipsis")
	}
}
