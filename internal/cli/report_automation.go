package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
)

// automation reads how changes reached the default branch: from the change events
// log at eventsFile when given (merges with their overrides and sign-offs), else from
// the first-parent history of the repository at dir (pull request or not) and, with
// gh, the bot's comments on those pull requests.
func automation(ctx context.Context, dir, eventsFile string, gh *botComments) (*report.Automation, error) {
	repo, _, head, err := openDefaultBranch(dir)
	if err != nil {
		return nil, fmt.Errorf("read the merges of %s: %w", dir, err)
	}
	defer repo.Close()
	if eventsFile != "" {
		merges, err := eventMerges(eventsFile)
		if err != nil {
			return nil, fmt.Errorf("--events: %w", err)
		}
		// Only merges still on the branch count: after a rewritten history, the log
		// keeps events of commits the branch no longer has.
		onBranch, err := firstParents(repo.Repository, head)
		if err != nil {
			return nil, fmt.Errorf("read the history of %s: %w", dir, err)
		}
		kept := slices.DeleteFunc(merges, func(m report.Merge) bool { return !onBranch[m.Commit] })
		a := report.Automate(report.EventsSource+" "+eventsFile, kept, true)
		a.LeftOut = len(merges) - len(kept)
		return a, nil
	}
	merges, err := gitMerges(repo.Repository, head)
	if err != nil {
		return nil, fmt.Errorf("read the merges of %s: %w", dir, err)
	}
	if gh == nil {
		return report.Automate(report.GitSource, merges, false), nil
	}
	if err := gh.fill(ctx, merges); err != nil {
		return nil, fmt.Errorf("read the bot's comments on %s/%s: %w", gh.owner, gh.repo, err)
	}
	return report.Automate("Git history and the bot's comments on GitHub", merges, true), nil
}

// maxEventLine is the longest line of the events log read (an event of a subject
// with many changes and consumers).
const maxEventLine = 16 << 20

// eventMerges reads a JSON-lines log of change events (the file sink's format) and
// returns one merge per merge commit, in the order of the log: its pull request,
// whether an override let it through, and each team's sign-off once (every version a
// merge published carries the same ones).
func eventMerges(path string) ([]report.Merge, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	byCommit := map[string]*report.Merge{}
	var order []string
	r := bufio.NewReaderSize(f, 64<<10)
	for line := 1; ; line++ {
		data, err := readLine(r)
		if errors.Is(err, io.EOF) && len(data) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(data) == 0 {
			continue
		}
		var e events.Event
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, fmt.Errorf("%s:%d is not a change event (%w); %s", path, line, err, eventsLogIs)
		}
		if !strings.HasPrefix(e.Type, eventTypes) || e.SpecVersion == "" {
			return nil, fmt.Errorf("%s:%d is not a contractbot change event (its type is %q, not %s*); %s", path, line, e.Type, eventTypes, eventsLogIs)
		}
		if e.Type != events.TypePublished || e.Data.MergeCommit == "" {
			continue
		}
		m := byCommit[e.Data.MergeCommit]
		if m == nil {
			m = &report.Merge{Commit: e.Data.MergeCommit}
			byCommit[e.Data.MergeCommit] = m
			order = append(order, e.Data.MergeCommit)
		}
		if e.Data.PullRequest != nil {
			m.PullRequest = e.Data.PullRequest.Number
		}
		m.Override = m.Override || e.Data.Override != nil
		for _, so := range e.Data.SignOffs {
			if !slices.ContainsFunc(m.SignOffs, func(s report.SignOffTimes) bool { return s.Team == so.Team }) {
				t := report.SignOffTimes{Team: so.Team, Requested: so.RequestedAt}
				if so.Status == "approved" {
					t.ApprovedAt = so.At
				}
				m.SignOffs = append(m.SignOffs, t)
			}
		}
	}
	out := make([]report.Merge, 0, len(order))
	for _, c := range order {
		out = append(out, *byCommit[c])
	}
	return out, nil
}

// eventTypes starts the CloudEvents type of every contractbot change event.
const eventTypes = "io.contractbot.schema."

// eventsLogIs says what --events takes.
const eventsLogIs = "--events takes the change events log that publish --events file:PATH and serve --publish-events file:PATH write (one CloudEvent a line, of type " + eventTypes + "*); serve's --lineage-events file (OpenLineage run events) is not one"

