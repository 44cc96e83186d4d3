package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/contractbot/contractbot/internal/guard"
	"github.com/contractbot/contractbot/internal/server"
)

// Repository names a repository the bot watches.
type Repository struct{ Owner, Name string }

// Reconcile evaluates every open pull request of the repositories: what a missed
// webhook or a crash left undone is repaired, reminders and escalations fall due. Any
// replica may run it; the evaluation is idempotent.
func (b *Bot) Reconcile(ctx context.Context, repos []Repository) {
	for _, r := range repos {
		gh, _, err := b.clients(ctx, r.Owner, r.Name, 0)
		if err != nil {
			b.Log.Warn("reconcile: no client for the repository", "repository", r.Owner+"/"+r.Name, "err", err)
			continue
		}
		numbers, err := gh.OpenPullRequests(ctx, r.Owner, r.Name)
		if err != nil {
			b.Log.Warn("reconcile: listing open pull requests failed", "repository", r.Owner+"/"+r.Name, "err", err)
			continue
		}
		for _, n := range numbers {
			if ctx.Err() != nil {
				return
			}
			log := b.Log.With("repository", r.Owner+"/"+r.Name, "pull_request", n, "reconcile", true)
			owner, repo, n := r.Owner, r.Name, n
			b.runGuarded(ctx, &server.Job{Key: fmt.Sprintf("%s/%s#%d", owner, repo, n), Run: func(ctx context.Context) error {
				if err := b.Evaluate(ctx, owner, repo, n, log); err != nil {
					return fmt.Errorf("reconcile pull request %s/%s#%d: %w", owner, repo, n, err)
				}
				return nil
			}, Failed: b.showFailure(owner, repo, n, 0, log)}, log)
		}
	}
}

// ReconcileEvery runs Reconcile at once and then every interval until ctx ends. Each
// pull request's evaluation runs under the queue's guards; a panic elsewhere in a
// round (listing pull requests) is logged and the next round runs.
func (b *Bot) ReconcileEvery(ctx context.Context, repos []Repository, interval time.Duration) {
	guard.Every(ctx, interval, b.Log, "reconcile", func(ctx context.Context) { b.Reconcile(ctx, repos) })
}
