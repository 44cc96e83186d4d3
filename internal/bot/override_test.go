package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/testutil"
)

// refuseEveryWrite is a data rule added to order-created: every write fails.
func refuseEveryWrite(r *testutil.Repo) {
	r.Edit("contracts/orders/order-created/contract.yaml", "fields:\n", "rules:\n  - name: refuse-all\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: \"false\"\n    on_failure: ERROR\nfields:\n")
}

// TestOverrideLapsesOnANewDataRule: an admin overrides the breaking change; a push
// that adds a data rule refusing every write (something the override never saw)
// lapses it, and the comment says so.
func TestOverrideLapsesOnANewDataRule(t *testing.T) {
	g, b := openGate(t, amountToString)
	g.say(b, "boss", "/contractbot override hotfix for INC-42")
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("after the admin's override: %s", c)
	}
	g.push(refuseEveryWrite)
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c == ConclusionSuccess {
		t.Errorf("a push adding a data rule that refuses every write passed on the old override:\n%s", readable(g.botComment().GetBody()))
	}
	if body := g.botComment().GetBody(); !strings.Contains(body, "no longer applies") {
		t.Errorf("the comment does not say the override lapsed:\n%s", readable(body))
	}
}

// TestQueuedCommandIsAnswered: an admin's override waits in the queue behind an
// evaluation of the same pull request, and a review arrives after it; the newer event
// does not drop the command: the override is applied.
func TestQueuedCommandIsAnswered(t *testing.T) {
	g, b := openGate(t, amountToString)
	g.advance(time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := server.NewQueue(ctx, server.QueueConfig{Workers: 1})
	hold := make(chan struct{})
	if err := q.Submit(&server.Job{Key: "acme/contracts#1", Run: func(context.Context) error { <-hold; return nil }}); err != nil {
		t.Fatal(err)
	}
	id := g.fake.AddComment("acme", "contracts", g.n, "boss", "/contractbot override hotfix for INC-42")
	review := g.fake.AddReview("acme", "contracts", g.n, "dana", "COMMENTED", g.now)
	for _, d := range []struct {
		event   string
		payload any
	}{
		{"issue_comment", g.fake.IssueCommentEvent("acme", "contracts", g.n, id, "created")},
		{"pull_request_review", g.fake.ReviewEvent("acme", "contracts", g.n, review, "submitted")},
	} {
		data, err := jsonOf(d.payload)
		if err != nil {
			t.Fatal(err)
		}
		job, err := b.Route(server.Delivery{ID: d.event, Event: d.event, Payload: data})
		if err != nil || job == nil {
			t.Fatalf("%s: job %v, err %v", d.event, job, err)
		}
		if err := q.Submit(job); err != nil {
			t.Fatal(err)
		}
	}
	close(hold)
	q.Drain()
	if c := g.conclusion(); c != ConclusionSuccess || !strings.Contains(g.botComment().GetBody(), "INC-42") {
		t.Errorf("the queued override was not applied: check %s\n%s", c, readable(g.botComment().GetBody()))
	}
}
