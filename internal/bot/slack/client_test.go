package slack

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestHungSlackCallIsCutOff: a Slack that never answers fails the post after the
// client's timeout, and the log names the call.
func TestHungSlackCallIsCutOff(t *testing.T) {
	srv := testutil.Stalled(t, nil)
	var logs bytes.Buffer
	c := New("xoxb-test", srv.URL+"/api/", WithTimeout(200*time.Millisecond), WithLog(slog.New(slog.NewTextHandler(&logs, nil))))
	start := time.Now()
	_, err := c.Post(context.Background(), "#orders", Message{Text: "hello"}, "")
	if took := time.Since(start); err == nil || took > 10*time.Second {
		t.Fatalf("a post to a stalled Slack: %v after %s", err, took)
	}
	if !strings.Contains(logs.String(), `call="slack POST `+srv.URL+`/api/chat.postMessage"`) {
		t.Errorf("the log does not name the stalled call:\n%s", logs.String())
	}
}
