package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/internal/server"
)

// statusEvent is the part of a status payload the bot reads.
type statusEvent struct {
	repoRef
	SHA     string `json:"sha"`
	Context string `json:"context"`
	State   string `json:"state"`
	Sender  struct {
		Login string `json:"login"`
	} `json:"sender"`
}

// routeStatus answers a success status named like the bot's gate ("contractbot" or
// "contractbot: <base>") that someone else set: anyone who may write statuses can
// set one, and branch protection that accepts the check from any source would take it
// for the bot's verdict. Every open pull request whose head is that commit is judged
// again at once, and its verdict written over it (a status of the bot's own, the
// newest of its context; in App mode beside the check run). The reconcile loop does
// the same for an event that was lost.
func (b *Bot) routeStatus(d server.Delivery) (*server.Job, error) {
	var ev statusEvent
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		return nil, fmt.Errorf("status payload: %w", err)
	}
	if ev.State != "success" || (ev.Context != CheckName && !strings.HasPrefix(ev.Context, CheckName+": ")) || strings.EqualFold(ev.Sender.Login, b.Self) {
		return nil, nil
	}
	owner, repo := ev.Repository.Owner.Login, ev.Repository.Name
	if err := checkRepo(d.Event, owner, repo); err != nil {
		return nil, err
	}
	if len(ev.SHA) != 40 || strings.Trim(strings.ToLower(ev.SHA), "0123456789abcdef") != "" {
		return nil, fmt.Errorf("status payload: %q is not a commit", ev.SHA)
	}
	log := b.Log.With("delivery", d.ID, "repository", owner+"/"+repo, "head_sha", ev.SHA, "event", "status", "context", ev.Context, "by", ev.Sender.Login)
	log.Warn("a success status named like contractbot's gate was set by someone else; the pull requests of that commit are judged again")
	return &server.Job{Key: owner + "/" + repo + "#status:" + ev.SHA, Run: func(ctx context.Context) error {
		gh, _, err := b.clients(ctx, owner, repo, ev.Installation.ID)
		if err != nil {
			return err
		}
		prs, err := gh.PullRequestsOfCommit(ctx, owner, repo, ev.SHA)
		if err != nil {
			return fmt.Errorf("list the pull requests of %s: %w", shortSHA(ev.SHA), err)
		}
		for _, pr := range prs {
			if pr.State == "open" && pr.HeadSHA == ev.SHA {
				b.enqueue(ctx, b.evaluationJobFor(owner, repo, pr.Number, ev.Installation.ID, evalOptions{}, log.With("pull_request", pr.Number)), log)
			}
		}
		return nil
	}}, nil
}
