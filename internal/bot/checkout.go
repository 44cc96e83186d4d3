package bot

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/verdict"
)

// ActionsLogin is the login GitHub Actions' GITHUB_TOKEN writes as: the identity of
// `contractbot check` in a workflow when GET /user is refused.
const ActionsLogin = "github-actions[bot]"

// CheckoutOptions say what an evaluation of a checkout writes on GitHub.
type CheckoutOptions struct {
	// Comment keeps the sticky comment (the token needs pull-requests: write, the
	// bot its StateKey). Without it nothing is remembered between runs.
	Comment bool
}

// Outcome is what an evaluation of a checkout decided and what it could not write.
type Outcome struct {
	Report *verdict.Report
	// Markdown is the report as the sticky comment shows it (without the marker,
	// the state block and the signature).
	Markdown string
	// Written is what failed among the side effects (the comment, the status, review
	// requests, labels); nil when all were written.
	Written error
}

// EvaluateCheckout evaluates pull request pr from repo, a checkout that holds its head
// and the tip of its base branch (GitHub Actions: actions/checkout with fetch-depth: 0), with the
// bot's own pipeline: the same memory (own comments only, signed state), reviews,
// team members, override and sign-off rules, and the same sticky comment. The verdict
// is the commit status "contractbot: <base>" (GateName; the workflow's job has its own check run); no
// Slack message is sent (reminders and escalations need the bot's reconcile loop).
func (b *Bot) EvaluateCheckout(ctx context.Context, pr *PullRequest, repo *git.Repository, opt CheckoutOptions, log *slog.Logger) (*Outcome, error) {
	if b.Self == "" {
		return nil, fmt.Errorf("evaluate %s/%s#%d: the login contractbot writes as is unknown (Bot.Self)", pr.Owner, pr.Repo, pr.Number)
	}
	gh := &onceGitHub{GitHub: b.GH}
	tip, err := baseTip(ctx, gh, pr)
	if err != nil {
		return nil, err
	}
	for _, sha := range []string{pr.HeadSHA, tip.String()} {
		if _, err := repo.CommitObject(plumbing.NewHash(sha)); err != nil {
			return nil, fmt.Errorf("commit %s of %s/%s#%d is not in the checkout (check out with fetch-depth: 0): %w", sha, pr.Owner, pr.Repo, pr.Number, err)
		}
	}
	log = log.With("head_sha", pr.HeadSHA)
	ev, err := b.prepare(ctx, gh, pr, repo, tip, false, log)
	if err != nil {
		return nil, err
	}
	ev.noComment = !opt.Comment || len(b.StateKey) == 0
	ev.statusOnly = true
	written := b.run(ctx, ev, evalOptions{})
	return &Outcome{Report: ev.report, Markdown: ev.markdown, Written: written}, nil
}
