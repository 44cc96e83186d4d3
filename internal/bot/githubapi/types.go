package githubapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/verdict"
)

// PullRequest is what the bot needs to know of a pull request.
type PullRequest struct {
	Owner, Repo string
	Number      int
	HeadSHA     string
	BaseSHA     string
	BaseRef     string
	// MergeCommitSHA is GitHub's test merge of the head into the base
	// (refs/pull/N/merge) while the pull request is open and mergeable; "" when
	// GitHub has none (a conflict, or not computed yet).
	MergeCommitSHA string
	Author         string
	Labels         []string
	// CloneURL is the repository's Git URL; HTMLURL its web address.
	CloneURL, HTMLURL string
	State             string // open, closed
	Draft             bool
	CreatedAt         time.Time
}

// URL is the pull request's web address.
func (pr PullRequest) URL() string {
	return strings.TrimSuffix(pr.HTMLURL, "/") + "/pull/" + strconv.Itoa(pr.Number)
}

// Comment is an issue comment on a pull request.
type Comment struct {
	ID   int64
	Body string
	// Login wrote the comment (GitHub keeps the author when someone else edits it).
	Login     string
	HTMLURL   string
	CreatedAt time.Time
	// UpdatedAt is when GitHub last saw the comment written (created or edited, by
	// anyone): the bot compares it with the time signed in its state.
	UpdatedAt time.Time
}

// CheckRunInput is a check run to create or update.
type CheckRunInput struct {
	Name    string
	HeadSHA string
	// Conclusion of a completed run; "" creates a run in progress (a pending check).
	Conclusion  string
	Title       string
	Summary     string
	Annotations []verdict.Annotation
	// ExternalID, when set, replaces the run's external_id (the bot's seal, see
	// internal/bot/memory.go); empty leaves it as it is.
	ExternalID string
}

// Status is a commit status to set.
type Status struct {
	Context     string
	State       string // success, failure, pending, error
	Description string
	TargetURL   string
}

// ReviewRequest is a review request the pull request's timeline shows.
type ReviewRequest struct {
	// Reviewer is "@org/slug" for a team, "@login" for a person.
	Reviewer string
	By       string
	At       time.Time
}

// IsForbidden reports whether err is GitHub's 403 answer that is not a rate limit:
// the credentials may not do this ("Resource not accessible by integration" when a
// token that is not a GitHub App's writes a check run).
func IsForbidden(err error) bool {
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &abuse) {
		return false
	}
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden
}

// IsNotFound reports whether err is GitHub's 404 answer (also what GitHub answers for
// a team the credentials may not see).
func IsNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}
