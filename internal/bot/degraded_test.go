package bot

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/registry"
)

// Two replicas alert on the same cause and branch head: the operations channel hears
// once; another cause is another message; without a channel nothing is sent.
func TestDegradedAlertsOncePerCause(t *testing.T) {
	sl, posted := slackWithHistory(t)
	replica := func(channel string) *DegradedAlerts {
		return &DegradedAlerts{Notify: botslack.New("xoxb-test", sl.GetAPIURL()), Channel: func() string { return channel },
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
	st := registry.Status{Branch: "main", Serving: "5c1d0e2a9f3144e1b8c0", Degraded: true, Cause: registry.CauseHistoryRewritten,
		Reason: "The branch main was rewritten.", Since: time.Now(), BranchHead: "9a8b7c6d5e4f30211fed"}
	ctx := context.Background()
	replica("#data-platform").Alert(ctx, st)
	replica("#data-platform").Alert(ctx, st)
	other := st
	other.Cause, other.BranchHead = registry.CauseBranchUnreadable, ""
	replica("#data-platform").Alert(ctx, other)
	replica("").Alert(ctx, st)
	msgs := posted()
	if len(msgs) != 2 || msgs[0].Channel != "#data-platform" || !strings.Contains(msgs[0].Text, "degraded") ||
		!strings.Contains(msgs[0].Text, "history_rewritten") || !strings.Contains(msgs[1].Text, "branch_unreadable") {
		t.Fatalf("alerts: %+v", msgs)
	}
}
