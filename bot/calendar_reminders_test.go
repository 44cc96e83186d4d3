package bot

import (
	"context"
	"encoding/json"
	"fmt"
	botslack "github.com/contractbot/contractbot/bot/slack"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// slackWithHistory is a slacktest server whose channels remember what was posted,
// metadata included, and answer conversations.history from it.
func slackWithHistory(t *testing.T) (*slacktest.Server, func() []slack.Message) {
	var mu sync.Mutex
	var msgs []slack.Message
	sl := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			var meta slack.SlackMetadata
			if m := r.Form.Get("metadata"); m != "" {
				json.Unmarshal([]byte(m), &meta)
			}
			mu.Lock()
			defer mu.Unlock()
			ts := fmt.Sprintf("%d.%06d", time.Now().Unix(), len(msgs))
			m := slack.Message{}
			m.Channel, m.Text, m.Timestamp, m.Metadata = r.Form.Get("channel"), r.Form.Get("text"), ts, meta
			msgs = append(msgs, m)
			fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q}`, m.Channel, ts)
		})
		c.Handle("/conversations.history", func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			mu.Lock()
			defer mu.Unlock()
			var out []slack.Message
			for _, m := range msgs {
				if m.Channel == r.Form.Get("channel") {
					out = append(out, m)
				}
			}
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "messages": out, "has_more": false})
		})
	})
	go sl.Start()
	t.Cleanup(sl.Stop)
	return sl, func() []slack.Message {
		mu.Lock()
		defer mu.Unlock()
		return append([]slack.Message(nil), msgs...)
	}
}

// TestCalendarRemindersOnceAcrossReplicas: the working day before the split-amount
// window and at its start, the owner's and the consumers' channels hear once, though
// two replicas run the loop, twice each.
func TestCalendarRemindersOnceAcrossReplicas(t *testing.T) {
	tree, err := contract.Load(contract.MemSource(testutil.ExampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	sl, posted := slackWithHistory(t)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	now := time.Date(2026, 12, 7, 11, 0, 0, 0, berlin) // Monday; the window opens Tuesday 10:00
	replica := func() *Bot {
		return &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, Now: func() time.Time { return now }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
	notify := botslack.New("xoxb-test", sl.GetAPIURL())
	run := func() {
		for i := 0; i < 2; i++ {
			replica().CalendarReminders(context.Background(), tree, notify)
		}
	}
	run()
	dayBefore := 0
	channels := map[string]bool{}
	for _, m := range posted() {
		if strings.Contains(m.Text, "Split order amount") {
			dayBefore++
			channels[m.Channel] = true
		}
	}
	if dayBefore == 0 || dayBefore != len(channels) || !channels["#orders"] || !channels["#dw-realtime"] {
		t.Fatalf("day-before reminders: %d to %v", dayBefore, channels)
	}
	now = time.Date(2026, 12, 8, 10, 5, 0, 0, berlin) // the window is open
	run()
	start := 0
	for _, m := range posted() {
		if strings.HasPrefix(m.Text, ":arrow_forward: Starting now: Split order amount") {
			start++
		}
	}
	if start != len(channels) {
		t.Errorf("start reminders: %d, want one per channel (%d)", start, len(channels))
	}
}
