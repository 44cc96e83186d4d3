package report

import (
	"strings"
	"testing"
	"time"
)

// A report with empty lists says so in sentences: no heading ends in a colon with
// nothing under it, and no jobs is "no jobs", not "0 of 0 job(s) (100%)".
func TestTextOfAnEmptyReport(t *testing.T) {
	r := &Health{At: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Lineage: Lineage{Coverage: 1},
		NotDerived: []string{"subjects with a topic but never published: the publish marks are commit statuses on GitHub, not in the repository"}}
	text := Text(r)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, ":") && (i+1 == len(lines) || !strings.HasPrefix(lines[i+1], "  ")) {
			t.Errorf("line %d ends in a colon with nothing under it: %q\n%s", i+1, l, text)
		}
	}
	for _, want := range []string{"unused subjects: none, every subject has a consumer.", "lineage: no jobs (no consumer is a flink-job, spark-job, kafka-streams or batch-job), so no lineage to cover."} {
		if !strings.Contains(text, want) {
			t.Errorf("the report does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "0 of 0") {
		t.Errorf("the report counts 0 of 0:\n%s", text)
	}
}
