package bot

import (
	"bufio"
	"context"
	"fmt"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/testutil"
)

// pushFixture is the example tree with a merge (pull request #1) that widens
// gmv-1min's order_count, on the GitHub fake, and the push of it to master.
type pushFixture struct {
	dir, first, merge string
	fake              *githubfake.Server
	now               time.Time
	payload           string
}

func newPushFixture(t *testing.T) *pushFixture {
	t.Helper()
	r := testutil.ExampleRepo(t)
	head, _ := r.Git.Head()
	f := &pushFixture{dir: r.Dir, first: head.Hash().String(), now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	r.Edit("contracts/dws/gmv-1min/gmv_1min.avsc", `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
	f.merge = r.Commit("Merge pull request #1 from acme/order-count-long").String()
	f.fake = githubfake.New(githubfake.WithClock(func() time.Time { return f.now }))
	t.Cleanup(f.fake.Close)
	f.fake.AddRepo("acme", "contracts")
	f.fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Number: 1, Author: "olivia", HeadSHA: f.merge, BaseSHA: f.first, BaseRef: "master"})
	f.payload = fmt.Sprintf(`{"ref":"refs/heads/master","after":%q,"repository":{"name":"contracts","default_branch":"master","clone_url":%q,"html_url":"https://github.com/acme/contracts","owner":{"login":"acme"}}}`, f.merge, f.dir)
	return f
}

// bot is a bot (a replica) that publishes to an events file of its own.
func (f *pushFixture) bot(t *testing.T) (b *Bot, eventsFile string) {
	t.Helper()
	eventsFile = filepath.Join(t.TempDir(), "events.jsonl")
	sink, err := events.OpenFile(eventsFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sink.Close() })
	return &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(f.fake.Client()), Cache: &GitCache{Dir: t.TempDir()},
		Clock: clock.Func(func() time.Time { return f.now }), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Publishing: &Publishing{Sink: sink}}, eventsFile
}

// push delivers the push to b.
func (f *pushFixture) push(t *testing.T, b *Bot) {
	t.Helper()
	job, err := b.Route(server.Delivery{ID: "p", Event: "push", Payload: []byte(f.payload)})
	if err != nil || job == nil {
		t.Fatalf("route: %v %v", job, err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestPushPublishes: a push to the default branch publishes each new commit once:
// change events, a success commit status that is the bot's memory, and a comment with
// the versions and ids on the merged pull request. A redelivery publishes nothing new.
func TestPushPublishes(t *testing.T) {
	f := newPushFixture(t)
	first, merge, fake := f.first, f.merge, f.fake
	fake.Merge("acme", "contracts", 1, merge) // what the push publishes: the merge
	fake.SetBranch("acme", "contracts", "master", merge)
	b, eventsFile := f.bot(t)
	sl, posted := slackWithHistory(t)
	b.Notify = botslack.New("xoxb-test", sl.GetAPIURL())
	push := func() { t.Helper(); f.push(t, b) }
	push()
	for _, sha := range []string{first, merge} {
		var st []*github.RepoStatus // the ledger of announcements is on the first commit too
		for _, s := range fake.Statuses("acme", "contracts", sha) {
			if s.GetContext() == StatusContext {
				st = append(st, s)
			}
		}
		if len(st) != 1 || st[0].GetState() != "success" {
			t.Errorf("status of %s: %+v", sha[:8], st)
		}
	}
	lines := countLines(t, eventsFile)
	if lines < 12 { // every subject's first version, then the merge's
		t.Errorf("%d events, want the first versions and the merge's", lines)
	}
	var comment string
	for _, c := range fake.Comments("acme", "contracts", 1) {
		comment += c.GetBody()
	}
	if !strings.Contains(comment, "`dws.gmv-1min-value`: version 2") {
		t.Errorf("the merged pull request's comment:\n%s", comment)
	}
	announced := func() int {
		n := 0
		for _, m := range posted() {
			if strings.HasPrefix(m.Text, ":package: Published dws.gmv-1min-value version 2") && m.Channel == "#bi-dashboards" {
				n++
			}
		}
		return n
	}
	if got := announced(); got != 1 {
		t.Errorf("announcements of gmv-1min version 2 to the dashboard's team: %d, want 1", got)
	}
	total := len(posted())
	push() // redelivered: all commits already have their status
	if got := countLines(t, eventsFile); got != lines {
		t.Errorf("a redelivered push sent %d more events", got-lines)
	}
	if got := len(posted()); got != total {
		t.Errorf("a redelivered push announced %d more times", got-total)
	}
	// Another branch is not published (its pull requests are judged again).
	if job, _ := b.Route(server.Delivery{Event: "push", Payload: []byte(strings.Replace(f.payload, "refs/heads/master", "refs/heads/feature", 1))}); job == nil || strings.HasSuffix(job.Key, "#publish") {
		t.Errorf("a push to another branch: job %v, want one that judges its pull requests and publishes nothing", job)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<24)
	for s.Scan() {
		n++
	}
	return n
}

// TestForeignPublishStatusIsNotTheBots: a writer sets contractbot/publish to success
// on the merge by hand before the push arrives; the bot publishes it anyway, since
// only a status it created marks a commit published.
func TestForeignPublishStatusIsNotTheBots(t *testing.T) {
	f := newPushFixture(t)
	merge, fake := f.merge, f.fake
	fake.AddToken("writer-token", "wendy")
	writer := githubapi.New(fake.ClientWithToken("writer-token"))
	if err := writer.CreateStatus(context.Background(), "acme", "contracts", merge, githubapi.Status{State: "success", Context: StatusContext, Description: "published"}); err != nil {
		t.Fatal(err)
	}
	b, eventsFile := f.bot(t)
	f.push(t, b)
	data, err := os.ReadFile(eventsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), merge) {
		t.Errorf("the merge %s was not published after a writer marked it:\n%s", merge[:8], data)
	}
	var mine int
	for _, st := range fake.Statuses("acme", "contracts", merge) {
		if st.GetCreator().GetLogin() == botLogin && st.GetState() == "success" {
			mine++
		}
	}
	if mine != 1 {
		t.Errorf("the bot set %d success statuses on the merge, want 1", mine)
	}
}

// TestAnnouncementsOnceAcrossRacingReplicas: two replicas publish the same push at
// the same instant (the first commit was published before): both read the merge's
// statuses before either marks it published (GitHub here holds each replica's first
// read until the other's), and each reads the channels before either posts (the
// Slack here holds a channel's first read until a second). The announcements are
// claimed in the ledger: each channel hears of each version once. Reading Slack and
// then posting, both posted.
func TestAnnouncementsOnceAcrossRacingReplicas(t *testing.T) {
	f := newPushFixture(t)
	gh := githubapi.New(f.fake.Client())
	if err := gh.CreateStatus(context.Background(), "acme", "contracts", f.first, githubapi.Status{State: "success", Context: StatusContext, Description: "published"}); err != nil {
		t.Fatal(err)
	}
	url, posted := racingSlack(t)
	var wg sync.WaitGroup
	var arrived sync.WaitGroup
	arrived.Add(2)
	for range 2 {
		b, _ := f.bot(t)
		b.GH = clientVia(f.fake, func(next http.RoundTripper) http.RoundTripper {
			return pairedGets{next: next, suffix: "/commits/" + f.merge + "/statuses", arrived: &arrived, once: &sync.Once{}}
		})
		b.ClaimSettle = 200 * time.Millisecond
		b.Notify = botslack.New("xoxb-test", url)
		wg.Add(1)
		go func() { defer wg.Done(); f.push(t, b) }()
	}
	wg.Wait()
	seen := map[string]int{}
	dashboards := 0
	for _, m := range posted() {
		seen[m.Channel+": "+m.Text]++
		if m.Channel == "#bi-dashboards" && strings.HasPrefix(m.Text, ":package: Published dws.gmv-1min-value version 2") {
			dashboards++
		}
	}
	if dashboards != 1 {
		t.Errorf("the dashboard's team heard of gmv-1min version 2 %d times, want 1: %v", dashboards, seen)
	}
	for m, n := range seen {
		if n > 1 {
			t.Errorf("announced %d times: %s", n, m)
		}
	}
}
