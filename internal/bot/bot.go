// Package bot is the GitHub App: it routes webhook deliveries to jobs, evaluates a
// pull request with the shared verdict in one pipeline (load, assess, converge,
// notify) and keeps GitHub's state in line with it (one sticky comment, a check run
// or a commit status, review requests, labels), reminds and escalates on Slack, and
// publishes pushes to the default branch. The GitHub adapter is internal/bot/githubapi,
// every Slack message is in internal/bot/slack, and what the bot remembers, with its
// protocol, is in internal/bot/memory; each part of this package declares the few
// GitHub methods it calls as its own interface.
package bot

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/verdict"
)

// The GitHub types the bot reads and writes, from its adapter.
type (
	// PullRequest is what the bot needs to know of a pull request.
	PullRequest = githubapi.PullRequest
	// Comment is an issue comment on a pull request.
	Comment = githubapi.Comment
	// CheckRunInput is a check run to create or update.
	CheckRunInput = githubapi.CheckRunInput
	// CheckRunRef is a check run found on a commit.
	CheckRunRef = githubapi.CheckRunRef
)

// Bot evaluates pull requests and converges GitHub's state.
type Bot struct {
	// Clients gives the API and Git credentials per repository (a GitHub App's
	// installations); when nil, GH serves every repository, and Git fetches without
	// credentials.
	Clients Clients
	GH      GitHub
	// Self is the login the bot writes as ("<app-slug>[bot]" for a GitHub App, the
	// token's user otherwise; see Identity): only comments written by it are read
	// as the bot's own.
	Self string
	// StateKey signs the state block of the bot's comments (HMAC-SHA256); every
	// replica must have the same (CONTRACTBOT_STATE_KEY, or DeriveStateKey of the
	// webhook secret). A comment whose signature does not verify is not believed.
	StateKey []byte
	Cache    *GitCache
	// Clock is the bot's clock (the computer's when nil; tests move theirs).
	Clock clock.Clock
	Log   *slog.Logger
	// Metrics counts failed side effects (nil: not counted).
	Metrics *Metrics
	// Queue, when set, guards the evaluations the reconcile loop runs as it guards a
	// delivery's (panics recovered, outcomes counted, failures shown): serve sets the
	// server's queue.
	Queue *server.Queue
	// Notify, when set, receives the sign-off reminders and escalations (Slack).
	Notify Notifier
	// Alerts, when set, is where replicas claim the messages that belong to no pull
	// request and no push (calendar reminders) before one sends them (once.go).
	Alerts Claims
	// Publishing, when set, publishes pushes to the default branch.
	Publishing *Publishing
	// AdminTeam ("org/slug") may override the bot with /contractbot override.
	AdminTeam string
	// ClaimSettle is how long a replica waits after claiming a message that must go
	// out once before it reads the claims back (DefaultClaimSettle when 0).
	ClaimSettle time.Duration
	// Marks are when reminders go out before a deadline (DefaultMarks when nil).
	Marks []time.Duration
	// EvaluationBudget bounds one evaluation (DefaultEvaluationBudget when 0).
	EvaluationBudget time.Duration
	// SlackRetry is the first wait before a pull request whose Slack messages failed
	// is evaluated again (DefaultSlackRetry when 0; slackretry.go).
	SlackRetry   time.Duration
	slackRetries slackRetries
	// pushes: where each branch was before the pushes whose jobs wait (push.go).
	pushes pushesSeen
	// roots: the first commit of each repository (owner/name), where its ledger
	// lives (rootOf).
	roots sync.Map
	// digested: the months whose digest this replica knows was sent, by
	// repository ("owner/name@2006-01").
	digested sync.Map
	// CloneURL, when set, gives the Git URL of owner/repo instead of the one GitHub
	// reports (a mirror, or a local path in tests).
	CloneURL func(owner, repo string) string
}

// GitHub is everything the bot's parts call, each through its own small interface:
// the go-github adapter (githubapi.Client) has it all.
type GitHub interface {
	pullRequests
	teams
	comments
	checkRuns
	statuses
	reviewRequester
	labeler
}

// pullRequests reads pull requests and their reviews.
type pullRequests interface {
	GetPullRequest(ctx context.Context, owner, repo string, number int) (*PullRequest, error)
	OpenPullRequests(ctx context.Context, owner, repo string) ([]int, error)
	// ListOpenPullRequests lists the open pull requests into base ("" for any).
	ListOpenPullRequests(ctx context.Context, owner, repo, base string) ([]PullRequest, error)
	// PullRequestsOfCommit lists the pull requests GitHub associates with a commit.
	PullRequestsOfCommit(ctx context.Context, owner, repo, sha string) ([]PullRequest, error)
	// BranchHead reads the commit a branch points at now.
	BranchHead(ctx context.Context, owner, repo, branch string) (string, error)
	ListReviews(ctx context.Context, owner, repo string, number int) ([]verdict.Review, error)
	// ReviewRequests reads the review requests of the pull request's timeline.
	ReviewRequests(ctx context.Context, owner, repo string, number int) ([]githubapi.ReviewRequest, error)
}

// teams reads a team's members, by organisation and slug.
type teams interface {
	TeamMembers(ctx context.Context, org, slug string) ([]string, error)
}

// Clients gives the GitHub API and the Git credentials to use for a repository.
type Clients interface {
	For(ctx context.Context, owner, repo string, installation int64) (GitHub, transport.AuthMethod, error)
}

// APIClients are githubapi.AppClients and githubapi.TokenClients: the API per
// repository, and the login the bot writes as.
type APIClients interface {
	For(ctx context.Context, owner, repo string, installation int64) (*githubapi.Client, transport.AuthMethod, error)
	Identity(ctx context.Context) (string, error)
}

// ClientsOf adapts githubapi's AppClients or TokenClients to the bot.
func ClientsOf(c APIClients) Clients { return adapted{c} }

type adapted struct{ c APIClients }

func (a adapted) For(ctx context.Context, owner, repo string, installation int64) (GitHub, transport.AuthMethod, error) {
	api, auth, err := a.c.For(ctx, owner, repo, installation)
	if err != nil {
		return nil, nil, err
	}
	return api, auth, nil
}

// clients returns the API and Git credentials for a repository.
func (b *Bot) clients(ctx context.Context, owner, repo string, installation int64) (GitHub, transport.AuthMethod, error) {
	if b.Clients != nil {
		return b.Clients.For(ctx, owner, repo, installation)
	}
	return b.GH, nil, nil
}

// now is the bot's clock's time.
func (b *Bot) now() time.Time { return clock.Now(b.Clock) }
