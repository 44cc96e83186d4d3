package cli

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestServeSendsCalendarReminders: serve with Slack tells a window that is open now to
// its owner's channel and to the channels of its subjects' consumers' teams. Serve
// reads the calendar alone while nothing is due (so the pages' released tree is not
// loaded every round); a due window needs every subject for its consumers, and a
// round that judged it from the calendar alone would tell the owner only.
func TestServeSendsCalendarReminders(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")
	sl, posted := testutil.SlackWithHistory(t)
	r := testutil.ExampleRepo(t)
	start := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Minute)
	entry := "title: Reminder test\nkind: schema-change\nsubjects: [orders.order-created-value]\nowner: orders\n" +
		"window:\n  start: \"" + start.Format("2006-01-02T15:04") + "\"\n  end: \"" + start.Add(2*time.Hour).Format("2006-01-02T15:04") + "\"\n  timezone: UTC\n"
	name := filepath.Join(r.Dir, "calendar", start.Format("2006-01-02")+"-reminder-test.yaml")
	if err := os.WriteFile(name, []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.CommitAll(t, r.Git, "a window open now", r.When.Add(time.Minute))
	startServe(t, "--repo", r.Dir, "--slack-api-url", sl.GetAPIURL(), "--reconcile-every", "24h")

	want := []string{"#data-platform", "#dw-realtime", "#orders"} // platform and data-warehouse consume it
	var got []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		got = nil
		for _, m := range posted() {
			if strings.Contains(m.Text, "Starting now") && strings.Contains(m.Text, "Reminder test") {
				got = append(got, m.Channel)
			}
		}
		if len(got) >= len(want) {
			break
		}
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the open window was told to %q, want %q (its owner's and its consumers' teams, once each)", got, want)
	}
}
