package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/slack-go/slack"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/versions"
)

// DriftWatch compares Git with a live registry periodically and alerts on Slack when
// they drift apart (versions missing there, versions registered behind Git's back,
// levels that differ). A drift already reported is reported again only when it
// changes (the alert's key is a digest of the drift, kept in Slack's message
// metadata).
type DriftWatch struct {
	Repo     *git.Repository
	Branch   string
	Registry *registry.Client
	Notify   MarkedNotifier
	// Channel receives the alerts (the platform team's).
	Channel string
	Log     *slog.Logger

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
	msg := DriftMessage(report)
	sum := sha256.Sum256([]byte(msg.Text))
	key := "drift/" + hex.EncodeToString(sum[:8])
	sent, err := w.Notify.Marked(ctx, w.Channel, key, time.Now().AddDate(0, 0, -7))
	if err != nil || sent {
		return err
	}
	return w.Notify.PostMarked(ctx, w.Channel, msg, key)
}

// Every runs Check at once and then every interval until ctx ends.
func (w *DriftWatch) Every(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := w.Check(ctx); err != nil {
			w.Log.Warn("registry drift check failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// DriftMessage renders a drift report for Slack.
func DriftMessage(r *registry.DriftReport) SlackMessage {
	head := fmt.Sprintf(":warning: The schema registry has drifted from Git (commit %s): %d difference(s).", shortSHA(r.Head), len(r.Drift))
	var lines []string
	for i, d := range r.Drift {
		if i == 20 {
			lines = append(lines, fmt.Sprintf("… and %d more (run `contractbot registry diff`)", len(r.Drift)-20))
			break
		}
		lines = append(lines, fmt.Sprintf("• %s: %s", slackEscape(string(d.Kind)), slackEscape(d.Message)))
	}
	text := head + "\n" + strings.Join(lines, "\n")
	return SlackMessage{Text: text, Blocks: []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, head, false, false), nil, nil),
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Join(lines, "\n"), false, false), nil, nil),
	}}
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
