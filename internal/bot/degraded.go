package bot

import (
	"context"
	"log/slog"

	"github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/registry"
)

// DegradedAlerts tells the operations channel on Slack when the embedded registry
// cannot follow its branch (registry.Source.OnDegraded calls Alert once per distinct
// cause and branch head). A message is keyed by its cause and branch head, so
// replicas, and a restarted serve, alert once per cause within a week.
type DegradedAlerts struct {
	Notify MarkedNotifier
	// Claims, when set, is where replicas claim each alert before it is sent.
	Claims Claims
	// Channel names the channel at the time of the alert ("" when none is known: the
	// alert is logged and not sent).
	Channel func() string
	Log     *slog.Logger
	// Clock tells the time (the computer's when nil).
	Clock clock.Clock
}

// Alert sends the alert for st unless a replica sent it already. A failure is logged:
// the registry's log line and metric still say it.
func (a *DegradedAlerts) Alert(ctx context.Context, st registry.Status) {
	ch := a.Channel()
	if ch == "" {
		a.Log.Warn("embedded registry degraded: no Slack channel for operations alerts; set --ops-channel or give the platform team a slack: channel in teams.yaml", "cause", st.Cause)
		return
	}
	key := "degraded/" + st.Cause + "@" + shortHead(st.BranchHead)
	msg := slack.DegradedMessage(st)
	_, err := tell(ctx, a.Claims, a.Notify, ch, msg, key, clock.Now(a.Clock).AddDate(0, 0, -7))
	if err != nil && a.Claims == nil {
		// Better twice than never: post without knowing whether a replica did.
		a.Log.Warn("reading the operations channel's history failed; alerting anyway", "channel", ch, "err", err)
		err = a.Notify.PostMarked(ctx, ch, msg, key)
	}
	if err != nil {
		a.Log.Error("the degraded-registry alert could not be posted to Slack", "channel", ch, "cause", st.Cause, "err", err)
	}
}

func shortHead(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
