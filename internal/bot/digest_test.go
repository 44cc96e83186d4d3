package bot

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/versions"
)

// digestWorld is a repository with a history worth reporting on, the GitHub fake
// where the digest's marks live, and a Slack that records.
type digestWorld struct {
	testClock
	t     *testing.T
	fake  *githubfake.Server
	slack *slackRecorder
	d     Digest
}

func newDigestWorld(t *testing.T) *digestWorld {
	w := &digestWorld{t: t, testClock: testClock{now: time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)}, slack: newSlackRecorder(t)}
	w.fake = githubfake.New(githubfake.WithClock(w.clock), githubfake.WithInstallationTokenTTL(0))
	t.Cleanup(w.fake.Close)
	w.fake.AddRepo("acme", "contracts")
	w.fake.AddToken("writer-token", "wendy")
	r, _ := testutil.HealthExample(t)
	// Two teams name their lead (a Slack member id: a direct message).
	r.Edit("contracts/teams.yaml", "      users: [\"@mweber\", \"@hkoenig\"]\n", "      users: [\"@mweber\", \"@hkoenig\"]\n    lead: {slack: U05ORDLEAD1, github: \"@mweber\"}\n")
	r.Edit("contracts/teams.yaml", "      users: [\"@zhangmin\", \"@chenjie\"]\n", "      users: [\"@zhangmin\", \"@chenjie\"]\n    lead: {slack: U05DWLEAD01, github: \"@zhangmin\"}\n")
	head := r.Commit("leads")
	w.d = Digest{Repo: Repository{"acme", "contracts"}, Branch: branchAt{r, head}}
	return w
}

// branchAt is the branch of r at head, reported on as contractbot report does.
type branchAt struct {
	r    *testutil.Repo
	head plumbing.Hash
}

func (b branchAt) Root(context.Context) (string, error) {
	root, err := FirstCommit(b.r.Git, b.head)
	return root.String(), err
}

func (b branchAt) Health(_ context.Context, now time.Time) (*report.Health, *contract.Tree, error) {
	return health(b.r, b.head, now)
}

// health builds the report of head as contractbot report does.
func health(r *testutil.Repo, head plumbing.Hash, now time.Time) (*report.Health, *contract.Tree, error) {
	ix, err := versions.Build(r.Git, head)
	if err != nil {
		return nil, nil, err
	}
	broken, err := history.Audit(r.Git.Storer, ix)
	if err != nil {
		return nil, nil, err
	}
	src, err := contract.NewGitSource(r.Git, head.String())
	if err != nil {
		return nil, nil, err
	}
	tree, err := contract.Load(src)
	if err != nil {
		return nil, nil, err
	}
	return report.Build(tree, ix, broken, now), tree, nil
}

// bot is a replica; notify, when not nil, replaces its Slack.
func (w *digestWorld) bot(notify Notifier) *Bot {
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: 250 * time.Millisecond, GH: githubapi.New(w.fake.Client()),
		Clock: clock.Func(w.clock), Notify: botslack.New("xoxb-test", w.slack.url), Log: slog.New(slog.NewTextHandler(testWriter{w.t}, nil))}
	if notify != nil {
		b.Notify = notify
	}
	return b
}

// replicas run the digest on two replicas at once; it returns their errors.
func (w *digestWorld) replicas() []error {
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.bot(nil).MonthlyDigest(context.Background(), w.d)
		}()
	}
	wg.Wait()
	return errs
}

const digestPrefix = ":bar_chart: Contract health for team"

