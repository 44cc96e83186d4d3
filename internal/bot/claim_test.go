package bot

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/githubfake"
)

// slowWrites delays a replica's writes to GitHub (POST, PATCH) by delay once slow
// is set.
type slowWrites struct {
	next  http.RoundTripper
	slow  *atomic.Bool
	delay time.Duration
}

func (s slowWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.slow.Load() && (r.Method == http.MethodPost || r.Method == http.MethodPatch) {
		time.Sleep(s.delay)
	}
	return s.next.RoundTrip(r)
}

// clientVia is a client of the GitHub fake whose requests go through wrap's
// transport.
func clientVia(fake *githubfake.Server, wrap func(http.RoundTripper) http.RoundTripper) *githubapi.Client {
	c := fake.Client()
	hc := c.Client()
	hc.Transport = wrap(hc.Transport)
	gh := github.NewClient(hc).WithAuthToken(githubfake.DefaultToken)
	gh.BaseURL, gh.UploadURL = c.BaseURL, c.UploadURL
	return githubapi.New(gh)
}

// meet says this replica arrived and waits until every replica has (or five seconds
// pass).
func meet(arrived *sync.WaitGroup) {
	arrived.Done()
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(5 * time.Second):
	}
}

// pairedGets holds a replica's first GET whose path ends with suffix until the other
// replica's arrives too (or five seconds pass).
type pairedGets struct {
	next    http.RoundTripper
	suffix  string
	arrived *sync.WaitGroup
	once    *sync.Once
}

func (p pairedGets) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, p.suffix) {
		p.once.Do(func() { meet(p.arrived) })
	}
	return p.next.RoundTrip(r)
}

// recallBarrier is a replica's Slack: its first read of what a channel holds (the
// last step before the replica claims what it will send) waits until the other
// replica reads too (meet), then calls then.
type recallBarrier struct {
	*botslack.Client
	arrived *sync.WaitGroup
	once    sync.Once
	then    func()
}

func (s *recallBarrier) Keyed(ctx context.Context, channel, prefix string, since time.Time, threaded func(key string) bool) (map[string]string, error) {
	s.once.Do(func() {
		meet(s.arrived)
		if s.then != nil {
			s.then()
		}
	})
	return s.Client.Keyed(ctx, channel, prefix, since, threaded)
}

// TestPullRequestMessagesOnceAcrossRacingReplicas: two replicas evaluate the pull
// request as it opens, at the same instant; both read the channels before either
// posts, the second reads what the first claimed before the first's claim lands, and
// is slow to write to GitHub from then on: its claim lands after the first replica
// has read its own claim back (the window a claim written into the bot's comment
// could not close: there both sent). Each team still gets exactly one
// message, and the comment records where each went.
func TestPullRequestMessagesOnceAcrossRacingReplicas(t *testing.T) {
	g := newGate(t, opened, amountToString)
	const settle = 250 * time.Millisecond
	var arrived sync.WaitGroup
	arrived.Add(2)
	var replicas []*Bot
	for i := range 2 {
		b := g.bot()
		b.ClaimSettle = settle
		slow := &atomic.Bool{}
		// The first replica's writes wait a little, so the second reads before
		// the first claims; the second's wait past the first's settle.
		delay := []time.Duration{settle / 2, 4 * settle}[i]
		b.GH = clientVia(g.fake, func(next http.RoundTripper) http.RoundTripper {
			return slowWrites{next: next, slow: slow, delay: delay}
		})
		n := &recallBarrier{Client: botslack.New("xoxb-test", g.slack.url), arrived: &arrived}
		n.then = func() { slow.Store(true) }
		b.Notify = n
		b.Log = slog.New(slog.NewTextHandler(testWriter{t}, nil)).With("replica", i)
		replicas = append(replicas, b)
	}
	var wg sync.WaitGroup
	for _, b := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.Evaluate(context.Background(), "acme", "contracts", g.n, b.Log); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	g.slack.mu.Lock()
	posts := append([]string(nil), g.slack.posts...)
	g.slack.mu.Unlock()
	for _, p := range posts {
		if seen[p]++; seen[p] == 2 {
			t.Errorf("sent twice: %s", p)
		}
	}
	for _, ch := range []string{"#dw-realtime", "#data-platform"} {
		if got := g.slack.count(ch, "acme/contracts#"); got != 1 {
			t.Errorf("%s: %d team messages, want 1\n%s", ch, got, strings.Join(posts, "\n"))
		}
	}
	g.threadsRecorded("data-warehouse", "platform")
}

// TestCommentIsNoLock: the comment is written for the verdict and, when Slack's
// memory changed, once more after Slack; never to claim (a claim in the comment was a
// third write whenever a message went out). The pull request opens (the teams'
// messages go out), is evaluated again twice, then 12 h later the reminders are due.
func TestCommentIsNoLock(t *testing.T) {
	g := newGate(t, opened, amountToString)
	writes := func() int {
		return g.fake.Count("POST", "/repos/{owner}/{repo}/issues/{number}/comments") + g.fake.Count("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}")
	}
	for _, step := range []struct {
		name  string
		after time.Duration
		want  int
	}{
		{"opened: the verdict, then where the teams' messages went", 0, 2},
		{"the first evaluation's notice dropped", time.Minute, 1},
		{"nothing new", time.Minute, 0},
		{"reminders due: the verdict as it was, the reminders sent", 12 * time.Hour, 1},
	} {
		g.advance(step.after)
		before := writes()
		g.evaluate(g.bot())
		if got := writes() - before; got != step.want {
			t.Errorf("%s: the comment was written %d times, want %d", step.name, got, step.want)
		}
	}
	if got := g.slack.count("#dw-realtime", ":hourglass: Reminder"); got != 1 {
		t.Errorf("#dw-realtime: %d reminders, want 1\n%s", got, g.slack.all())
	}
}
