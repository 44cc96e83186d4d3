package bot

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
	botslack "github.com/contractbot/contractbot/internal/bot/slack"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/testutil"
)

// The end-to-end tests of the sign-off gate (issue 12): every bot talks to the HTTP
// fake of GitHub through the real go-github client and to a slacktest server, and a
// new Bot stands for a restart or another replica (the state lives only in GitHub).

// gate is one pull request against the fake GitHub, with a Slack that records.
type gate struct {
	testClock
	t     *testing.T
	fake  *githubfake.Server
	repo  *testutil.Repo
	base  plumbing.Hash
	head  plumbing.Hash
	n     int
	slack *slackRecorder
}

// amountToString is the breaking change of the example tree: the order amount
// becomes a string (data-warehouse and platform must sign off).
func amountToString(r *testutil.Repo) {
	r.Edit("contracts/orders/order-created/order_created.avsc", "\"type\": \"long\",\n      \"doc\": \"Order total", "\"type\": \"string\",\n      \"doc\": \"Order total")
}

// renameCurrency is a second breaking change: currency becomes currency_code.
func renameCurrency(r *testutil.Repo) {
	r.Edit("contracts/orders/order-created/order_created.avsc", "\"name\": \"currency\"", "\"name\": \"currency_code\"")
}

func newGate(t *testing.T, opened time.Time, edit func(r *testutil.Repo)) *gate {
	t.Helper()
	return newGateOn(t, opened, nil, edit)
}

// openGate is newGate evaluated once, as the pull request opens, by the bot it
// returns.
func openGate(t *testing.T, edit func(r *testutil.Repo)) (*gate, *Bot) {
	t.Helper()
	g := newGate(t, opened, edit)
	b := g.bot()
	g.evaluate(b)
	return g, b
}

// approve lets an hour pass, in which logins approve the head, then a minute.
func (g *gate) approve(logins ...string) {
	g.advance(time.Hour)
	for _, login := range logins {
		g.fake.AddReview("acme", "contracts", g.n, login, "APPROVED", g.clock())
	}
	g.advance(time.Minute)
}

// newGateOn is newGate on the example tree as base changes it (nil: as it is).
func newGateOn(t *testing.T, opened time.Time, base func(r *testutil.Repo), edit func(r *testutil.Repo)) *gate {
	t.Helper()
	g := &gate{t: t, testClock: testClock{now: opened}, slack: newSlackRecorder(t)}
	g.fake = githubfake.New(githubfake.WithClock(g.clock), githubfake.WithInstallationTokenTTL(0))
	t.Cleanup(g.fake.Close)
	g.repo = testutil.ExampleRepo(t)
	if base != nil {
		base(g.repo)
		g.repo.Commit("the branch point")
	}
	head, _ := g.repo.Git.Head()
	g.base = head.Hash()
	g.repo.Branch("change")
	edit(g.repo)
	g.head = g.repo.Commit("Change the order amount (#1)") // squash-merged as is, later
	g.fake.AddRepo("acme", "contracts")
	g.fake.SetCloneURL("acme", "contracts", g.repo.Dir)
	g.n = g.fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: g.head.String(), BaseSHA: g.base.String(), BaseRef: "master"})
	g.fake.AddTeamMember("acme", "data-warehouse", "dana")
	g.fake.AddTeamMember("acme", "data-platform", "pat")
	g.fake.AddTeamMember("acme", "contract-admins", "boss")
	g.fake.AddToken("writer-token", "wendy")
	return g
}

// testClock is a clock the test moves, shared by the fakes and the bots.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) clock() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// replicas returns a tick: two replicas reconcile the repository at the same time.
func (g *gate) replicas() func() {
	replicas := []*Bot{g.bot(), g.bot()}
	for _, b := range replicas {
		// Long enough that, on a loaded machine, the other replica's claim lands
		// within it (the window docs/bot.md describes).
		b.ClaimSettle = 250 * time.Millisecond
	}
	return func() {
		var wg sync.WaitGroup
		for _, b := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.Reconcile(context.Background(), []Repository{{"acme", "contracts"}})
			}()
		}
		wg.Wait()
	}
}

