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

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/sample"
)

// racingSlack is a slacktest server whose channels remember what was posted and
// answer conversations.history from it, holding the first read of each channel's
// history until a second read of it arrives (or five seconds pass): two replicas that
// read before they post both read an empty channel, as they can at the same instant,
// however far apart their work before the read started them.
func racingSlack(t *testing.T) (url string, posted func() []slack.Message) {
	var mu sync.Mutex
	var msgs []slack.Message
	reads := map[string]int{}            // by channel
	second := map[string]chan struct{}{} // closed when a channel's second read arrives
	sl := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			var meta slack.SlackMetadata
			_ = json.Unmarshal([]byte(r.Form.Get("metadata")), &meta)
			mu.Lock()
			defer mu.Unlock()
			m := slack.Message{}
			m.Channel, m.Text, m.Timestamp, m.Metadata = r.Form.Get("channel"), r.Form.Get("text"), fmt.Sprintf("%d.%06d", time.Now().Unix(), len(msgs)), meta
			msgs = append(msgs, m)
			_, _ = fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q}`, m.Channel, m.Timestamp)
		})
		c.Handle("/conversations.history", func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			ch := r.Form.Get("channel")
			mu.Lock()
			reads[ch]++
			if second[ch] == nil {
				second[ch] = make(chan struct{})
			}
			wait := second[ch]
			if reads[ch] == 2 {
				close(wait)
			}
			mu.Unlock()
			select { // the other replica's read, or five seconds
			case <-wait:
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
			mu.Lock()
			defer mu.Unlock()
			out := []slack.Message{}
			for _, m := range msgs {
				if m.Channel == r.Form.Get("channel") {
					out = append(out, m)
				}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "messages": out, "has_more": false})
		})
	})
	go sl.Start()
	t.Cleanup(sl.Stop)
	return sl.GetAPIURL(), func() []slack.Message {
		mu.Lock()
		defer mu.Unlock()
		return append([]slack.Message(nil), msgs...)
	}
}

// TestOnceAcrossRacingReplicas: two replicas alert about the same sampling problem at
// the same instant. Each claims it in the ledger on GitHub (githubfake's commit
// statuses) before it reads Slack: exactly one message reaches each channel. Without
// the claim both read the empty channel and both post.
func TestOnceAcrossRacingReplicas(t *testing.T) {
	fake := githubfake.New()
	t.Cleanup(fake.Close)
	fake.AddRepo("acme", "contracts")
	url, posted := racingSlack(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	const root = "0123456789abcdef0123456789abcdef01234567"
	alert := sample.Alert{Topic: "ods_order_snapshot", Subject: "orders.order-snapshot-value", Channels: []string{"#orders", "#dw-realtime"},
		Problem: sample.ProblemCount{Kind: sample.UndeclaredField, Field: "userid", Count: 1, Message: "field \"userid\" is not declared"}}
	var wg sync.WaitGroup
	var replicas []*SampleAlerts
	for range 2 {
		b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: 200 * time.Millisecond, GH: githubapi.New(fake.Client()), Log: log}
		ledger, err := b.AlertLedger(context.Background(), Repository{"acme", "contracts"}, root)
		if err != nil {
			t.Fatal(err)
		}
		alerts := &SampleAlerts{Notify: botslack.New("xoxb-test", url), Claims: ledger, Log: log}
		replicas = append(replicas, alerts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			alerts.Alert(context.Background(), alert)
		}()
	}
	wg.Wait()
	got := map[string]int{}
	for _, m := range posted() {
		got[m.Channel]++
	}
	if len(got) != 2 || got["#orders"] != 1 || got["#dw-realtime"] != 1 {
		var lines []string
		for _, m := range posted() {
			lines = append(lines, m.Channel+": "+m.Text)
		}
		t.Errorf("messages per channel %v, want one in each of #orders and #dw-realtime:\n%s", got, strings.Join(lines, "\n"))
	}
	// The next round finds the alert in Slack and claims nothing: a problem that
	// persists costs no GitHub call.
	const statuses = "/repos/{owner}/{repo}/commits/{ref}/statuses"
	listed := fake.Count("GET", statuses)
	replicas[0].Alert(context.Background(), alert)
	if n := fake.Count("GET", statuses) - listed; n != 0 || len(posted()) != 2 {
		t.Errorf("the next round read the ledger %d times and left %d messages, want 0 and 2", n, len(posted()))
	}
}
