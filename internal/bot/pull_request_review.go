package bot

import "github.com/contractbot/contractbot/internal/server"

// reviewEvent is the part of a pull_request_review payload the bot reads.
type reviewEvent struct {
	repoRef
	Action      string `json:"action"`
	PullRequest struct {
		Number int `json:"number"`
	} `json:"pull_request"`
}

// routeReview evaluates a pull request again when a review is submitted, edited or
// dismissed: an approval may be a sign-off, a dismissal may take one back.
func (b *Bot) routeReview(d server.Delivery) (*server.Job, error) {
	var ev reviewEvent
	if err := decode(d, &ev, &ev.repoRef, &ev.PullRequest.Number); err != nil {
		return nil, err
	}
	if ev.Action != "submitted" && ev.Action != "edited" && ev.Action != "dismissed" {
		return nil, nil
	}
	n := ev.PullRequest.Number
	log := b.Log.With("delivery", d.ID, "repository", ev.Repository.Owner.Login+"/"+ev.Repository.Name, "pull_request", n, "event", d.Event)
	return b.evaluationJob(d, ev.repoRef, n, evalOptions{}, log), nil
}
