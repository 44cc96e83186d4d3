package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestReportAutomation: the automation section from the change events log (three
// merges: one on the verdict with two teams' sign-offs, published in two events;
// one on an override; one pushed straight to the branch; an approval the log gives no
// request time) and, without --events, from the Git history (the pull request its
// last commit names). Goldens.
func TestReportAutomation(t *testing.T) {
	r, _ := testutil.HealthExample(t)
	r.Edit("contracts/orders/order-cancelled/order_cancelled.avsc", "Order number.", "Order number (as the shop shows it).")
	r.Commit("Say what the order number is (#43)")

	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	signed := []events.SignOff{
		{Team: "data-warehouse", Status: "approved", ApprovedBy: "dana", At: t0.Add(3 * time.Hour), RequestedAt: t0},
		{Team: "platform", Status: "approved", ApprovedBy: "pat", At: t0.Add(26 * time.Hour), RequestedAt: t0},
	}
	evs := []events.Published{
		{Subject: "orders.order-created-value", Version: 2, MergeCommit: "a1", PullRequest: &events.PullRequest{Number: 41}, SignOffs: signed},
		{Subject: "dw.order-detail-value", Version: 2, MergeCommit: "a1", PullRequest: &events.PullRequest{Number: 41}, SignOffs: signed},
		{Subject: "dws.gmv-1min-value", Version: 3, MergeCommit: "b2", PullRequest: &events.PullRequest{Number: 42},
			SignOffs: []events.SignOff{{Team: "analytics", Status: "pending", RequestedAt: t0}, {Team: "risk", Status: "approved", At: t0.Add(time.Hour)}},
			Override: &events.Override{By: "boss", Reason: "hotfix for INC-42", At: t0.Add(2 * time.Hour)}},
		{Subject: "users.user-profile-value", Version: 2, MergeCommit: "c3"},
	}
	var log strings.Builder
	for _, p := range evs {
		data, err := json.Marshal(events.New("https://github.com/acme/contracts", t0, p))
		if err != nil {
			t.Fatal(err)
		}
		log.Write(append(data, '\n'))
	}
	file := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(file, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"automation-events.txt", []string{"--events", file}},
		{"automation-events.json", []string{"--events", file, "--format", "json"}},
		{"automation-git.txt", nil},
	} {
		out, errOut, code := runCLI(t, append([]string{"report", "--repo", r.Dir, "--now", "2026-12-01T09:00:00Z"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("report %v: exit %d\n%s%s", tc.args, code, out, errOut)
		}
		out = strings.ReplaceAll(strings.ReplaceAll(out, file, "events.jsonl"), strings.ToLower(file), "events.jsonl")
		for _, b := range reCommit.FindAllString(out, -1) {
			out = strings.ReplaceAll(out, b, "<commit>")
		}
		checkGolden(t, "../report/"+tc.golden, out)
	}
	if _, errOut, code := runCLI(t, "report", "--repo", r.Dir, "--events", filepath.Join(t.TempDir(), "none.jsonl")); code == 0 || !strings.Contains(errOut, "--events") {
		t.Errorf("a missing events log: exit %d, %s", code, errOut)
	}
}
