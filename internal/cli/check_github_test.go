package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/testutil"
)

// The times of the Actions tests: the pull request opens at opened, check runs at now.
var (
	opened  = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	checkAt = "2026-12-01T09:00:00Z"
)

// actionsPR is a pull request of acme/contracts in the fake GitHub and the checkout a
// workflow would have of it.
type actionsPR struct {
	t       *testing.T
	gh      *githubfake.Server
	repo    *testutil.Repo
	n       int
	head    string
	summary string
}

// newActionsPR commits the example tree (after base edits the base), then the change
// edit makes, and opens the pull request from the one to the other. GitHub's token
// in the workflow is an Actions token: it may not read team members.
func newActionsPR(t *testing.T, base, change func(t *testing.T, dir string)) *actionsPR {
	t.Helper()
	gh := githubfake.New(githubfake.WithClock(func() time.Time { return opened }))
	t.Cleanup(gh.Close)
	gh.AddRepo("acme", "contracts")
	gh.AddActionsToken("ghs_workflow")
	r := testutil.ExampleRepo(t)
	h, err := r.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	baseSHA := h.Hash()
	if base != nil {
		base(t, r.Dir)
		baseSHA = r.Commit("base")
	}
	change(t, r.Dir)
	headSHA := r.Commit("the change")
	n := gh.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "producer", HeadSHA: headSHA.String(), BaseSHA: baseSHA.String()})
	p := &actionsPR{t: t, gh: gh, repo: r, n: n, head: headSHA.String(), summary: filepath.Join(t.TempDir(), "summary.md")}
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_TOKEN", "ghs_workflow")
	t.Setenv("GITHUB_API_URL", gh.URL())
	t.Setenv("GITHUB_STEP_SUMMARY", p.summary)
	t.Setenv("CONTRACTBOT_STATE_KEY", "actions-test-key")
	t.Setenv("CONTRACTBOT_TEAMS_TOKEN", "")
	return p
}

