package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/contractbot/contractbot/internal/githubfake"
)

// TestRemindersAndEscalationOnSlack: 12 h, 22 h and 25 h pass after the pull request
// opens (deadline 24 h); each consumer team hears a reminder 12 h and 2 h before the
// deadline and an escalation at it, each once, across evaluations and restarts (a new
// Bot every time: the state lives only in the pull request's comment).
func TestRemindersAndEscalationOnSlack(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	opened := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	now := opened
	clock := func() time.Time { return now }
	fake := githubfake.New(githubfake.WithClock(clock), githubfake.WithInstallationTokenTTL(0))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.SetCloneURL("acme", "contracts", remote)
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: head.String(), BaseSHA: base.String(), BaseRef: "master"})

	var mu sync.Mutex
	var posted []string // "channel: text"
	sl := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var blocks slack.Blocks
			if err := json.Unmarshal([]byte(r.Form.Get("blocks")), &blocks); err != nil || len(blocks.BlockSet) == 0 {
				http.Error(w, "no Block Kit blocks", http.StatusBadRequest)
				return
			}
			mu.Lock()
			posted = append(posted, r.Form.Get("channel")+": "+r.Form.Get("text"))
			mu.Unlock()
			fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":"1.%d"}`, r.Form.Get("channel"), len(posted))
		})
	})
	go sl.Start()
	defer sl.Stop()
	notify := &SlackNotifier{Client: slack.New("xoxb-test", slack.OptionAPIURL(sl.GetAPIURL()))}
	cache := &GitCache{Dir: t.TempDir()}
	// A new Bot each time: state survives only in GitHub, as across a restart.
	evaluate := func() {
		t.Helper()
		b := &Bot{GH: NewAPI(fake.Client()), Cache: cache, Now: clock, Notify: notify, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if err := b.Evaluate(context.Background(), "acme", "contracts", n, b.Log); err != nil {
			t.Fatal(err)
		}
	}
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), posted...)
	}
	count := func(sub string) int {
		c := 0
		for _, m := range seen() {
			if strings.Contains(m, sub) {
				c++
			}
		}
		return c
	}
	evaluate() // opened: no reminder yet
	if got := len(seen()); got != 0 {
		t.Fatalf("%d Slack messages at opening", got)
	}
	now = opened.Add(12 * time.Hour) // 12 h before the 24 h deadline
	evaluate()
	evaluate() // a second evaluation sends nothing new
	if got := count("#dw-realtime: :hourglass: Reminder: team data-warehouse"); got != 1 {
		t.Errorf("12 h reminders to data-warehouse: %d\n%v", got, seen())
	}
	now = opened.Add(22 * time.Hour)
	evaluate()
	if got := count("Reminder"); got != 4 { // two teams, two marks
		t.Errorf("reminders after 22 h: %d\n%v", got, seen())
	}
	now = opened.Add(25 * time.Hour)
	evaluate()
	evaluate()
	if got := count("Sign-off overdue"); got < 2 {
		t.Errorf("escalations: %d\n%v", got, seen())
	}
	labels := fake.Labels("acme", "contracts", n)
	if !strings.Contains(strings.Join(labels, ","), LabelOverdue) {
		t.Errorf("labels %v lack the overdue label", labels)
	}
}
