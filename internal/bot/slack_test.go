package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/verdict"
)

// TestRemindersAndEscalationOnSlack: 12 h, 22 h and 25 h pass after the pull request
// opens (deadline 24 h); each consumer team hears a reminder 12 h and 2 h before the
// deadline and an escalation at it, each once, across evaluations and restarts (a new
// Bot every time: the state lives only in the pull request's comment).
func TestRemindersAndEscalationOnSlack(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	opened := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	now := opened
	nowFn := func() time.Time { return now }
	fake := githubfake.New(githubfake.WithClock(nowFn), githubfake.WithInstallationTokenTTL(0))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.SetCloneURL("acme", "contracts", remote)
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: head.String(), BaseSHA: base.String(), BaseRef: "master"})

	var mu sync.Mutex
	var posted []string // "channel [thread]: text"
	var updated []string
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
			defer mu.Unlock()
			thread := ""
			if ts := r.Form.Get("thread_ts"); ts != "" {
				thread = " [thread " + ts + "]"
			}
			posted = append(posted, r.Form.Get("channel")+thread+": "+r.Form.Get("text"))
			fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":"1.%d"}`, r.Form.Get("channel"), len(posted))
		})
		c.Handle("/chat.update", func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			mu.Lock()
			defer mu.Unlock()
			updated = append(updated, r.Form.Get("channel")+" "+r.Form.Get("ts")+": "+r.Form.Get("text"))
			fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q}`, r.Form.Get("channel"), r.Form.Get("ts"))
		})
	})
	go sl.Start()
	defer sl.Stop()
	notify := botslack.New("xoxb-test", sl.GetAPIURL())
	cache := &GitCache{Dir: t.TempDir()}
	// A new Bot each time: state survives only in GitHub, as across a restart.
	evaluate := func() {
		t.Helper()
		b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(fake.Client()), Cache: cache, Clock: clock.Func(nowFn), Notify: notify, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
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
	evaluate() // opened: one message per team, one FYI to analytics (indirect), no reminder yet
	evaluate() // nothing changed: nothing posted or edited
	if got := seen(); len(got) != 3 || count("changes what team data-warehouse reads") != 1 || count("[thread") != 0 ||
		count("#bi-dashboards: :information_source: FYI") != 1 {
		t.Fatalf("at opening:\n%s", strings.Join(got, "\n"))
	}
	if len(updated) != 0 {
		t.Errorf("unchanged messages were edited: %v", updated)
	}
	now = opened.Add(12 * time.Hour) // 12 h before the 24 h deadline
	evaluate()
	evaluate()
	if got := count("#dw-realtime [thread 1."); got != 1 || count("Reminder") != 2 {
		t.Errorf("12 h reminders, threaded under each team's message:\n%s", strings.Join(seen(), "\n"))
	}
	now = opened.Add(22 * time.Hour)
	evaluate()
	if got := count("Reminder"); got != 4 { // two teams, two marks
		t.Errorf("reminders after 22 h: %d\n%s", got, strings.Join(seen(), "\n"))
	}
	now = opened.Add(25 * time.Hour)
	evaluate()
	evaluate()
	if got := count("Sign-off overdue"); got < 3 { // the two team threads and the producer
		t.Errorf("escalations: %d\n%s", got, strings.Join(seen(), "\n"))
	}
	if got := count("#orders: :rotating_light: Sign-off overdue"); got < 1 {
		t.Errorf("the producer (#orders) did not hear of the overdue sign-off:\n%s", strings.Join(seen(), "\n"))
	}
	mu.Lock()
	edits := len(updated)
	mu.Unlock()
	if edits != 2 {
		t.Errorf("team messages edited %d times, want 2 (each turned overdue once)", edits)
	}
	labels := fake.Labels("acme", "contracts", n)
	if !strings.Contains(strings.Join(labels, ","), LabelOverdue) {
		t.Errorf("labels %v lack the overdue label", labels)
	}
}

// memNotifier records Slack posts in memory.
type memNotifier struct{ posts []string }

func (m *memNotifier) Post(_ context.Context, ch string, msg botslack.Message, thread string) (string, error) {
	m.posts = append(m.posts, ch+": "+msg.Text)
	return fmt.Sprintf("1.%d", len(m.posts)), nil
}
func (m *memNotifier) Update(context.Context, string, string, botslack.Message) error { return nil }

// TestProducerHearsWhenAllSignOffsAreIn: once every required team has approved, the
// producer's channel is told, once.
func TestProducerHearsWhenAllSignOffsAreIn(t *testing.T) {
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	gh := newRecorder()
	gh.pr = &PullRequest{Owner: "acme", Repo: "contracts", Number: 42, HeadSHA: head.String(), BaseSHA: base.String(),
		CloneURL: remote, HTMLURL: "https://github.com/acme/contracts", State: "open", CreatedAt: now}
	gh.members = map[string][]string{"acme/data-warehouse": {"dana"}, "acme/data-platform": {"pat"}}
	gh.clock = func() time.Time { return now }
	notify := &memNotifier{}
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: gh, Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }), Notify: notify, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	run := func() {
		t.Helper()
		if err := b.Evaluate(context.Background(), "acme", "contracts", 42, b.Log); err != nil {
			t.Fatal(err)
		}
	}
	run()
	gh.reviews = []verdict.Review{{Login: "dana", State: "APPROVED", SubmittedAt: now}, {Login: "pat", State: "APPROVED", SubmittedAt: now}}
	now = now.Add(time.Minute)
	run()
	run()
	n := 0
	for _, p := range notify.posts {
		if strings.HasPrefix(p, "#orders: :white_check_mark: All sign-offs are in") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("producer announcements: %d, want 1\n%s", n, strings.Join(notify.posts, "\n"))
	}
}
