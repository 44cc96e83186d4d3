package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Events shaped as OpenLineage's RunEvent (spec 2-0-2, columnLineage facet 1-2-0):
// dwd-order-detail does what its file says, dws-gmv-1min drifted, and a job without
// a consumer file reads the ODS topic.
func TestLineageVerify(t *testing.T) {
	out, errOut, code := runCLI(t, "lineage", "verify", "--repo", "../..", "--openlineage", "testdata/lineage/events.jsonl")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (drift)\n%s%s", code, out, errOut)
	}
	checkLineageGolden(t, "verify.txt", out)
	if strings.Contains(out, "dwd-order-detail.yaml") {
		t.Errorf("dwd-order-detail does what its file says, yet drifts:\n%s", out)
	}
}

func TestLineageVerifyRefusesBadEvents(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ line, want string }{
		"no run":   {`{"eventType":"COMPLETE","eventTime":"2026-11-30T10:00:00Z","producer":"x","job":{"namespace":"n","name":"j"}}`, "events.jsonl:1: the event lacks run.runId"},
		"bad type": {`{"eventType":"DONE","eventTime":"2026-11-30T10:00:00Z","producer":"x","run":{"runId":"r"},"job":{"namespace":"n","name":"j"}}`, `eventType "DONE" is not an OpenLineage event type`},
		"not json": {`{"eventType":`, "events.jsonl:1: not an OpenLineage event"},
	} {
		p := filepath.Join(dir, "events.jsonl")
		if err := os.WriteFile(p, []byte(tc.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI(t, "lineage", "verify", "--repo", "../..", "--openlineage", p)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d %q, want %q", name, code, errOut, tc.want)
		}
	}
}
