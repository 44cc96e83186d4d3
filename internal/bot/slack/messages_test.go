package slack

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite golden files")

// messageJSON is a message as its golden file holds it: the text and the Block Kit.
func messageJSON(t *testing.T, msg Message) []byte {
	t.Helper()
	data, err := json.MarshalIndent(struct {
		Text   string `json:"text"`
		Blocks any    `json:"blocks"`
	}{msg.Text, msg.Blocks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/bot/slack -update)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (go test ./internal/bot/slack -update to accept):\n%s", p, got)
	}
}

// TestSlackMessagesGolden pins the Block Kit of a reminder and an escalation, with a
// consumer name that tries to inject a Slack link.
func TestSlackMessagesGolden(t *testing.T) {
	deadline := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	so := &verdict.SignOff{Team: "analytics", Deadline: deadline, For: []verdict.ConsumerRef{
		{Subject: "dws.gmv-1min-value", Consumer: "gmv-dashboard", Effect: checker.Breaks, Fields: []string{"gmv_cents"}, Reason: "the change breaks fields it reads"},
		{Subject: "dws.gmv-1min-value", Consumer: "<http://evil|click>", Effect: checker.ChangesMeaning, Reason: "x & y"},
	}}
	pr := githubapi.PullRequest{Owner: "acme", Repo: "contracts", Number: 42, HTMLURL: "https://github.com/acme/contracts"}
	so.Status = verdict.Pending
	berlin, _ := time.LoadLocation("Europe/Berlin")
	entry := &contract.Entry{File: "calendar/2026-12-08-split-order-amount.yaml", Title: "Split order amount <now>", Kind: "schema-change",
		Subjects: []string{"orders.order-created-value"}, Owner: "orders", Timezone: "Europe/Berlin",
		Start: time.Date(2026, 12, 8, 10, 0, 0, 0, berlin), End: time.Date(2026, 12, 8, 16, 0, 0, 0, berlin), Notes: "1. add amount_total\n2. move dwd-order-detail"}
	for name, msg := range map[string]Message{
		"slack-window-day-before.json": WindowMessage(calendar.WindowReminder{Entry: entry, Mark: calendar.MarkDayBefore}),
		"slack-published.json": PublishedMessage(events.Published{Subject: "dws.gmv-1min-value", Version: 2, ID: 14, Class: "COMPATIBLE",
			PullRequest: &events.PullRequest{Number: 42, URL: "https://github.com/acme/contracts/pull/42"},
			Affected:    []events.Consumer{{Name: "gmv-dashboard", Owner: "analytics", Effect: "meaning", Direct: true}, {Name: "<evil>", Owner: "x", Effect: "breaking", Hops: 2}}}),
		"slack-window-start.json": WindowMessage(calendar.WindowReminder{Entry: entry, Mark: calendar.MarkStart}),
		"slack-registry-degraded.json": DegradedMessage(registry.Status{Branch: "refs/remotes/origin/main", Serving: "5c1d0e2a9f3144e1b8c0a9d7e6f5a4b3c2d1e0f9",
			Degraded: true, Cause: registry.CauseHistoryRewritten, Since: time.Date(2026, 12, 1, 3, 12, 0, 0, time.UTC), BranchHead: "9a8b7c6d5e4f30211fedcba987654321a0b1c2d3",
			Reason: "The branch refs/remotes/origin/main was rewritten: commit 5c1d0e2a9f31, which the registry serves, is no longer on its first-parent history (the branch is at 9a8b7c6d5e4f). The registry keeps serving 5c1d0e2a9f31, so schema ids stay stable; restore the branch's history, or restart serve to index the new history (ids assigned after the divergence may change)."}),
		"slack-team-message.json": TeamMessage(pr, so),
		"slack-all-signed-off.json": AllSignedOffMessage(pr, &verdict.Report{SignOffs: []*verdict.SignOff{
			{Team: "analytics", ApprovedBy: "ana", Status: verdict.Approved}, {Team: "data-warehouse", ApprovedBy: "dana", Status: verdict.Approved}}}),
	} {
		golden(t, name, messageJSON(t, msg))
	}
	for _, tc := range []struct {
		name       string
		escalation bool
		now        time.Time
	}{
		{"slack-reminder.json", false, deadline.Add(-90 * time.Minute)},
		{"slack-escalation.json", true, deadline.Add(time.Hour)},
		{"slack-reminder-overdue.json", false, deadline.Add(150 * time.Minute)},
	} {
		golden(t, tc.name, messageJSON(t, ReminderMessage(pr, so, tc.escalation, tc.now)))
	}
}
