package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/guard"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/versions"
)

// DriftWatch compares Git with a live registry periodically and alerts on Slack when
// they drift apart (versions missing there, versions registered behind Git's back,
// levels that differ). A drift already reported is reported again only when it
// changes (the alert's key is a digest of the drift, kept in Slack's message
// metadata; with Claims the replicas first agree on who sends it: once.go).
type DriftWatch struct {
	Repo     *git.Repository
	Branch   string
	Registry *registry.Client
	Notify   MarkedNotifier
	// Claims, when set, is where replicas claim each alert before it is sent.
	Claims Claims
	// Channel receives the alerts (the platform team's).
	Channel string
	Log     *slog.Logger
	// Clock tells the time (the computer's when nil).
	Clock clock.Clock

	index *versions.Index
}

// Check runs one comparison and alerts when there is drift.
func (w *DriftWatch) Check(ctx context.Context) error {
	head, err := gitrepo.ResolveBranch(w.Repo, w.Branch)
	if err != nil {
		return err
	}
	if w.index == nil {
		if w.index, err = versions.Build(w.Repo, head); err != nil {
			return err
		}
	} else if err := w.index.Extend(w.Repo, head); err != nil {
		if w.index, err = versions.Build(w.Repo, head); err != nil {
			return err
		}
	}
	report, err := registry.Diff(ctx, w.Registry, w.Repo, w.index)
	if err != nil {
		return fmt.Errorf("compare with the registry: %w", err)
	}
	if len(report.Drift) == 0 {
		return nil
	}
	msg := slack.DriftMessage(report)
	sum := sha256.Sum256([]byte(msg.Text))
	key := "drift/" + hex.EncodeToString(sum[:8])
	_, err = tell(ctx, w.Claims, w.Notify, w.Channel, msg, key, clock.Now(w.Clock).AddDate(0, 0, -7))
	return err
}

// Every runs Check at once and then every interval until ctx ends; a check that
// panics is logged and the next one runs.
func (w *DriftWatch) Every(ctx context.Context, interval time.Duration) {
	guard.Every(ctx, interval, w.Log, "registry drift check", func(ctx context.Context) {
		if err := w.Check(ctx); err != nil {
			w.Log.Warn("registry drift check failed", "err", err)
		}
	})
}
