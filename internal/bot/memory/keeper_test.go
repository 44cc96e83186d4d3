package memory

import (
	"context"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/githubfake"
)

var testKey = DeriveStateKey([]byte("memory test secret"))

// keeperOn is a pull request on the GitHub fake and the keeper of the fake's bot.
func keeperOn(t *testing.T, nowFn func() time.Time) (*githubfake.Server, *githubapi.Client, PullRequest, Keeper) {
	t.Helper()
	fake := githubfake.New(githubfake.WithClock(nowFn))
	t.Cleanup(fake.Close)
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: "aaaa", BaseSHA: "bbbb"})
	fake.AddToken("writer-token", "wendy")
	return fake, githubapi.New(fake.Client()), PullRequest{Owner: "acme", Repo: "contracts", Number: n},
		Keeper{Self: githubfake.DefaultBotLogin, Key: testKey, Clock: clock.Func(nowFn)}
}

// TestReadBelievesOnlyItsOwnWrite: the state is believed only from a comment the
// keeper's login wrote, signed with its key, not updated after EditTolerance; anything
// else is a rebuilt memory that says why.
func TestReadBelievesOnlyItsOwnWrite(t *testing.T) {
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	nowFn := func() time.Time { return now }
	fake, gh, pr, k := keeperOn(t, nowFn)
	ctx := context.Background()
	read := func() Memory {
		t.Helper()
		m, err := k.Reread(ctx, gh, pr, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := read(); !m.Rebuilt || m.Notice != NoticeNoComment {
		t.Errorf("no comment: %+v", m)
	}
	body, err := RenderComment(testKey, Ref(pr), "report", State{HeadSHA: "aaaa", WrittenAt: now})
	if err != nil {
		t.Fatal(err)
	}
	fake.AddComment("acme", "contracts", pr.Number, "wendy", body) // a copy, by a writer
	if m := read(); !m.Rebuilt || m.Notice != NoticeNoComment {
		t.Errorf("a valid state in a writer's comment was read: %+v", m)
	}
	if _, err := k.Write(ctx, gh, pr, State{HeadSHA: "aaaa"}, "report"); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.State == nil || m.State.HeadSHA != "aaaa" {
		t.Fatalf("its own write: %+v", m)
	}
	other := Keeper{Self: k.Self, Key: DeriveStateKey([]byte("another secret")), Clock: clock.Func(nowFn)}
	if m, _ := other.Reread(ctx, gh, pr, nil); !m.Rebuilt || m.Notice != NoticeUnverified {
		t.Errorf("read with another key: %+v", m)
	}
	mine := Own(listComments(t, gh, pr), k.Self, nil)[0]
	now = now.Add(EditTolerance + time.Second)
	if err := githubapi.New(fake.ClientWithToken("writer-token")).EditComment(ctx, "acme", "contracts", mine.ID, mine.Body); err != nil {
		t.Fatal(err)
	}
	if m := read(); !m.Rebuilt || m.Notice != NoticeEdited {
		t.Errorf("updated after the tolerance: %+v", m)
	}
}

func listComments(t *testing.T, gh Comments, pr PullRequest) []Comment {
	t.Helper()
	all, err := gh.ListComments(context.Background(), pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	return all
}