// TestMonthlyDigestOnceAcrossReplicas: on the first of December two replicas run the
// digest at once, twice: each team with something to hear gets one message, at its
// lead (orders, data-warehouse: a Slack member id) or, without a lead, in its
// channel (analytics); teams with nothing to hear get none. In January it goes out
// once more. A mark written by someone else than the bot does not count.
func TestMonthlyDigestOnceAcrossReplicas(t *testing.T) {
	w := newDigestWorld(t)
	for range 2 {
		for _, err := range w.replicas() {
			if err != nil {
				t.Fatal(err)
			}
		}
		w.advance(10 * time.Minute)
	}
	want := map[string]int{"U05ORDLEAD1": 1, "U05DWLEAD01": 1, "#bi-dashboards": 1}
	check := func(when string, times int) {
		t.Helper()
		for to, n := range want {
			if got := w.slack.count(to, digestPrefix); got != n*times {
				t.Errorf("%s: %s got %d digests, want %d\n%s", when, to, got, n*times, w.slack.all())
			}
		}
		if got := strings.Count(w.slack.all(), digestPrefix); got != len(want)*times {
			t.Errorf("%s: %d digests in all, want %d:\n%s", when, got, len(want)*times, w.slack.all())
		}
	}
	check("December", 1)
	// A replica that learnt December's digest went out reads the ledger no more
	// this month (the rounds are hourly, and a month's marks are many pages).
	b := w.bot(nil)
	const statuses = "/repos/{owner}/{repo}/commits/{ref}/statuses"
	for i := range 2 {
		before := w.fake.Count("GET", statuses)
		if err := b.MonthlyDigest(context.Background(), w.d); err != nil {
			t.Fatal(err)
		}
		if got := w.fake.Count("GET", statuses) - before; (i == 0) != (got > 0) {
			t.Errorf("round %d of one replica read the ledger %d times", i+1, got)
		}
		w.advance(time.Hour)
	}
	if !strings.Contains(w.slack.all(), "U05DWLEAD01: :bar_chart: Contract health for team data-warehouse (lead @zhangmin), 2026-12") {
		t.Errorf("the data-warehouse lead's digest:\n%s", w.slack.all())
	}

	// Someone with write access marks January as sent, and writes a claim: neither
	// is the bot's own, signed mark.
	root, err := w.d.Branch.Root(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	writer := githubapi.New(w.fake.ClientWithToken("writer-token"))
	for _, desc := range []string{"2027-01 sent abcdef0123456789 3/3 " + strings.Repeat("0", 64), "2027-01 claim abcdef0123456789 " + strings.Repeat("1", 64)} {
		if err := writer.CreateStatus(context.Background(), "acme", "contracts", root, githubapi.Status{State: "success", Context: DigestContext, Description: desc}); err != nil {
			t.Fatal(err)
		}
	}
	w.advance(31 * 24 * time.Hour) // 2027-01-01
	for range 2 {
		w.replicas()
		w.advance(time.Hour)
	}
	check("January", 2)
}

// failingSlack fails every post.
type failingSlack struct{}

func (failingSlack) Post(context.Context, string, botslack.Message, string) (string, error) {
	return "", errors.New("slack is down")
}
func (failingSlack) Update(context.Context, string, string, botslack.Message) error { return nil }

// TestMonthlyDigestReleasedWhenSlackFails: the replica that claims the month cannot
// reach Slack at all; it releases its claim, and the next round (another replica)
// sends the digest, once.
func TestMonthlyDigestReleasedWhenSlackFails(t *testing.T) {
	w := newDigestWorld(t)
	if err := w.bot(failingSlack{}).MonthlyDigest(context.Background(), w.d); err == nil || !strings.Contains(err.Error(), "released") {
		t.Fatalf("a digest nobody received: %v", err)
	}
	w.advance(5 * time.Minute)
	w.replicas()
	w.advance(5 * time.Minute)
	w.replicas()
	if got := strings.Count(w.slack.all(), digestPrefix); got != 3 {
		t.Errorf("%d digests after the release, want 3:\n%s", got, w.slack.all())
	}
}

// TestMonthlyDigestClaimOfADeadReplica: a replica claimed December and died before it
// sent; within the lease nobody sends, after it another replica does.
func TestMonthlyDigestClaimOfADeadReplica(t *testing.T) {
	w := newDigestWorld(t)
	root, err := w.d.Branch.Root(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dead := w.bot(nil)
	gh := githubapi.New(w.fake.Client())
	if err := dead.writeMark(context.Background(), gh, w.d, root, "pending", "2026-12 claim 00000000deadbeef"); err != nil {
		t.Fatal(err)
	}
	w.advance(30 * time.Minute)
	w.replicas()
	if got := strings.Count(w.slack.all(), digestPrefix); got != 0 {
		t.Errorf("%d digests sent while another replica's claim stands", got)
	}
	w.advance(DefaultDigestLease)
	w.replicas()
	if got := strings.Count(w.slack.all(), digestPrefix); got != 3 {
		t.Errorf("%d digests after the dead replica's lease, want 3:\n%s", got, w.slack.all())
	}
}
