package bot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

// The gate judges the merge (issue 25): what is evaluated is what merging the head
// does to the base branch as it is now, and the gate is per base branch.

// onBase commits edit on branch of the test repository (created at from when it does
// not exist) and moves the fake's branch there, as a push to the base does; the pull
// request's branch stays checked out.
func (g *gate) onBase(branch string, from plumbing.Hash, edit func(r *testutil.Repo)) plumbing.Hash {
	g.t.Helper()
	wt, err := g.repo.Git.Worktree()
	if err != nil {
		g.t.Fatal(err)
	}
	ref := plumbing.NewBranchReferenceName(branch)
	opt := &git.CheckoutOptions{Branch: ref}
	if _, err := g.repo.Git.Reference(ref, false); err != nil {
		opt.Hash, opt.Create = from, true
	}
	if err := wt.Checkout(opt); err != nil {
		g.t.Fatal(err)
	}
	edit(g.repo)
	sha := g.repo.Commit("on " + branch)
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("change")}); err != nil {
		g.t.Fatal(err)
	}
	g.fake.SetBranch("acme", "contracts", branch, sha.String())
	return sha
}

// forkHead leaves the head on no branch of the repository, under refs/pull/N/head
// only, as a pull request from a fork is.
func (g *gate) forkHead() {
	g.t.Helper()
	wt, err := g.repo.Git.Worktree()
	if err != nil {
		g.t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("master")}); err != nil {
		g.t.Fatal(err)
	}
	ref := plumbing.NewHashReference(plumbing.ReferenceName(fmt.Sprintf("refs/pull/%d/head", g.n)), g.head)
	if err := g.repo.Git.Storer.SetReference(ref); err != nil {
		g.t.Fatal(err)
	}
	if err := g.repo.Git.Storer.RemoveReference(plumbing.NewBranchReferenceName("change")); err != nil {
		g.t.Fatal(err)
	}
}

// gateOn is the conclusion of the newest check run called name on sha.
func (g *gate) gateOn(sha plumbing.Hash, name string) string {
	out := "(no check run " + name + ")"
	for _, r := range g.fake.CheckRuns("acme", "contracts", sha.String()) {
		if r.GetName() == name {
			out = r.GetConclusion()
		}
	}
	return out
}

// deliver routes a webhook payload to b and runs its job, as the queue would.
func (g *gate) deliver(b *Bot, event string, payload any) {
	g.t.Helper()
	data, err := jsonOf(payload)
	if err != nil {
		g.t.Fatal(err)
	}
	job, err := b.Route(server.Delivery{ID: event + g.now.String(), Event: event, Payload: data})
	if err != nil || job == nil {
		g.t.Fatalf("%s: job %v, err %v", event, job, err)
	}
	if err := job.Run(context.Background()); err != nil {
		g.t.Fatal(err)
	}
}

// TestTwoPullRequestsOneHeadIntoTwoBases: the breaking change goes to master (two
// teams must sign off); a second pull request from the same branch into release,
// which already has the change (nothing to judge there: ready), is evaluated after
// it. Each base has its own gate on the shared head commit: release's success does
// not turn master's green, in either order, and closing the second changes nothing.
func TestTwoPullRequestsOneHeadIntoTwoBases(t *testing.T) {
	g := newGate(t, opened, amountToString)
	release := g.onBase("release", g.base, amountToString)
	second := g.fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: g.head.String(), BaseSHA: release.String(), BaseRef: "release"})
	b := g.bot()
	g.evaluate(b)
	if err := b.Evaluate(context.Background(), "acme", "contracts", second, b.Log); err != nil {
		t.Fatal(err)
	}
	master, rel := g.gateOn(g.head, GateName("master")), g.gateOn(g.head, GateName("release"))
	if master != ConclusionActionRequired || rel != ConclusionSuccess {
		t.Fatalf("gates on the shared head: master %s, release %s; want %s and %s", master, rel, ConclusionActionRequired, ConclusionSuccess)
	}
	g.advance(time.Minute)
	g.evaluate(b) // master's again, then release's again: neither touches the other
	if err := b.Evaluate(context.Background(), "acme", "contracts", second, b.Log); err != nil {
		t.Fatal(err)
	}
	g.fake.SetState("acme", "contracts", second, "closed")
	if master := g.gateOn(g.head, GateName("master")); master != ConclusionActionRequired {
		t.Errorf("master's gate %s after release's pull request was judged ready and closed", master)
	}
	for _, r := range g.fake.CheckRuns("acme", "contracts", g.head.String()) {
		if r.GetName() == CheckName {
			t.Errorf("a check run called %q (one for every base) was written", CheckName)
		}
	}
}

