package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

// TestReportAutomation: the automation section from the change events log (three
// merges: one on the verdict with two teams' sign-offs, published in two events;
// one on an override; one pushed straight to the branch; an approval the log gives no
// request time) and, without --events, from the Git history (the pull request its
// last commit names). Goldens.
func TestReportAutomation(t *testing.T) {
	r, _ := testutil.HealthExample(t)
	var merged []string // three commits of the branch the events log names
	for i := range 3 {
		r.Edit("contracts/orders/order-cancelled/order_cancelled.avsc", "Order number", fmt.Sprintf("Order number %d", i))
		merged = append(merged, r.Commit(fmt.Sprintf("Edit the order number's doc (#%d)", 41+i)).String())
	}
	r.Edit("contracts/orders/order-cancelled/order_cancelled.avsc", "Order number 2", "Order number (as the shop shows it)")
	r.Commit("Say what the order number is (#43)")
	a1, b2, c3 := merged[0], merged[1], merged[2]

	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	signed := []events.SignOff{
		{Team: "data-warehouse", Status: "approved", ApprovedBy: "dana", At: t0.Add(3 * time.Hour), RequestedAt: t0},
		{Team: "platform", Status: "approved", ApprovedBy: "pat", At: t0.Add(26 * time.Hour), RequestedAt: t0},
	}
	evs := []events.Published{
		{Subject: "orders.order-created-value", Version: 2, MergeCommit: a1, PullRequest: &events.PullRequest{Number: 41}, SignOffs: signed},
		{Subject: "dw.order-detail-value", Version: 2, MergeCommit: a1, PullRequest: &events.PullRequest{Number: 41}, SignOffs: signed},
		{Subject: "dws.gmv-1min-value", Version: 3, MergeCommit: b2, PullRequest: &events.PullRequest{Number: 42},
			SignOffs: []events.SignOff{{Team: "analytics", Status: "pending", RequestedAt: t0}, {Team: "risk", Status: "approved", At: t0.Add(time.Hour)}},
			Override: &events.Override{By: "boss", Reason: "hotfix for INC-42", At: t0.Add(2 * time.Hour)}},
		{Subject: "users.user-profile-value", Version: 2, MergeCommit: c3},
		// a merge the branch no longer has (its history was rewritten): left out
		{Subject: "users.user-profile-value", Version: 3, MergeCommit: "0123456789abcdef0123456789abcdef01234567", PullRequest: &events.PullRequest{Number: 40}},
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
	// a file of other JSON lines (serve's OpenLineage events, a mix-up of serve's two
	// --*-events files) is refused at its first line, not read as "0 merges"
	ol, err := os.ReadFile("testdata/lineage/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"openlineage.jsonl": string(ol), "bad.jsonl": "{\"bad\":1}\n"} {
		other := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(other, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI(t, "report", "--repo", r.Dir, "--events", other)
		if want := other + ":1 is not a contractbot change event"; code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "--events takes the change events log") {
			t.Errorf("%s: exit %d, %s%s; want an error with %q", name, code, out, errOut, want)
		}
	}
}

// TestReportAutomationFromBotComments: without an events log, --github reads the
// bot's signed comment on each merged pull request the history names: #1 signed off
// by two teams, #2 merged on an override, #3 with a comment carrying the bot's
// marker written by someone else (not believed: unverified). Golden.
func TestReportAutomationFromBotComments(t *testing.T) {
	r, _ := testutil.HealthExample(t)
	for i, msg := range []string{"Say what the order number is (#1)", "Hotfix the order number (#2)", "Order number again (#3)"} {
		r.Edit("contracts/orders/order-cancelled/order_cancelled.avsc", "Order number", fmt.Sprintf("Order number %d", i))
		r.Commit(msg)
	}
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	now := t0.Add(30 * time.Hour)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	key := []byte("the bot's state key")
	teams := map[string]verdict.TeamState{"data-warehouse": {RequestedAt: t0}, "platform": {RequestedAt: t0}}
	states := []bot.State{
		{WrittenAt: now, Teams: teams, SignOffs: []bot.SignOffSummary{
			{Team: "data-warehouse", Status: "approved", ApprovedBy: "dana", ApprovedAt: t0.Add(2 * time.Hour)},
			{Team: "platform", Status: "approved", ApprovedBy: "pat", ApprovedAt: t0.Add(5 * time.Hour)}}},
		{WrittenAt: now, Teams: teams, Override: &verdict.Override{By: "boss", Reason: "hotfix", At: t0},
			SignOffs: []bot.SignOffSummary{{Team: "data-warehouse", Status: "pending"}, {Team: "platform", Status: "approved", ApprovedAt: t0.Add(29 * time.Hour)}}},
		{WrittenAt: now, Teams: teams},
	}
	for i, st := range states {
		n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: "h", BaseSHA: "b"})
		body, err := bot.RenderComment(key, fmt.Sprintf("acme/contracts#%d", n), "report", st)
		if err != nil {
			t.Fatal(err)
		}
		login := githubfake.DefaultBotLogin
		if i == 2 {
			login = "wendy"
		}
		fake.AddComment("acme", "contracts", n, login, body)
	}
	t.Setenv("GITHUB_TOKEN", githubfake.DefaultToken)
	t.Setenv("CONTRACTBOT_STATE_KEY", string(key))
	out, errOut, code := runCLI(t, "report", "--repo", r.Dir, "--now", "2026-12-01T09:00:00Z", "--github", "acme/contracts",
		"--github-url", fake.URL()+"/", "--bot-login", githubfake.DefaultBotLogin)
	if code != 0 {
		t.Fatalf("report --github: exit %d\n%s%s", code, out, errOut)
	}
	for _, b := range reCommit.FindAllString(out, -1) {
		out = strings.ReplaceAll(out, b, "<commit>")
	}
	checkGolden(t, "../report/automation-github.txt", out)
}

// --events and --github are two sources of the same figures: naming both is refused
// rather than one silently ignored.
func TestReportEventsAndGitHubExcludeEachOther(t *testing.T) {
	_, errOut, code := runCLI(t, "report", "--repo", "../..", "--events", "x.jsonl", "--github", "acme/contracts")
	if code != 2 || !strings.Contains(errOut, "[events github]") {
		t.Errorf("exit %d, %q: want 2 naming both flags", code, errOut)
	}
}
