package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/server"
)

// What the pull request shows while the bot cannot evaluate it. The check stays
// pending (a check run in progress, a pending commit status) rather than neutral:
// GitHub counts a neutral conclusion as passing a required check, and a failure of
// the bot must not let a change merge unexamined, nor blame its author.
const (
	FailureRetrying = "contractbot could not evaluate this commit; retrying"
	FailureGaveUp   = "contractbot could not evaluate this commit; comment /contractbot recheck or push to try again"
)

// failureSummary explains the pending check in the check run's text.
const failureSummary = "This is a failure of the bot or of a service it needs (GitHub, Git, the registry), " +
	"not a problem found in this pull request. The check stays pending, so the merge waits, until an evaluation completes."

// showFailure is the hook the queue calls after a failed attempt at a job for pull
// request owner/repo#n: the pull request's head commit shows the failure.
func (b *Bot) showFailure(owner, repo string, n int, installation int64, log *slog.Logger) func(context.Context, error, bool) {
	return func(ctx context.Context, _ error, final bool) {
		if err := b.ShowFailure(ctx, owner, repo, n, installation, final); err != nil {
			log.Error("could not show the failed evaluation on the pull request", "err", err)
		}
	}
}

// ShowFailure marks the head commit of owner/repo#n as not evaluated: a check run in
// progress, or a pending commit status where the Checks API is refused (token mode).
// final says no retry follows.
func (b *Bot) ShowFailure(ctx context.Context, owner, repo string, n int, installation int64, final bool) error {
	gh, _, err := b.clients(ctx, owner, repo, installation)
	if err != nil {
		return fmt.Errorf("show failure on %s/%s#%d: credentials: %w", owner, repo, n, err)
	}
	pr, err := gh.GetPullRequest(ctx, owner, repo, n)
	if err != nil {
		return fmt.Errorf("show failure on %s/%s#%d: read the pull request: %w", owner, repo, n, err)
	}
	title := FailureRetrying
	if final {
		title = FailureGaveUp
	}
	name := GateName(pr.BaseRef)
	in := CheckRunInput{Name: name, HeadSHA: pr.HeadSHA, Title: title, Summary: failureSummary}
	if prev, found, err := gh.FindCheckRun(ctx, owner, repo, pr.HeadSHA, name, b.app()); b.app() != "" && err == nil && found {
		in.ExternalID = prev.ExternalID // the new run is the newest: it keeps the seal (internal/bot/memory)
	}
	_, checkErr := gh.CreateCheckRun(ctx, owner, repo, in)
	if checkErr == nil {
		return nil
	}
	if err := gh.CreateStatus(ctx, owner, repo, pr.HeadSHA, githubapi.Status{State: "pending", Context: name, Description: title}); err != nil {
		return fmt.Errorf("show failure on %s/%s#%d at %s: %w", owner, repo, n, pr.HeadSHA,
			errors.Join(fmt.Errorf("check run: %w", checkErr), fmt.Errorf("commit status: %w", err)))
	}
	return nil
}

// runGuarded runs a job outside the webhook queue (the reconcile loop) with the
// queue's guards when the bot has one (b.Queue): a panic is recovered, the outcome
// counted and a failure shown on the pull request, as for a delivery's job.
func (b *Bot) runGuarded(ctx context.Context, job *server.Job, log *slog.Logger) {
	if b.Queue != nil {
		_ = b.Queue.RunNow(ctx, job) // logged, counted and shown there
		return
	}
	if err := job.Run(ctx); err != nil {
		log.Error("evaluation failed", "err", err)
	}
}