// withoutOrderConsumers is a branch point older than order-created's consumer files,
// at compatibility NONE: changing the amount's type breaks nobody there.
func withoutOrderConsumers(r *testutil.Repo) {
	if err := os.RemoveAll(filepath.Join(r.Dir, "contracts/orders/order-created/consumers")); err != nil {
		panic(err)
	}
	r.Edit("contracts/orders/order-created/contract.yaml", "compatibility: BACKWARD_TRANSITIVE", "compatibility: NONE")
}

// registerOrderConsumers adds order-created's consumer files back (on the base).
func registerOrderConsumers(t *testing.T) func(r *testutil.Repo) {
	return func(r *testutil.Repo) {
		for name, data := range testutil.ExampleFiles(t) {
			if strings.HasPrefix(name, "contracts/orders/order-created/consumers/") {
				r.Write(name, string(data))
			}
		}
	}
}

// mustSignOff says whether the state the bot signed in its comment requires team to
// sign off: the sign-offs it records, not a mention of the team anywhere in the text.
func (g *gate) mustSignOff(team string) bool {
	g.t.Helper()
	st, err := ParseState(testKey, fmt.Sprintf("acme/contracts#%d", g.n), g.botComment().GetBody())
	if err != nil {
		g.t.Fatalf("the bot's comment holds no state it signed: %v", err)
	}
	for _, so := range st.SignOffs {
		if so.Team == team {
			return true
		}
	}
	return false
}

// TestConsumerRegisteredOnTheBaseIsAsked: a pull request branched before
// order-created had consumers changes the amount's type. Judged against its branch
// point nobody reads the amount; judged against master, which registered
// dwd-order-detail (data-warehouse) and ods-order-archive (platform) since, both
// must sign off: at once when master already has them (an old branch point, or a
// fork), and when master gets them while the pull request is open, on the push to
// master (and on /contractbot recheck).
func TestConsumerRegisteredOnTheBaseIsAsked(t *testing.T) {
	for _, fork := range []bool{false, true} {
		t.Run(fmt.Sprintf("old branch point, fork %t", fork), func(t *testing.T) {
			g := newGateOn(t, opened, withoutOrderConsumers, amountToString)
			g.onBase("master", g.base, registerOrderConsumers(t))
			if fork { // the head is on no branch of the repository, only refs/pull/N/head
				g.forkHead()
			}
			g.evaluate(g.bot())
			if c := g.conclusion(); c != ConclusionActionRequired || !g.mustSignOff("data-warehouse") || !g.mustSignOff("platform") {
				t.Errorf("check %s; comment:\n%s", c, readable(g.botComment().GetBody()))
			}
		})
	}
	for _, how := range []string{"push", "recheck"} {
		t.Run("registered while open, then "+how, func(t *testing.T) {
			g := newGateOn(t, opened, withoutOrderConsumers, amountToString)
			b := g.bot()
			g.evaluate(b)
			if g.mustSignOff("data-warehouse") {
				t.Fatalf("data-warehouse asked before its consumer exists:\n%s", readable(g.botComment().GetBody()))
			}
			g.advance(time.Hour)
			tip := g.onBase("master", g.base, registerOrderConsumers(t))
			if how == "push" {
				g.deliver(b, "push", g.fake.PushEvent("acme", "contracts", "master", g.base.String(), tip.String(), "wendy"))
			} else {
				g.say(b, "olivia", "/contractbot recheck")
			}
			if c := g.conclusion(); c != ConclusionActionRequired || !g.mustSignOff("data-warehouse") {
				t.Errorf("after the consumer was registered on master and a %s: check %s; comment:\n%s", how, c, readable(g.botComment().GetBody()))
			}
			if _, teams := g.fake.RequestedReviewers("acme", "contracts", g.n); !slices.Contains(teams, "data-warehouse") {
				t.Errorf("reviews requested from the teams %v, not from the consumer's team data-warehouse", teams)
			}
		})
	}
}

