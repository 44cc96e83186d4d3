package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestPublishOnAFullDisk: publish's events file and state on a file system that
// fills up in the middle of a run. The run fails; the events file keeps whole lines
// only and the state only commits whose events are all there; once space is freed the
// next run finishes, and every line is an event, each id among the history's.
func TestPublishOnAFullDisk(t *testing.T) {
	dir, _ := exampleRepo(t)
	disk := testutil.FullFS(t, 256<<10)
	eventsFile, state := filepath.Join(disk, "events.jsonl"), filepath.Join(disk, "state.json")
	filler := testutil.Fill(t, disk, 8192)
	args := []string{"publish", "--repo", dir, "--events", "file:" + eventsFile, "--state", state}
	if out, errOut, code := runCLI(t, args...); code == 0 {
		t.Fatalf("publish on a full disk succeeded:\n%s%s", out, errOut)
	}
	readEventLines(t, eventsFile) // fails on a torn line
	if b, err := os.ReadFile(state); err == nil && !json.Valid(b) {
		t.Errorf("the state file is torn: %q", b)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, args...); code != 0 {
		t.Fatalf("publish after space was freed: exit %d\n%s%s", code, out, errOut)
	}
	ids := map[string]bool{}
	for _, e := range readEventLines(t, eventsFile) {
		ids[e.ID] = true
	}
	if len(ids) != 13 {
		t.Errorf("%d distinct events, want the 13 of the example history", len(ids))
	}
}
