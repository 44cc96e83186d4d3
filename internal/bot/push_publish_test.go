package bot

import (
	"bufio"
	"context"
	"fmt"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestPushPublishes: a push to the default branch publishes each new commit once:
// change events, a success commit status that is the bot's memory, and a comment with
// the versions and ids on the merged pull request. A redelivery publishes nothing new.
func TestPushPublishes(t *testing.T) {
	r := testutil.ExampleRepo(t)
	dir := r.Dir
	head, _ := r.Git.Head()
	first := head.Hash().String()
	r.Edit("contracts/dws/gmv-1min/gmv_1min.avsc", `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
	merge := r.Commit("Merge pull request #1 from acme/order-count-long").String()

	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Number: 1, Author: "olivia", HeadSHA: merge, BaseSHA: first, BaseRef: "master"})
	fake.Merge("acme", "contracts", 1, merge) // what the push publishes: the merge
	fake.SetBranch("acme", "contracts", "master", merge)
	eventsFile := filepath.Join(t.TempDir(), "events.jsonl")
	sink, err := events.OpenFile(eventsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	sl, posted := slackWithHistory(t)
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(fake.Client()), Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Publishing: &Publishing{Sink: sink},
		Notify: botslack.New("xoxb-test", sl.GetAPIURL())}
	payload := fmt.Sprintf(`{"ref":"refs/heads/master","after":%q,"repository":{"name":"contracts","default_branch":"master","clone_url":%q,"html_url":"https://github.com/acme/contracts","owner":{"login":"acme"}}}`, merge, dir)
	push := func() {
		t.Helper()
		job, err := b.Route(server.Delivery{ID: "p", Event: "push", Payload: []byte(payload)})
		if err != nil || job == nil {
			t.Fatalf("route: %v %v", job, err)
		}
		if err := job.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	push()
	for _, sha := range []string{first, merge} {
		st := fake.Statuses("acme", "contracts", sha)
		if len(st) != 1 || st[0].GetState() != "success" || st[0].GetContext() != StatusContext {
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
	if job, _ := b.Route(server.Delivery{Event: "push", Payload: []byte(strings.Replace(payload, "refs/heads/master", "refs/heads/feature", 1))}); job == nil || strings.HasSuffix(job.Key, "#publish") {
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
	r := testutil.ExampleRepo(t)
	head, _ := r.Git.Head()
	first := head.Hash().String()
	r.Edit("contracts/dws/gmv-1min/gmv_1min.avsc", `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
	merge := r.Commit("Merge pull request #1 from acme/order-count-long").String()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Number: 1, Author: "olivia", HeadSHA: merge, BaseSHA: first, BaseRef: "master"})
	fake.AddToken("writer-token", "wendy")
	writer := githubapi.New(fake.ClientWithToken("writer-token"))
	if err := writer.CreateStatus(context.Background(), "acme", "contracts", merge, githubapi.Status{State: "success", Context: StatusContext, Description: "published"}); err != nil {
		t.Fatal(err)
	}
	eventsFile := filepath.Join(t.TempDir(), "events.jsonl")
	sink, err := events.OpenFile(eventsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	b := &Bot{Self: botLogin, StateKey: testKey, GH: githubapi.New(fake.Client()), Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Publishing: &Publishing{Sink: sink}}
	payload := fmt.Sprintf(`{"ref":"refs/heads/master","after":%q,"repository":{"name":"contracts","default_branch":"master","clone_url":%q,"html_url":"https://github.com/acme/contracts","owner":{"login":"acme"}}}`, merge, r.Dir)
	job, err := b.Route(server.Delivery{ID: "p", Event: "push", Payload: []byte(payload)})
	if err != nil || job == nil {
		t.Fatalf("route: %v %v", job, err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
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