// TestFreezeAddedToTheBaseHolds: a freeze added to master after the pull request
// branched holds it: the freezes of the base's tip count, not the branch point's.
// The change has everything it needs (both sign-offs, the calendar entry) and its
// gate is green; once master gets a freeze over the entry's window, the same pull
// request's gate is not, the verdict says it is in a freeze, and the freeze is not
// taken for a change the pull request makes to the rules.
func TestFreezeAddedToTheBaseHolds(t *testing.T) {
	g, b := openGate(t, amountToString)
	g.approve("dana", "pat")
	g.evaluate(b)
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("before the freeze, with both sign-offs and the calendar entry: check %s; comment:\n%s", c, readable(g.botComment().GetBody()))
	}
	g.advance(time.Minute)
	g.onBase("master", g.base, func(r *testutil.Repo) {
		r.Edit("calendar/freezes.yaml", "freezes:\n", "freezes:\n  - name: incident-1234\n    reason: The order pipeline is recovering from an incident.\n    start: \"2026-11-30T00:00\"\n    end: \"2026-12-31T00:00\"\n    timezone: UTC\n    scope: {everything: true}\n\n")
	})
	g.evaluate(b)
	body := g.botComment().GetBody()
	if c := g.conclusion(); c != ConclusionActionRequired {
		t.Errorf("after the freeze was added to master: check %s, want %s", c, ConclusionActionRequired)
	}
	runs := g.fake.CheckRuns("acme", "contracts", g.head.String())
	if title := runs[len(runs)-1].GetOutput().GetTitle(); title == checkTitle(&verdict.Report{Class: verdict.Breaking, Ready: true}) {
		t.Errorf("check run title %q", title)
	}
	if !strings.Contains(body, "not ready to merge (") || !strings.Contains(body, "in a freeze).") ||
		!strings.Contains(body, "freeze `incident-1234` is in force until Thu 2026-12-31 00:00 UTC") {
		t.Errorf("the verdict does not say the freeze holds the change:\n%s", readable(body))
	}
	if strings.Contains(body, "Changes to the rules") {
		t.Errorf("the base's freeze is taken for the pull request's change to the rules:\n%s", readable(body))
	}
}

// TestTwoPullRequestsOneHeadOneBase: two forks' branches at one commit, both into
// master, share the gate "contractbot: master" on it: an override on one must not
// open the other, so neither is ready while both are open.
func TestTwoPullRequestsOneHeadOneBase(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) { r.Write("README.md", "a change that asks nobody\n") })
	b := g.bot()
	g.evaluate(b)
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Fatalf("check %s for a change that needs nothing", c)
	}
	other := g.fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "mallory", HeadSHA: g.head.String(), BaseSHA: g.base.String(), BaseRef: "master", HeadRef: "fork-branch"})
	g.advance(time.Minute)
	g.evaluate(b)
	if c := g.conclusion(); c != ConclusionActionRequired || !strings.Contains(g.botComment().GetBody(), "close one of them") {
		t.Errorf("check %s while #%d merges the same commit into master; comment:\n%s", c, other, readable(g.botComment().GetBody()))
	}
	g.fake.SetState("acme", "contracts", other, "closed")
	g.advance(time.Minute)
	g.evaluate(b)
	if c := g.conclusion(); c != ConclusionSuccess {
		t.Errorf("check %s once the other pull request is closed", c)
	}
}

// TestGitHubsTestMergeIsUsed: master and the pull request both changed teams.yaml
// (different lines). Without GitHub's test merge the bot applies the change file by
// file, takes the pull request's teams.yaml and says so; with it (merge_commit_sha,
// its parents the tip and the head) the bot judges GitHub's merge, which has both.
func TestGitHubsTestMergeIsUsed(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) {
		amountToString(r)
		r.Edit("contracts/teams.yaml", "teams:\n", "teams:\n# the pull request's line\n")
	})
	tip := g.onBase("master", g.base, func(r *testutil.Repo) { r.Edit("contracts/teams.yaml", "teams:\n", "# master's line\nteams:\n") })
	g.evaluate(g.bot())
	if body := g.botComment().GetBody(); !strings.Contains(body, "both changed contracts/teams.yaml") {
		t.Fatalf("no conflict notice without GitHub's test merge:\n%s", readable(body))
	}
	// GitHub's merge: master's tree with both lines and the schema change.
	merged := g.onBase("github-merge", tip, func(r *testutil.Repo) {
		amountToString(r)
		r.Edit("contracts/teams.yaml", "teams:\n", "teams:\n# the pull request's line\n")
	})
	c, err := g.repo.Git.CommitObject(merged)
	if err != nil {
		t.Fatal(err)
	}
	c.ParentHashes = []plumbing.Hash{tip, g.head}
	obj := g.repo.Git.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatal(err)
	}
	testMerge, err := g.repo.Git.Storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.repo.Git.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(fmt.Sprintf("refs/pull/%d/merge", g.n)), testMerge)); err != nil {
		t.Fatal(err)
	}
	g.fake.SetMergeCommit("acme", "contracts", g.n, testMerge.String())
	g.advance(time.Minute)
	b := g.bot()
	b.Cache = &GitCache{Dir: t.TempDir()} // a clone that fetches the test merge
	g.evaluate(b)
	if body := g.botComment().GetBody(); strings.Contains(body, "both changed") || !g.mustSignOff("data-warehouse") {
		t.Errorf("GitHub's test merge was not judged:\n%s", readable(body))
	}
}
