package testutil

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"
)

// SlackWithHistory is a slacktest server whose channels remember what was posted,
// metadata included, and answer conversations.history from it.
func SlackWithHistory(t testing.TB) (*slacktest.Server, func() []slack.Message) {
	var mu sync.Mutex
	var msgs []slack.Message
	sl := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			var meta slack.SlackMetadata
			if m := r.Form.Get("metadata"); m != "" {
				_ = json.Unmarshal([]byte(m), &meta)
			}
			mu.Lock()
			defer mu.Unlock()
			ts := fmt.Sprintf("%d.%06d", time.Now().Unix(), len(msgs))
			m := slack.Message{}
			m.Channel, m.Text, m.Timestamp, m.Metadata = r.Form.Get("channel"), r.Form.Get("text"), ts, meta
			msgs = append(msgs, m)
			_, _ = fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q}`, m.Channel, ts)
		})
		c.Handle("/conversations.history", func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			mu.Lock()
			defer mu.Unlock()
			var out []slack.Message
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
	return sl, func() []slack.Message {
		mu.Lock()
		defer mu.Unlock()
		return append([]slack.Message(nil), msgs...)
	}
}
