package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/sample"
)

// SampleAlerts tells the owner's and the readers' channels about each problem the
// topic sampler finds (serve --sample-brokers), once per problem across replicas: the
// message carries a key (topic, part, kind, field) in Slack's message metadata, and a
// channel that holds it from the last AlertAgain is not told again; with Claims the
// replicas first agree on who tells it (once.go). Sending is best effort: a failure
// is logged, and the next round tries again.
type SampleAlerts struct {
	Notify MarkedNotifier
	// Claims, when set, is where replicas claim each alert before it is sent.
	Claims Claims
	Log    *slog.Logger
	// Clock tells the time (the computer's when nil).
	Clock clock.Clock
}

// AlertAgain is how long a problem that persists stays told.
const AlertAgain = 30 * 24 * time.Hour

// SampleAlertKey identifies a problem in its alert's metadata.
func SampleAlertKey(a sample.Alert) string {
	sum := sha256.Sum256([]byte(a.Topic + "\x00" + a.Problem.Part + "\x00" + string(a.Problem.Kind) + "\x00" + a.Problem.Field))
	return "sample/" + hex.EncodeToString(sum[:8])
}

// Alert tells each of the alert's channels, unless it was told already.
func (s *SampleAlerts) Alert(ctx context.Context, a sample.Alert) {
	key := SampleAlertKey(a)
	msg := slack.SampleMessage(a)
	for _, ch := range a.Channels {
		if _, err := tell(ctx, s.Claims, s.Notify, ch, msg, key, clock.Now(s.Clock).Add(-AlertAgain)); err != nil && s.Log != nil {
			s.Log.Warn("telling a channel about a topic that departs from its contract failed", "channel", ch, "topic", a.Topic, "err", err)
		}
	}
}