// run runs check as a workflow step on event (its payload written where
// GITHUB_EVENT_PATH names) and returns the exit code and the step summary.
func (p *actionsPR) run(event any) (int, string) {
	p.t.Helper()
	data, err := json.Marshal(event)
	if err != nil {
		p.t.Fatal(err)
	}
	path := filepath.Join(p.t.TempDir(), "event.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Setenv("GITHUB_EVENT_PATH", path)
	if err := os.WriteFile(p.summary, nil, 0o644); err != nil {
		p.t.Fatal(err)
	}
	_, errOut, code := runCLI(p.t, "check", "--repo", p.repo.Dir, "--now", checkAt)
	if code == 2 {
		p.t.Fatalf("check could not run: %s", errOut)
	}
	summary, err := os.ReadFile(p.summary)
	if err != nil {
		p.t.Fatal(err)
	}
	return code, string(summary)
}

// opened runs check on the pull_request event.
func (p *actionsPR) opened() (int, string) {
	return p.run(p.gh.PullRequestEvent("acme", "contracts", p.n, "opened", "producer"))
}

// approve has login approve the head commit and runs check on the review's event.
func (p *actionsPR) approve(login string, at time.Time) (int, string) {
	id := p.gh.AddReviewOnCommit("acme", "contracts", p.n, login, "APPROVED", p.head, at)
	return p.run(p.gh.ReviewEvent("acme", "contracts", p.n, id, "submitted"))
}

// status is the state of the head commit's latest contractbot status.
func (p *actionsPR) status() string {
	for _, s := range p.gh.Statuses("acme", "contracts", p.head) { // newest first
		if s.GetContext() == bot.GateName("main") {
			return s.GetState()
		}
	}
	return ""
}

// comment checks there is one sticky comment, by the workflow's login, whose text is
// the step summary, and returns its body.
func (p *actionsPR) comment(summary string) string {
	p.t.Helper()
	var mine []string
	for _, c := range p.gh.Comments("acme", "contracts", p.n) {
		if bot.IsBotComment(c.GetBody()) {
			if c.GetUser().GetLogin() != githubfake.ActionsLogin {
				p.t.Errorf("the sticky comment is written by %s, want %s", c.GetUser().GetLogin(), githubfake.ActionsLogin)
			}
			mine = append(mine, c.GetBody())
		}
	}
	if len(mine) != 1 {
		p.t.Fatalf("%d sticky comments, want 1", len(mine))
	}
	if !strings.HasPrefix(mine[0], bot.Marker+"\n"+summary+"\n\n<!-- contractbot:state ") {
		p.t.Errorf("the step summary is not the comment's text:\nsummary:\n%s\ncomment:\n%s", summary, mine[0])
	}
	if _, err := bot.ParseState([]byte("actions-test-key"), "acme/contracts#1", mine[0]); err != nil {
		p.t.Errorf("the comment's state does not verify: %v", err)
	}
	return mine[0]
}

// amountToString is a BREAKING change: orders.order-created-value's amount becomes a
// string, and data-warehouse's and platform's consumers read it.
func amountToString(t *testing.T, dir string) {
	testutil.EditFile(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"), `      "name": "amount",
      "type": "long",`, `      "name": "amount",
      "type": "string",`)
}

// TestActionsBreakingNeedsEveryTeam: in a workflow, a BREAKING change exits 1 until a
// member of each required team approves (members read through the API with a token
// that can read teams), then 0; the status follows, the step summary is the sticky
// comment's text, and one comment is kept.
func TestActionsBreakingNeedsEveryTeam(t *testing.T) {
	p := newActionsPR(t, nil, amountToString)
	p.gh.AddToken("ghp_teams_reader", "org-reader")
	t.Setenv("CONTRACTBOT_TEAMS_TOKEN", "ghp_teams_reader")
	p.gh.AddTeamMember("acme", "data-warehouse", "dw-lead")
	p.gh.AddTeamMember("acme", "data-platform", "platform-lead")

	code, summary := p.opened()
	if code != 1 || p.status() != "pending" {
		t.Fatalf("BREAKING without approvals: exit %d, status %q; want 1, pending", code, p.status())
	}
	checkGolden(t, filepath.Join("..", "check", "actions-breaking-opened.md"), summary)
	p.comment(summary)

	if code, _ := p.approve("dw-lead", opened.Add(10*time.Minute)); code != 1 {
		t.Fatalf("one team of two approved: exit %d, want 1", code)
	}
	if code, _ := p.approve("outsider", opened.Add(15*time.Minute)); code != 1 {
		t.Fatalf("an approval by someone in neither team: exit %d, want 1", code)
	}
	code, summary = p.approve("platform-lead", opened.Add(20*time.Minute))
	if code != 0 || p.status() != "success" {
		t.Fatalf("every team approved: exit %d, status %q; want 0, success\n%s", code, p.status(), summary)
	}
	checkGolden(t, filepath.Join("..", "check", "actions-breaking-approved.md"), summary)
	p.comment(summary)
}

// TestActionsMembersFromTeamsFile: with only the workflow's GITHUB_TOKEN (which cannot
// list team members) the approvals of team members do not count, and check says why;
// members listed in the base's teams.yaml do; a list the change itself adds does not.
func TestActionsMembersFromTeamsFile(t *testing.T) {
	listMembers := func(t *testing.T, dir string) {
		teams := filepath.Join(dir, "contracts/teams.yaml")
		testutil.EditFile(t, teams, `    github: ["@acme/data-platform"]`, `    github: ["@acme/data-platform"]
    members: ["@platform-lead"]`)
		testutil.EditFile(t, teams, `    github: ["@acme/data-warehouse"]`, `    github: ["@acme/data-warehouse"]
    members: ["@dw-lead"]`)
	}
	t.Run("without a list", func(t *testing.T) {
		p := newActionsPR(t, nil, amountToString)
		p.approve("dw-lead", opened.Add(time.Minute))
		p.gh.AddTeamMember("acme", "data-warehouse", "dw-lead")
		p.gh.AddTeamMember("acme", "data-platform", "platform-lead")
		_, errOut, code := runCLI(t, "check", "--repo", p.repo.Dir, "--now", checkAt)
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		if !strings.Contains(errOut, "GITHUB_TOKEN cannot read an organisation's teams") {
			t.Errorf("check does not say why the team's members are unknown:\n%s", errOut)
		}
	})
	t.Run("listed in the base", func(t *testing.T) {
		p := newActionsPR(t, listMembers, amountToString)
		if code, _ := p.opened(); code != 1 {
			t.Fatalf("no approvals: exit %d, want 1", code)
		}
		if code, _ := p.approve("dw-lead", opened.Add(time.Minute)); code != 1 {
			t.Fatalf("one team of two: exit %d, want 1", code)
		}
		if code, s := p.approve("platform-lead", opened.Add(2*time.Minute)); code != 0 || p.status() != "success" {
			t.Fatalf("both teams: exit %d, status %q, want 0, success\n%s", code, p.status(), s)
		}
		if n := p.gh.Count("GET", "/orgs/{org}/teams/{slug}/members"); n != 0 {
			t.Errorf("teams listed in teams.yaml were read through the API %d times", n)
		}
	})
	t.Run("listed by the change", func(t *testing.T) {
		p := newActionsPR(t, nil, func(t *testing.T, dir string) { listMembers(t, dir); amountToString(t, dir) })
		p.approve("dw-lead", opened.Add(time.Minute))
		if code, _ := p.approve("platform-lead", opened.Add(2*time.Minute)); code != 1 {
			t.Fatalf("members the pull request lists itself count: exit %d, want 1", code)
		}
	})
}

// TestActionsCompatibleNeedsSignOffs: a COMPATIBLE change that needs sign-offs (a
// new enum symbol two consumers read) exits 1 in a workflow until both teams approve:
// before readiness, check let it through with 0. A dismissed approval takes it back.
func TestActionsCompatibleNeedsSignOffs(t *testing.T) {
	p := newActionsPR(t, nil, func(t *testing.T, dir string) {
		testutil.EditFile(t, filepath.Join(dir, "contracts/users/user-profile/user_profile.avsc"),
			`"symbols": ["REGULAR", "SILVER", "GOLD", "PLATINUM"]`, `"symbols": ["REGULAR", "SILVER", "GOLD", "PLATINUM", "DIAMOND"]`)
	})
	p.gh.AddToken("ghp_teams_reader", "org-reader")
	t.Setenv("CONTRACTBOT_TEAMS_TOKEN", "ghp_teams_reader")
	p.gh.AddTeamMember("acme", "risk", "risk-lead")

	code, summary := p.opened()
	if code != 1 || !strings.HasPrefix(summary, "**COMPATIBLE**: not ready to merge") {
		t.Fatalf("COMPATIBLE without sign-offs: exit %d, want 1:\n%s", code, summary)
	}
	if _, _, old := runCLI(t, "check", "--repo", p.repo.Dir, "--now", checkAt, "--fail-on", "breaking"); old != 0 {
		t.Errorf("--fail-on breaking: exit %d, want 0 (the change is not BREAKING)", old)
	}
	if code, _ := p.approve("risk-lead", opened.Add(time.Minute)); code != 1 {
		t.Fatalf("one team of two: exit %d, want 1", code)
	}
	code, summary = p.approve("pnovak", opened.Add(2*time.Minute)) // engagement's user handle
	if code != 0 || p.status() != "success" {
		t.Fatalf("both teams approved: exit %d, status %q, want 0, success:\n%s", code, p.status(), summary)
	}
	p.comment(summary)
	dismissed := false
	for _, rv := range p.gh.Reviews("acme", "contracts", p.n) {
		if rv.GetUser().GetLogin() == "risk-lead" && !dismissed {
			dismissed = true
			p.gh.DismissReview("acme", "contracts", p.n, rv.GetID())
			if code, _ := p.run(p.gh.ReviewEvent("acme", "contracts", p.n, rv.GetID(), "dismissed")); code != 1 || p.status() != "pending" {
				t.Fatalf("risk's approval dismissed: exit %d, status %q, want 1, pending", code, p.status())
			}
		}
	}
	if !dismissed {
		t.Fatal("risk-lead's review is not on the pull request")
	}
}

// TestCheckExitFollowsReadiness: outside a workflow too, check exits 1 for a change
// that is not ready whatever its class, 0 for one that is, 2 for unusable input.
func TestCheckExitFollowsReadiness(t *testing.T) {
	dir, _ := exampleRepo(t)
	if _, code := checkJSON(t, "--repo", dir); code != 0 {
		t.Errorf("no change: exit %d, want 0", code)
	}
	edit(t, filepath.Join(dir, "contracts/users/user-profile/user_profile.avsc"),
		`"symbols": ["REGULAR", "SILVER", "GOLD", "PLATINUM"]`, `"symbols": ["REGULAR", "SILVER", "GOLD", "PLATINUM", "DIAMOND"]`)
	r, code := checkJSON(t, "--repo", dir)
	if r.Class != "COMPATIBLE" || r.Ready || code != 1 {
		t.Errorf("COMPATIBLE waiting for sign-offs: class %s ready %t exit %d, want exit 1", r.Class, r.Ready, code)
	}
	if _, code := checkJSON(t, "--repo", dir, "--fail-on", "breaking"); code != 0 {
		t.Errorf("--fail-on breaking: exit %d, want 0", code)
	}
	for _, args := range [][]string{{"--fail-on", "never"}, {"--rev", "no-such-revision"}} {
		if _, _, code := runCLI(t, append([]string{"check", "--repo", dir}, args...)...); code != 2 {
			t.Errorf("check %v: exit %d, want 2", args, code)
		}
	}
}

// TestActionsNamedRevisions: in a workflow, check with revisions named evaluates them
// as outside one (the workflows written before the gate keep working); --github with
// revisions is refused.
func TestActionsNamedRevisions(t *testing.T) {
	dir, _ := exampleRepo(t)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_EVENT_PATH", "")
	if r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD"); code != 0 || len(r.Subjects) != 0 {
		t.Errorf("no change between named revisions: exit %d, %d subjects", code, len(r.Subjects))
	}
	if _, errOut, code := runCLI(t, "check", "--repo", dir, "--github", "--against", "HEAD"); code != 2 || !strings.Contains(errOut, "do not apply") {
		t.Errorf("--github with --against: exit %d, want 2: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "check", "--repo", dir); code != 2 || !strings.Contains(errOut, "GITHUB_EVENT_PATH") {
		t.Errorf("no event file: exit %d, want 2 naming GITHUB_EVENT_PATH: %s", code, errOut)
	}
}
