package bot

import (
	"encoding/json"

	"github.com/contractbot/contractbot/internal/server"
)

// prEvent is the part of a pull_request payload the bot reads.
type prEvent struct {
	repoRef
	Action      string `json:"action"`
	PullRequest struct {
		Number int `json:"number"`
	} `json:"pull_request"`
	Changes struct {
		Base *json.RawMessage `json:"base"`
	} `json:"changes"`
}

// routePullRequest evaluates a pull request opened, pushed to (synchronize),
// reopened, marked ready for review, or edited to another base branch.
func (b *Bot) routePullRequest(d server.Delivery) (*server.Job, error) {
	var ev prEvent
	if err := decode(d, &ev, &ev.repoRef, &ev.PullRequest.Number); err != nil {
		return nil, err
	}
	switch {
	case ev.Action == "opened" || ev.Action == "synchronize" || ev.Action == "reopened" || ev.Action == "ready_for_review":
	case ev.Action == "edited" && ev.Changes.Base != nil:
	default:
		return nil, nil
	}
	n := ev.PullRequest.Number
	log := b.Log.With("delivery", d.ID, "repository", ev.Repository.Owner.Login+"/"+ev.Repository.Name, "pull_request", n, "event", d.Event)
	return b.evaluationJob(d, ev.repoRef, n, evalOptions{}, log), nil
}
