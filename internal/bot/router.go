package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/contractbot/contractbot/internal/server"
)

// Route maps a delivery to a job, or nil for an event the bot does not act on; an
// error means the payload is malformed. Each event has its file: pull_request.go,
// pull_request_review.go, issue_comment.go, push.go, status.go.
func (b *Bot) Route(d server.Delivery) (*server.Job, error) {
	switch d.Event {
	case "pull_request":
		return b.routePullRequest(d)
	case "pull_request_review":
		return b.routeReview(d)
	case "issue_comment":
		return b.routeComment(d)
	case "push":
		return b.routePush(d)
	case "status":
		return b.routeStatus(d)
	}
	return nil, nil
}

// repoRef is the repository and installation every payload carries.
type repoRef struct {
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
	} `json:"repository"`
}

// decode reads a payload and checks that it names a repository and a number.
func decode(d server.Delivery, v any, ref *repoRef, number *int) error {
	if err := json.Unmarshal(d.Payload, v); err != nil {
		return fmt.Errorf("%s payload: %w", d.Event, err)
	}
	if ref.Repository.Owner.Login == "" || ref.Repository.Name == "" || *number == 0 {
		return fmt.Errorf("%s payload without repository or pull request number", d.Event)
	}
	return checkTarget(d.Event, ref.Repository.Owner.Login, ref.Repository.Name, *number)
}

var (
	// reOwner is a GitHub user or organisation login (managed users add _suffix).
	reOwner = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$`)
	// reRepo is a GitHub repository name.
	reRepo = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// checkTarget refuses a payload whose owner, repository or pull request number
// GitHub would never send: they go into API paths, so "..", a slash or a negative
// number could make the bot call another endpoint. The webhook answers 400 and logs
// the reason.
func checkTarget(event, owner, repo string, number int) error {
	if err := checkRepo(event, owner, repo); err != nil {
		return err
	}
	if number <= 0 {
		return fmt.Errorf("%s payload: pull request number %d is not a positive number", event, number)
	}
	return nil
}

// checkRepo refuses an owner or repository name GitHub does not allow.
func checkRepo(event, owner, repo string) error {
	switch {
	case !reOwner.MatchString(owner):
		return fmt.Errorf("%s payload: %q is not a GitHub owner name (letters, digits, - and _, up to 39)", event, owner)
	case !reRepo.MatchString(repo) || strings.Trim(repo, ".") == "":
		return fmt.Errorf("%s payload: %q is not a GitHub repository name (letters, digits, ., - and _, up to 100, not only dots)", event, repo)
	}
	return nil
}

// evaluationJob evaluates one pull request; jobs of the same pull request share a key.
func (b *Bot) evaluationJob(_ server.Delivery, ref repoRef, n int, opt evalOptions, log *slog.Logger) *server.Job {
	return b.evaluationJobFor(ref.Repository.Owner.Login, ref.Repository.Name, n, ref.Installation.ID, opt, log)
}

// evaluationJobFor evaluates owner/repo#n.
func (b *Bot) evaluationJobFor(owner, repo string, n int, installation int64, opt evalOptions, log *slog.Logger) *server.Job {
	key := fmt.Sprintf("%s/%s#%d", owner, repo, n)
	return &server.Job{Key: key, Run: func(ctx context.Context) error {
		if err := b.evaluate(ctx, owner, repo, n, installation, opt, log); err != nil {
			return fmt.Errorf("evaluate pull request %s: %w", key, err)
		}
		return nil
	}, Failed: b.showFailure(owner, repo, n, installation, log)}
}

// enqueue hands a job that another job found to do (an evaluation a push or a status
// calls for) to the queue, behind what waits for its pull request; without a queue
// (tests, one-off runs) it runs at once, guarded. A full queue drops it: the
// reconcile loop catches it.
func (b *Bot) enqueue(ctx context.Context, job *server.Job, log *slog.Logger) {
	if b.Queue == nil {
		b.runGuarded(ctx, job, log)
		return
	}
	if err := b.Queue.Submit(job); err != nil {
		log.Warn("could not queue an evaluation; the reconcile loop runs it", "key", job.Key, "err", err)
	}
}
