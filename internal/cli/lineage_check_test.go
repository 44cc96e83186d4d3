package cli

import (
	"testing"
)

// The example tree's own jobs pass their deploy gate: no error (the sinks' nullable
// columns over required fields are warnings), and their consumer files match.
func TestLineageCheckExampleJobs(t *testing.T) {
	for _, job := range []string{"dwd-order-detail", "dws-gmv-1min"} {
		out, errOut, code := runCLI(t, "lineage", "check", "--repo", "../..", "../../jobs/flink/"+job+".sql")
		if code != 0 {
			t.Errorf("%s: exit %d, want 0\n%s%s", job, code, out, errOut)
		}
		checkLineageGolden(t, "check/"+job+".txt", out)
	}
}

// A job whose DDL drifted: every disagreement is located at its line and column and
// says what to write; exit 1. The same findings as GitHub annotations and JSON.
func TestLineageCheckDriftedJob(t *testing.T) {
	for _, format := range []string{"text", "github", "json"} {
		out, errOut, code := runCLI(t, "lineage", "check", "--repo", "../..", "--format", format, "testdata/lineage/check/drifted-job.sql")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s%s", format, code, out, errOut)
		}
		checkLineageGolden(t, "check/drifted-job."+format, out)
	}
}

func TestLineageCheckBadInput(t *testing.T) {
	if _, _, code := runCLI(t, "lineage", "check", "--repo", "../..", "--format", "xml", "testdata/lineage/check/drifted-job.sql"); code != 2 {
		t.Errorf("--format xml: exit %d, want 2", code)
	}
	if _, _, code := runCLI(t, "lineage", "check", "--repo", "../..", "testdata/lineage/check/missing.sql"); code != 2 {
		t.Errorf("a missing file: exit %d, want 2", code)
	}
}