// bot is a fresh bot process (a restart, or another replica) acting as the App.
func (g *gate) bot() *Bot {
	return &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(g.fake.Client()),
		Cache: &GitCache{Dir: g.t.TempDir()}, Clock: clock.Func(g.clock), AdminTeam: "acme/contract-admins",
		Notify: botslack.New("xoxb-test", g.slack.url), Log: slog.New(slog.NewTextHandler(testWriter{g.t}, nil))}
}

func (g *gate) evaluate(b *Bot) {
	g.t.Helper()
	if err := b.Evaluate(context.Background(), "acme", "contracts", g.n, b.Log); err != nil {
		g.t.Fatal(err)
	}
}

// push commits edit on the branch and pushes it to the pull request.
func (g *gate) push(edit func(r *testutil.Repo)) {
	edit(g.repo)
	g.head = g.repo.Commit("another change")
	g.fake.Push("acme", "contracts", g.n, g.head.String())
}

// say posts a comment by login and delivers its issue_comment webhook to b.
func (g *gate) say(b *Bot, login, body string) {
	g.t.Helper()
	g.sayLater(b, login, body)()
}

// sayLater posts a comment now and returns the job of its webhook, to run later (as
// when the job waits in the queue behind a push).
func (g *gate) sayLater(b *Bot, login, body string) func() {
	g.t.Helper()
	id := g.fake.AddComment("acme", "contracts", g.n, login, body)
	payload, err := jsonOf(g.fake.IssueCommentEvent("acme", "contracts", g.n, id, "created"))
	if err != nil {
		g.t.Fatal(err)
	}
	job, err := b.Route(server.Delivery{ID: fmt.Sprint(id), Event: "issue_comment", Payload: payload})
	if err != nil || job == nil {
		g.t.Fatalf("%q: job %v, err %v", body, job, err)
	}
	return func() {
		g.t.Helper()
		if err := job.Run(context.Background()); err != nil {
			g.t.Errorf("%q: %v", body, err)
		}
	}
}

// conclusion is the bot's check run conclusion on the current head.
func (g *gate) conclusion() string {
	runs := g.fake.CheckRuns("acme", "contracts", g.head.String())
	if len(runs) == 0 {
		return "(no check run)"
	}
	return runs[len(runs)-1].GetConclusion()
}

// botComment is the bot's sticky comment (written by its login).
func (g *gate) botComment() *github.IssueComment {
	for _, c := range g.fake.Comments("acme", "contracts", g.n) {
		if c.GetUser().GetLogin() == botLogin && IsBotComment(c.GetBody()) {
			return c
		}
	}
	g.t.Fatal("the bot has no comment")
	return nil
}

// slackRecorder is a slacktest server that keeps every message posted, with its
// metadata and thread, and answers conversations.history and conversations.replies
// from them as Slack does (the history lists a channel's top-level messages, the
// replies a thread's).
type slackRecorder struct {
	url   string
	mu    sync.Mutex
	posts []string // "channel: text"
	msgs  []slack.Message
	// refuse is how many more messages are refused with 429 and Retry-After: 1;
	// refused counts them.
	refuse, refused int
}

