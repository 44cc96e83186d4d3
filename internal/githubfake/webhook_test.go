package githubfake

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// receiver is a webhook endpoint that checks deliveries with go-github's own
// ValidatePayload and ParseWebHook, as the bot will.
func receiver(t *testing.T, secret string) (*httptest.Server, chan any) {
	t.Helper()
	got := make(chan any, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := github.ValidatePayload(r, []byte(secret))
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if github.DeliveryID(r) == "" {
			http.Error(w, "no delivery id", http.StatusBadRequest)
			return
		}
		ev, err := github.ParseWebHook(github.WebHookType(r), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- ev
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func TestWebhookDeliveries(t *testing.T) {
	s, _, _ := setup(t)
	s.AddInstallation(9, owner)
	s.SetCloneURL(owner, name, "file:///tmp/contracts.git")
	recv, got := receiver(t, "s3cret")

	s.Push(owner, name, 1, "7777777777777777777777777777777777777777")
	ev := s.PullRequestEvent(owner, name, 1, "synchronize", "alice")
	ev.Before = github.String(head)
	resp, err := Deliver(ctx(t), nil, recv.URL, "s3cret", "pull_request", ev)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("deliver: %v %v", resp.Status, err)
	}
	resp.Body.Close()
	pe, ok := (<-got).(*github.PullRequestEvent)
	if !ok || pe.GetAction() != "synchronize" || pe.GetAfter() != "7777777777777777777777777777777777777777" || pe.GetBefore() != head ||
		pe.GetInstallation().GetID() != 9 || pe.GetRepo().GetCloneURL() != "file:///tmp/contracts.git" || pe.GetPullRequest().GetUser().GetLogin() != "alice" {
		t.Errorf("pull_request event: %+v", pe)
	}

	id := s.AddReview(owner, name, 1, "dave", "APPROVED", t0.Add(time.Hour))
	resp, err = Deliver(ctx(t), nil, recv.URL, "s3cret", "pull_request_review", s.ReviewEvent(owner, name, 1, id, "submitted"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	re, ok := (<-got).(*github.PullRequestReviewEvent)
	if !ok || re.GetReview().GetState() != "APPROVED" || re.GetSender().GetLogin() != "dave" || re.GetPullRequest().GetNumber() != 1 {
		t.Errorf("pull_request_review event: %+v", re)
	}

	cid := s.AddComment(owner, name, 1, "bob", "/contractbot recheck")
	resp, err = Deliver(ctx(t), nil, recv.URL, "s3cret", "issue_comment", s.IssueCommentEvent(owner, name, 1, cid, "created"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ce, ok := (<-got).(*github.IssueCommentEvent)
	if !ok || !ce.GetIssue().IsPullRequest() || ce.GetComment().GetBody() != "/contractbot recheck" || ce.GetSender().GetLogin() != "bob" {
		t.Errorf("issue_comment event: %+v", ce)
	}

	resp, err = Deliver(ctx(t), nil, recv.URL, "wrong", "pull_request", ev)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged signature: %d, want 401 from the receiver", resp.StatusCode)
	}
}