// firstParents returns the commits of the first-parent history ending at head.
func firstParents(r *git.Repository, head plumbing.Hash) (map[string]bool, error) {
	out := map[string]bool{}
	c, err := r.CommitObject(head)
	for err == nil {
		out[c.Hash.String()] = true
		if c.NumParents() == 0 {
			return out, nil
		}
		c, err = c.Parent(0)
	}
	return nil, fmt.Errorf("walk the first parents of %s: %w", head, err)
}

// readLine reads one line of at most maxEventLine bytes, without its end.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := r.ReadLine()
		line = append(line, part...)
		if len(line) > maxEventLine {
			return nil, fmt.Errorf("longer than %d bytes", maxEventLine)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// gitMerges lists the first-parent commits up to head that changed contracts/,
// oldest first, with the pull request their message names (none: a push straight to
// the branch).
func gitMerges(r *git.Repository, head plumbing.Hash) ([]report.Merge, error) {
	commits, err := history.ContractCommits(r.Storer, head)
	if err != nil {
		return nil, err
	}
	return report.GitMerges(commits, gitrepo.MergedPullRequest), nil
}

// tokenAPI is GitHub's API with a token, at githubURL for GitHub Enterprise.
func tokenAPI(token, githubURL string, log *slog.Logger) (*githubapi.Client, error) {
	client := github.NewClient(githubapi.HTTPClient(log)).WithAuthToken(token)
	if githubURL != "" {
		var err error
		if client, err = client.WithEnterpriseURLs(githubURL, githubURL); err != nil {
			return nil, fmt.Errorf("--github-url: %w", err)
		}
	}
	return githubapi.New(client), nil
}

// botComments reads, for the merged pull requests of a repository on GitHub, what
// the bot's verified comment said at the end: the override in force, the sign-offs.
type botComments struct {
	owner, repo string
	api         *githubapi.Client
	self        string
	key         []byte
	log         *slog.Logger
}

// newBotComments reads the repository owner/name on GitHub with GITHUB_TOKEN; the
// bot's comments are those written by botLogin (default: the token's user) and
// signed with CONTRACTBOT_STATE_KEY (or the key derived from
// CONTRACTBOT_WEBHOOK_SECRET), as the bot signs them.
func newBotComments(ctx context.Context, spec, githubURL, botLogin string, log *slog.Logger) (*botComments, error) {
	owner, name, ok := strings.Cut(spec, "/")
	if !ok || owner == "" || name == "" {
		return nil, fmt.Errorf("--github %q: write owner/name", spec)
	}
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		return nil, fmt.Errorf("--github: set GITHUB_TOKEN to a token that reads the repository's pull requests")
	}
	key := []byte(os.Getenv("CONTRACTBOT_STATE_KEY"))
	if len(key) == 0 {
		secret := os.Getenv("CONTRACTBOT_WEBHOOK_SECRET")
		if secret == "" {
			return nil, fmt.Errorf("--github: set CONTRACTBOT_STATE_KEY (or CONTRACTBOT_WEBHOOK_SECRET), the bot's key: only comments signed with it are believed")
		}
		key = bot.DeriveStateKey([]byte(secret))
	}
	api, err := tokenAPI(token, githubURL, log)
	if err != nil {
		return nil, err
	}
	if botLogin == "" {
		if botLogin, err = (&githubapi.TokenClients{API: api, Token: token}).Identity(ctx); err != nil {
			return nil, fmt.Errorf("--github: %w (or name the bot's login with --bot-login)", err)
		}
	}
	return &botComments{owner: owner, repo: name, api: api, self: botLogin, key: key, log: log}, nil
}

// fill sets each pull-request merge's override and sign-offs from the bot's verified
// comment; a merge without one is unverified.
func (c *botComments) fill(ctx context.Context, merges []report.Merge) error {
	for i := range merges {
		m := &merges[i]
		if m.PullRequest == 0 {
			continue
		}
		st, err := bot.MergedState(ctx, c.api, c.self, c.key, c.owner, c.repo, m.PullRequest, c.log)
		if err != nil {
			return err
		}
		if st == nil {
			m.Unverified = true
			continue
		}
		m.Override = st.Override != nil
		for _, so := range st.SignOffs {
			t := report.SignOffTimes{Team: so.Team, Requested: st.Teams[so.Team].RequestedAt}
			if so.Status == "approved" {
				t.ApprovedAt = so.ApprovedAt
			}
			m.SignOffs = append(m.SignOffs, t)
		}
	}
	return nil
}
