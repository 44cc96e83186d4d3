package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/verdict"
)

// githubRun is what `check` needs to evaluate a pull request inside GitHub Actions.
type githubRun struct {
	// token reads the reviews and writes the comment and the status (GITHUB_TOKEN).
	token string
	// teamsToken reads the members of the organisation's teams (GITHUB_TOKEN cannot).
	teamsToken string
	// apiURL is GitHub's REST API (GITHUB_API_URL).
	apiURL string
	// eventPath is the webhook payload of the run (GITHUB_EVENT_PATH).
	eventPath string
	// summaryPath is the job's step summary (GITHUB_STEP_SUMMARY); "" for none.
	summaryPath string
	// stateKey signs the sticky comment's state (CONTRACTBOT_STATE_KEY).
	stateKey []byte
	// adminTeam signs off changes to the process (--admin-team,
	// CONTRACTBOT_ADMIN_TEAM).
	adminTeam string
	comment   bool
}

// inGitHubActions reports whether check runs as a step of a GitHub Actions workflow.
func inGitHubActions() bool { return os.Getenv("GITHUB_ACTIONS") == "true" }

// githubRunFromEnv completes the flags with the workflow's environment.
func githubRunFromEnv(token, teamsToken, apiURL string, comment bool) githubRun {
	g := githubRun{token: token, teamsToken: teamsToken, apiURL: apiURL, comment: comment,
		eventPath: os.Getenv("GITHUB_EVENT_PATH"), summaryPath: os.Getenv("GITHUB_STEP_SUMMARY"),
		stateKey: []byte(os.Getenv("CONTRACTBOT_STATE_KEY"))}
	if g.token == "" {
		g.token = os.Getenv("GITHUB_TOKEN")
	}
	if g.teamsToken == "" {
		g.teamsToken = os.Getenv("CONTRACTBOT_TEAMS_TOKEN")
	}
	if g.apiURL == "" {
		g.apiURL = os.Getenv("GITHUB_API_URL")
	}
	return g
}

// checkPullRequest evaluates the workflow's pull request with the bot's pipeline
// (bot.EvaluateCheckout): its reviews and team members from GitHub, the sticky
// comment and the commit status "contractbot: <base>" written back; the step summary is the
// comment's text. A side effect that fails is a warning: the exit status follows the
// verdict.
func checkPullRequest(cmd *cobra.Command, repoDir string, g githubRun, now time.Time) (*verdict.Report, error) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if g.eventPath == "" {
		return nil, fmt.Errorf("check in GitHub Actions reads the pull request from the event file GITHUB_EVENT_PATH names, and it is not set; run check as a step of a workflow on pull_request or pull_request_review, or without --github")
	}
	payload, err := os.ReadFile(g.eventPath)
	if err != nil {
		return nil, fmt.Errorf("read the event file GITHUB_EVENT_PATH names: %w", err)
	}
	pr, err := githubapi.PullRequestFromEvent(payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.eventPath, err)
	}
	if g.token == "" {
		return nil, fmt.Errorf("check in GitHub Actions reads the reviews of %s/%s#%d through GitHub's API and needs a token: set GITHUB_TOKEN: ${{ github.token }} in the step's env, or pass --token", pr.Owner, pr.Repo, pr.Number)
	}
	api, err := githubClient(g.apiURL, g.token)
	if err != nil {
		return nil, err
	}
	gh := &actionsGitHub{Client: api}
	if g.teamsToken != "" {
		if gh.teams, err = githubClient(g.apiURL, g.teamsToken); err != nil {
			return nil, err
		}
	}
	repo, err := gitrepo.Open(repoDir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	b := &bot.Bot{GH: gh, StateKey: g.stateKey, Clock: clock.Fixed(now), Log: log, AdminTeam: g.adminTeam}
	if b.Self, err = api.AuthenticatedUser(ctx); err != nil || b.Self == "" {
		b.Self = bot.ActionsLogin // GITHUB_TOKEN may not read GET /user
	}
	if g.comment && len(g.stateKey) == 0 {
		fmt.Fprintln(cmd.ErrOrStderr(), "::warning::CONTRACTBOT_STATE_KEY is not set, so contractbot keeps no comment and no memory between runs: every run evaluates the pull request as if for the first time. Add a repository secret CONTRACTBOT_STATE_KEY and pass it in the step's env.")
	}
	out, err := b.EvaluateCheckout(ctx, pr, repo.Repository, bot.CheckoutOptions{Comment: g.comment}, log.With("pull_request", pr.Number))
	if err != nil {
		return nil, fmt.Errorf("evaluate %s/%s#%d: %w", pr.Owner, pr.Repo, pr.Number, err)
	}
	if out.Written != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "::warning::contractbot could not write everything to the pull request (the token needs pull-requests: write and statuses: write; a pull request from a fork gets a read-only token): %s\n", oneLine(out.Written.Error()))
	}
	if g.summaryPath != "" {
		if err := appendFile(g.summaryPath, out.Markdown); err != nil {
			return nil, fmt.Errorf("write the step summary GITHUB_STEP_SUMMARY names: %w", err)
		}
	}
	return out.Report, nil
}

// actionsGitHub is the bot's GitHub in a workflow: the workflow's token for
// everything, except team members, read with a token that can read the organisation's
// teams when one is given.
type actionsGitHub struct {
	*githubapi.Client
	teams *githubapi.Client
}

// TeamMembers reads a team's members with the teams token, or says why the
// workflow's token cannot.
func (g *actionsGitHub) TeamMembers(ctx context.Context, org, slug string) ([]string, error) {
	if g.teams != nil {
		return g.teams.TeamMembers(ctx, org, slug)
	}
	m, err := g.Client.TeamMembers(ctx, org, slug)
	if err != nil && (githubapi.IsForbidden(err) || githubapi.IsNotFound(err)) {
		return nil, fmt.Errorf("the workflow's token cannot list the members of @%s/%s (GITHUB_TOKEN cannot read an organisation's teams): pass a token that can as CONTRACTBOT_TEAMS_TOKEN, or list the team's members in contracts/teams.yaml: %w", org, slug, err)
	}
	return m, err
}

// githubClient is go-github with token, at apiURL (GitHub's when empty).
func githubClient(apiURL, token string) (*githubapi.Client, error) {
	c := github.NewClient(githubapi.HTTPClient(nil)).WithAuthToken(token)
	if apiURL != "" && strings.TrimSuffix(apiURL, "/") != "https://api.github.com" {
		u := strings.TrimSuffix(apiURL, "/") + "/"
		var err error
		if c, err = c.WithEnterpriseURLs(u, u); err != nil {
			return nil, fmt.Errorf("GITHUB_API_URL %q: %w", apiURL, err)
		}
	}
	return githubapi.New(c), nil
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		_ = f.Close() // the write's error is the one to report
		return err
	}
	return f.Close()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
