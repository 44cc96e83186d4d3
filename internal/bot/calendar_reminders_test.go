package bot

import (
	"context"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// slackWithHistory is testutil.SlackWithHistory.
var slackWithHistory = testutil.SlackWithHistory

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
		return &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, Clock: clock.Func(func() time.Time { return now }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
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