func newSlackRecorder(t *testing.T) *slackRecorder {
	rec := &slackRecorder{}
	sl := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var meta slack.SlackMetadata
			if m := r.Form.Get("metadata"); m != "" {
				_ = json.Unmarshal([]byte(m), &meta)
			}
			rec.mu.Lock()
			if rec.refuse > 0 {
				rec.refuse--
				rec.refused++
				rec.mu.Unlock()
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			rec.posts = append(rec.posts, r.Form.Get("channel")+": "+r.Form.Get("text"))
			n := len(rec.posts)
			m := slack.Message{}
			m.Channel, m.Text, m.Timestamp, m.ThreadTimestamp, m.Metadata = r.Form.Get("channel"), r.Form.Get("text"), fmt.Sprintf("1.%d", n), r.Form.Get("thread_ts"), meta
			rec.msgs = append(rec.msgs, m)
			rec.mu.Unlock()
			fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":"1.%d"}`, r.Form.Get("channel"), n)
		})
		c.Handle("/chat.update", func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q}`, r.Form.Get("channel"), r.Form.Get("ts"))
		})
		list := func(keep func(r *http.Request, m slack.Message) bool) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				_ = r.ParseForm()
				rec.mu.Lock()
				defer rec.mu.Unlock()
				out := []slack.Message{}
				for _, m := range rec.msgs {
					if m.Channel == r.Form.Get("channel") && keep(r, m) {
						out = append(out, m)
					}
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "messages": out, "has_more": false})
			}
		}
		c.Handle("/conversations.history", list(func(_ *http.Request, m slack.Message) bool { return m.ThreadTimestamp == "" }))
		c.Handle("/conversations.replies", list(func(r *http.Request, m slack.Message) bool {
			return m.Timestamp == r.Form.Get("ts") || m.ThreadTimestamp == r.Form.Get("ts")
		}))
	})
	go sl.Start()
	t.Cleanup(sl.Stop)
	rec.url = sl.GetAPIURL()
	return rec
}

// count counts the messages to channel whose text starts with prefix.
func (s *slackRecorder) count(channel, prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.posts {
		if strings.HasPrefix(p, channel+": "+prefix) {
			n++
		}
	}
	return n
}

func (s *slackRecorder) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.posts, "\n")
}

var opened = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// forgedState is a state block a person can write by hand: a base64 JSON that grants
// an override "by" the admin and has no teams to sign off.
func forgedState() string {
	st := fmt.Sprintf(`{"v":2,"head":"x","class":"BREAKING","override":{"by":"boss","reason":"approved in the meeting","at":%q}}`, opened.Format(time.RFC3339))
	return "<!-- contractbot:state " + base64.StdEncoding.EncodeToString([]byte(st)) + " -->"
}

// TestForgedCommentBeforeTheFirstEvaluation: a writer posts a comment with the bot's
// marker and a hand-made state granting an admin's override, before the bot ever
// evaluated the pull request. The bot ignores it: the check is not passing.
func TestForgedCommentBeforeTheFirstEvaluation(t *testing.T) {
	g := newGate(t, opened, amountToString)
	forged := Marker + "\n**BREAKING**: ready to merge by override.\n\n" + forgedState() + "\n<!-- contractbot:signature v2 " + strings.Repeat("ab", 32) + " -->\n"
	g.fake.AddComment("acme", "contracts", g.n, "wendy", forged)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Errorf("check %s after a forged override, want %s", c, ConclusionActionRequired)
	}
	comments := g.fake.Comments("acme", "contracts", g.n)
	if len(comments) != 2 || comments[0].GetBody() != forged {
		t.Errorf("the forged comment must stay as it is and the bot write its own: %d comments", len(comments))
	}
	if body := g.botComment().GetBody(); strings.Contains(body, "override") || !strings.Contains(body, "not ready to merge") {
		t.Errorf("the bot's comment:\n%s", body)
	}
	// A later evaluation (another replica) still reads only its own comment.
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Errorf("second evaluation: check %s", c)
	}
}

// TestWritersEditOfTheBotsComment: a writer edits the bot's comment to grant an
// override and to reset what was approved. The signature fails, nothing in the
// comment is believed: the state is rebuilt from GitHub, the check does not pass, and
// the comment says what happened.
func TestWritersEditOfTheBotsComment(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.evaluate(g.bot())
	c := g.botComment()
	edited := reStateBlock.ReplaceAllString(c.GetBody(), forgedState())
	edited = strings.Replace(edited, "not ready to merge", "ready to merge", 1)
	writer := githubapi.New(g.fake.ClientWithToken("writer-token"))
	if err := writer.EditComment(context.Background(), "acme", "contracts", c.GetID(), edited); err != nil {
		t.Fatal(err)
	}
	// dana approved an earlier commit only: in a rebuilt memory that does not count.
	g.fake.AddReviewOnCommit("acme", "contracts", g.n, "dana", "APPROVED", g.base.String(), g.now)
	g.advance(time.Hour)
	g.evaluate(g.bot())
	if got := g.conclusion(); got != ConclusionActionRequired {
		t.Errorf("check %s after the writer's edit, want %s", got, ConclusionActionRequired)
	}
	body := g.botComment().GetBody()
	if strings.Contains(body, "Override by") || !strings.Contains(body, "could not verify its memory") || strings.Contains(body, "approved by @dana") {
		t.Errorf("the comment after the edit:\n%s", body)
	}
	if _, err := ParseState(testKey, "acme/contracts#"+fmt.Sprint(g.n), body); err != nil {
		t.Errorf("the bot did not write a signed state again: %v", err)
	}
	golden(t, "gate-rebuilt.md", readable(body))

	// Edited again and again, the clock does not restart: the bot does not ask the
	// teams again (a new request would be the clock of the next rebuild).
	for range 2 {
		c = g.botComment()
		if err := writer.EditComment(context.Background(), "acme", "contracts", c.GetID(), strings.Replace(c.GetBody(), "pending", "approved", 1)); err != nil {
			t.Fatal(err)
		}
		g.advance(time.Hour)
		g.evaluate(g.bot())
	}
	if body := g.botComment().GetBody(); !strings.Contains(body, "due Wed 2026-12-02 08:00 UTC") {
		t.Errorf("the clock restarted after repeated edits:\n%s", readable(body))
	}
	if got := g.fake.Count("POST", "/repos/{owner}/{repo}/pulls/{number}/requested_reviewers"); got != 1 {
		t.Errorf("reviews requested %d times, want once", got)
	}
	// The deadline still runs from the bot's review request (9 h ago), not from now.
	if !strings.Contains(body, "Wed 2026-12-02 08:00 UTC") {
		t.Errorf("the rebuilt clock does not come from the review request:\n%s", body)
	}
}

var reStateBlock = regexp.MustCompile(`<!-- contractbot:state [A-Za-z0-9+/=]+ -->`)

// TestOverrideLapsesOnADifferentBreakingPush: an admin overrides; a later push that
// breaks something else does not pass on the old override, and the comment says so.
// A push that changes nothing the override waived keeps it.
func TestOverrideLapsesOnADifferentBreakingPush(t *testing.T) {
	g, b := openGate(t, amountToString)
	g.say(b, "boss", "/contractbot override hotfix for INC-42")
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("after the admin's override: %s", c)
	}
	g.push(func(r *testutil.Repo) { r.Write("README-change.md", "not a contract file\n") })
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Errorf("a push that changes nothing the override waived: %s, want it kept", c)
	}
	g.push(renameCurrency)
	g.advance(time.Minute)
	g.evaluate(g.bot())
	if c := g.conclusion(); c == ConclusionSuccess {
		t.Errorf("a different breaking push passed on the old override")
	}
	body := g.botComment().GetBody()
	if !strings.Contains(body, "no longer applies") || strings.Contains(body, "ready to merge by override") {
		t.Errorf("the comment does not say the override lapsed:\n%s", body)
	}
	golden(t, "gate-override-lapsed.md", readable(body))
}

// TestOverrideBindsToTheVerdictTheAdminSaw: an override applies to the head whose
// verdict the admin read. One written before the bot's first comment, or before a push
// whose verdict the bot showed later (the job waited in the queue), or handled while
// a newer head awaits its verdict, is not applied, and the comment says why.
func TestOverrideBindsToTheVerdictTheAdminSaw(t *testing.T) {
	notApplied := func(g *gate, why string) {
		t.Helper()
		if c := g.conclusion(); c == ConclusionSuccess {
			t.Errorf("%s: the override was applied", why)
		}
		if body := g.botComment().GetBody(); !strings.Contains(body, "is not applied: "+why) {
			t.Errorf("the comment does not say %q:\n%s", why, body)
		}
	}
	t.Run("before any verdict", func(t *testing.T) {
		g := newGate(t, opened, amountToString)
		g.say(g.bot(), "boss", "/contractbot override hotfix for INC-42")
		notApplied(g, "when it was given, contractbot had not shown a verdict on commit "+g.head.String()[:7])
		g.advance(time.Minute)
		g.say(g.bot(), "boss", "/contractbot override hotfix for INC-42")
		if c := g.conclusion(); c != ConclusionSuccess {
			t.Errorf("an override after the verdict: %s", c)
		}
	})
	t.Run("written before the new head's verdict", func(t *testing.T) {
		g := newGate(t, opened, amountToString)
		g.evaluate(g.bot())
		run := g.sayLater(g.bot(), "boss", "/contractbot override hotfix for INC-42")
		g.advance(time.Minute)
		g.push(func(r *testutil.Repo) {
			r.Edit("contracts/orders/order-created/order_created.avsc", "\"name\": \"currency\"", "\"name\": \"currency_code\"")
		})
		g.evaluate(g.bot())
		g.advance(time.Minute)
		run()
		notApplied(g, "it was written at ")
	})
	t.Run("a newer head awaits its verdict", func(t *testing.T) {
		g := newGate(t, opened, amountToString)
		g.evaluate(g.bot())
		shown := g.head.String()[:7]
		g.advance(time.Minute)
		g.push(func(r *testutil.Repo) {
			r.Edit("contracts/orders/order-created/order_created.avsc", "\"name\": \"currency\"", "\"name\": \"currency_code\"")
		})
		g.say(g.bot(), "boss", "/contractbot override hotfix for INC-42")
		notApplied(g, "it was given while contractbot's comment showed commit "+shown)
	})
}

// TestRemindersOnceOverTicksAndReplicas: two replicas reconcile the same repository
// at the same time, four ticks: when the pull request opens (the bot asks the teams
// for review, and their clocks start), 23 h later (the 2 h reminder is due at once),
// then 30 min later, then past the deadline. Each reminder and escalation reaches
// each channel exactly once.
func TestRemindersOnceOverTicksAndReplicas(t *testing.T) {
	g := newGate(t, opened, amountToString)
	tick := g.replicas()
	tick()
	g.advance(23 * time.Hour)
	tick()
	g.advance(30 * time.Minute)
	tick()
	g.advance(2 * time.Hour)
	tick()
	prs := 1
	for _, ch := range []string{"#dw-realtime", "#data-platform"} {
		if got := g.slack.count(ch, ":hourglass: Reminder"); got != prs {
			t.Errorf("%s: %d reminders, want %d\n%s", ch, got, prs, g.slack.all())
		}
		if got := g.slack.count(ch, ":rotating_light: Sign-off overdue"); got != prs {
			t.Errorf("%s: %d escalations, want %d", ch, got, prs)
		}
		if got := g.slack.count(ch, "acme/contracts#"); got != prs {
			t.Errorf("%s: %d team messages, want %d", ch, got, prs)
		}
	}
	if got := g.slack.count("#data-oncall", ":rotating_light: Sign-off overdue"); got != 2 {
		t.Errorf("#data-oncall: %d escalations, want 2 (one per team)", got)
	}
	g.threadsRecorded("data-warehouse", "platform")
	t.Logf("comment writes over the four ticks of two replicas: %d (POST and PATCH)",
		g.fake.Count("POST", "/repos/{owner}/{repo}/issues/{number}/comments")+g.fake.Count("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}"))
}

// threadsRecorded checks that the comment knows where each team's message went (so
// it is edited in place and reminders thread under it): no replica's write undid the
// sender's.
func (g *gate) threadsRecorded(teams ...string) {
	g.t.Helper()
	st, err := ParseState(testKey, "acme/contracts#1", g.botComment().GetBody())
	if err != nil {
		g.t.Fatal(err)
	}
	for _, team := range teams {
		if th := st.Slack[team]; th.TS == "" || th.Channel == "" {
			g.t.Errorf("team %s's message is not recorded: %+v", team, th)
		}
	}
}

// TestTeamRequiredByALaterPushGetsAFreshWindow: the pull request opens SAFE, and 30 h
// later a push makes it BREAKING: the teams now asked get 24 h from the push, no
// escalation, no overdue label.
func TestTeamRequiredByALaterPushGetsAFreshWindow(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) { r.Write("README-change.md", "not a contract file\n") })
	g.evaluate(g.bot())
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("the SAFE pull request: %s", c)
	}
	g.advance(30 * time.Hour)
	g.push(amountToString)
	g.evaluate(g.bot())
	body := g.botComment().GetBody()
	if !strings.Contains(body, "due Thu 2026-12-03 14:00 UTC (in 24 h)") || strings.Contains(body, "overdue") {
		t.Errorf("the new requirement's window:\n%s", body)
	}
	if strings.Contains(g.slack.all(), "overdue") {
		t.Errorf("escalated in the evaluation that first asked:\n%s", g.slack.all())
	}
	for _, l := range g.fake.Labels("acme", "contracts", g.n) {
		if l == LabelOverdue {
			t.Error("labelled overdue")
		}
	}
}

// TestTokenModeWithoutChecks: a personal token cannot write check runs (403, as on
// GitHub): the verdict becomes the commit status "contractbot", not success, and the
// review requests and labels are still made.
func TestTokenModeWithoutChecks(t *testing.T) {
	g := newGate(t, opened, amountToString)
	g.fake.AddToken("pat-token", "ci-bot")
	clients := &githubapi.TokenClients{API: githubapi.New(g.fake.ClientWithToken("pat-token")), Token: "pat-token"}
	self, err := clients.Identity(context.Background())
	if err != nil || self != "ci-bot" {
		t.Fatalf("identity %q, %v", self, err)
	}
	b := g.bot()
	b.GH, b.Self = nil, self
	b.Clients = ClientsOf(clients)
	g.evaluate(b)
	if runs := g.fake.CheckRuns("acme", "contracts", g.head.String()); len(runs) != 0 {
		t.Errorf("%d check runs written with a token", len(runs))
	}
	var st *github.RepoStatus
	for _, s := range g.fake.Statuses("acme", "contracts", g.head.String()) {
		if s.GetContext() == GateName("master") {
			st = s
		}
	}
	if st == nil || st.GetState() != "pending" || !strings.HasPrefix(st.GetDescription(), "BREAKING: ") ||
		!strings.Contains(st.GetTargetURL(), "#issuecomment-") {
		t.Fatalf("commit status %+v", st)
	}
	golden(t, "gate-token-status.txt", fmt.Sprintf("state: %s\ndescription: %s\ntarget: %s\n", st.GetState(), st.GetDescription(), st.GetTargetURL()))
	if _, teams := g.fake.RequestedReviewers("acme", "contracts", g.n); len(teams) != 2 {
		t.Errorf("team review requests %v", teams)
	}
	if labels := g.fake.Labels("acme", "contracts", g.n); len(labels) != 1 || labels[0] != LabelBreaking {
		t.Errorf("labels %v", labels)
	}
	if c := g.fake.Comments("acme", "contracts", g.n); len(c) != 1 || c[0].GetUser().GetLogin() != "ci-bot" {
		t.Errorf("comments %d", len(c))
	}
	// The next evaluation reads the token's own comment back: nothing is duplicated.
	g.advance(time.Minute)
	g.evaluate(b)
	if c := g.fake.Comments("acme", "contracts", g.n); len(c) != 1 {
		t.Errorf("%d comments after a second evaluation", len(c))
	}
}

// TestChangeEventsCarrySignOffsAndOverride (with when each team was asked, for the
// report's sign-off latency): the pull request is signed off by one
// team, overridden by an admin for the other, and merged: its change event says who
// signed off when, and who overrode why and when.
func TestChangeEventsCarrySignOffsAndOverride(t *testing.T) {
	g, b := openGate(t, amountToString)
	g.approve("dana")
	g.say(b, "boss", "/contractbot override platform agreed on the phone")
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("after the override: %s", c)
	}
	file := filepath.Join(t.TempDir(), "events.jsonl")
	sink, err := events.OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	b.Publishing = &Publishing{Sink: sink}
	// The branch is merged as it is (its head commit names the pull request).
	payload := fmt.Sprintf(`{"ref":"refs/heads/change","after":%q,"repository":{"name":"contracts","default_branch":"change","clone_url":%q,"html_url":"https://github.com/acme/contracts","owner":{"login":"acme"}}}`, g.head, g.repo.Dir)
	job, err := b.Route(server.Delivery{ID: "push", Event: "push", Payload: []byte(payload)})
	if err != nil || job == nil {
		t.Fatalf("route: %v %v", job, err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var merged *events.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e events.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.Data.Subject == "orders.order-created-value" && e.Data.Version == 2 {
			merged = &e
		}
	}
	if merged == nil {
		t.Fatalf("no event for version 2 of orders.order-created-value:\n%s", data)
	}
	want := []events.SignOff{
		{Team: "data-warehouse", Status: "approved", ApprovedBy: "dana", At: opened.Add(time.Hour), RequestedAt: opened},
		{Team: "platform", Status: "pending", RequestedAt: opened},
	}
	if got := merged.Data.SignOffs; !reflect.DeepEqual(got, want) {
		t.Errorf("sign-offs %+v, want %+v", got, want)
	}
	if o := merged.Data.Override; o == nil || o.By != "boss" || o.Reason != "platform agreed on the phone" || !o.At.Equal(opened.Add(time.Hour+time.Minute)) {
		t.Errorf("override %+v", o)
	}
}
