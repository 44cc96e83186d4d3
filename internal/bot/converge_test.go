package bot

import (
	"context"
	"fmt"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/bot/memory"
	"github.com/contractbot/contractbot/internal/githubfake"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

// botLogin is the login the bot writes as in the tests (githubfake's default).
const botLogin = githubfake.DefaultBotLogin

// testKey signs the bot's comments in the tests; testSettle is how long a claim of
// Slack messages settles.
var (
	testKey    = DeriveStateKey([]byte("test webhook secret"))
	testSettle = 20 * time.Millisecond
)

// runConverge runs the pipeline's converge stage on a report, with prev as the
// verified state of the previous evaluation.
func runConverge(t *testing.T, gh *recorder, pr PullRequest, r *verdict.Report, prev *State, markdown string) error {
	t.Helper()
	b := &Bot{Self: botLogin, StateKey: testKey, Clock: clock.Func(func() time.Time { return r.Now }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ev := &evaluation{gh: &onceGitHub{GitHub: gh}, pr: &pr, report: r, markdown: markdown, log: b.Log, mem: memory.Memory{State: prev}}
	ev.next = carried(prev, r)
	return b.converge(context.Background(), ev)
}

// recorder is an in-memory GitHub that records what the bot did.
type recorder struct {
	pr        *PullRequest
	reviews   []verdict.Review
	members   map[string][]string // "org/slug" -> logins
	comments  []Comment
	nextID    int64
	checks    map[string]int64 // sha -> id
	runs      map[int64][]CheckRunInput
	requested [][2][]string
	labels    map[string]bool
	calls     []string
	// clock is GitHub's clock, for the comments' created_at and updated_at (time.Now
	// when nil).
	clock func() time.Time
}

func (g *recorder) now() time.Time {
	if g.clock == nil {
		return time.Now()
	}
	return g.clock()
}

func newRecorder() *recorder {
	return &recorder{checks: map[string]int64{}, runs: map[int64][]CheckRunInput{}, labels: map[string]bool{}}
}

func (g *recorder) GetPullRequest(context.Context, string, string, int) (*PullRequest, error) {
	if g.pr == nil {
		return nil, fmt.Errorf("404 pull request")
	}
	pr := *g.pr
	pr.Labels = g.labelList()
	return &pr, nil
}
func (g *recorder) CommitStatuses(context.Context, string, string, string, string, string) ([]string, error) {
	return nil, nil
}
func (g *recorder) CreateStatus(context.Context, string, string, string, githubapi.Status) error {
	return nil
}
func (g *recorder) OpenPullRequests(context.Context, string, string) ([]int, error) {
	if g.pr == nil {
		return nil, nil
	}
	return []int{g.pr.Number}, nil
}
func (g *recorder) ListOpenPullRequests(context.Context, string, string, string) ([]PullRequest, error) {
	if g.pr == nil {
		return nil, nil
	}
	return []PullRequest{*g.pr}, nil
}
func (g *recorder) PullRequestsOfCommit(context.Context, string, string, string) ([]PullRequest, error) {
	if g.pr == nil {
		return nil, nil
	}
	return []PullRequest{*g.pr}, nil
}
func (g *recorder) BranchHead(context.Context, string, string, string) (string, error) {
	if g.pr == nil {
		return "", fmt.Errorf("404 branch")
	}
	return g.pr.BaseSHA, nil
}
func (g *recorder) ListReviews(context.Context, string, string, int) ([]verdict.Review, error) {
	return g.reviews, nil
}
func (g *recorder) ReviewRequests(context.Context, string, string, int) ([]githubapi.ReviewRequest, error) {
	return nil, nil
}
func (g *recorder) TeamMembers(_ context.Context, org, slug string) ([]string, error) {
	g.calls = append(g.calls, "members "+org+"/"+slug)
	return g.members[org+"/"+slug], nil
}
func (g *recorder) ListComments(context.Context, string, string, int) ([]Comment, error) {
	g.calls = append(g.calls, "list-comments")
	return append([]Comment(nil), g.comments...), nil
}
func (g *recorder) CreateComment(_ context.Context, _, _ string, _ int, body string) (Comment, error) {
	g.calls = append(g.calls, "create-comment")
	g.nextID++
	c := Comment{ID: g.nextID, Body: body, Login: botLogin, CreatedAt: g.now(), UpdatedAt: g.now()}
	g.comments = append(g.comments, c)
	return c, nil
}
func (g *recorder) EditComment(_ context.Context, _, _ string, id int64, body string) error {
	g.calls = append(g.calls, "edit-comment")
	for i := range g.comments {
		if g.comments[i].ID == id {
			g.comments[i].Body, g.comments[i].UpdatedAt = body, g.now()
			return nil
		}
	}
	return fmt.Errorf("404 comment %d", id)
}
func (g *recorder) FindCheckRun(_ context.Context, _, _, sha, _, _ string) (CheckRunRef, bool, error) {
	id, ok := g.checks[sha]
	return CheckRunRef{ID: id}, ok, nil
}
func (g *recorder) CreateCheckRun(_ context.Context, _, _ string, in CheckRunInput) (int64, error) {
	g.calls = append(g.calls, "create-check")
	if len(in.Annotations) > MaxAnnotations {
		return 0, fmt.Errorf("422: more than %d annotations", MaxAnnotations)
	}
	g.nextID++
	g.checks[in.HeadSHA] = g.nextID
	g.runs[g.nextID] = append(g.runs[g.nextID], in)
	return g.nextID, nil
}
func (g *recorder) UpdateCheckRun(_ context.Context, _, _ string, id int64, in CheckRunInput) error {
	g.calls = append(g.calls, "update-check")
	if len(in.Annotations) > MaxAnnotations {
		return fmt.Errorf("422: more than %d annotations", MaxAnnotations)
	}
	g.runs[id] = append(g.runs[id], in)
	return nil
}
func (g *recorder) RequestReviewers(_ context.Context, _, _ string, _ int, users, teams []string) error {
	g.requested = append(g.requested, [2][]string{users, teams})
	return nil
}
func (g *recorder) AddLabels(_ context.Context, _, _ string, _ int, labels []string) error {
	for _, l := range labels {
		g.labels[l] = true
	}
	return nil
}
func (g *recorder) RemoveLabel(_ context.Context, _, _ string, _ int, label string) error {
	delete(g.labels, label)
	return nil
}

func (g *recorder) labelList() []string {
	var out []string
	for _, l := range ManagedLabels {
		if g.labels[l] {
			out = append(out, l)
		}
	}
	return out
}

// evaluate runs the verdict on the example tree with the order amount removed.
func evaluate(t *testing.T, prior map[string]verdict.TeamState, reviews []verdict.Review) *verdict.Report {
	t.Helper()
	base := contract.MemSource(testutil.ExampleFiles(t))
	head := contract.MemSource(testutil.ExampleFiles(t))
	f := "contracts/orders/order-created/order_created.avsc"
	head[f] = []byte(strings.Replace(string(base[f]), `"type": "long",
      "doc": "Order total`, `"type": "string",
      "doc": "Order total`, 1))
	bt, err := contract.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	ht, err := contract.Load(head)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	return verdict.Assess(verdict.Input{Base: bt, Head: ht, OpenedAt: at, Now: at, Prior: prior, Reviews: reviews,
		Members: map[string][]string{"@acme/data-warehouse": {"dana"}}})
}

func TestConvergeIsIdempotent(t *testing.T) {
	gh := newRecorder()
	pr := PullRequest{Owner: "acme", Repo: "contracts", Number: 7, HeadSHA: "sha1", Labels: []string{"team: orders"}}
	r := evaluate(t, nil, nil)
	if r.Class != verdict.Breaking {
		t.Fatalf("class %s", r.Class)
	}
	if err := runConverge(t, gh, pr, r, nil, verdict.Markdown(r, verdict.MarkdownOptions{})); err != nil {
		t.Fatal(err)
	}
	if len(gh.comments) != 1 || !IsBotComment(gh.comments[0].Body) {
		t.Fatalf("comments: %d", len(gh.comments))
	}
	if got := gh.labelList(); !reflect.DeepEqual(got, []string{LabelBreaking}) {
		t.Errorf("labels %v", got)
	}
	if len(gh.requested) != 1 || !reflect.DeepEqual(gh.requested[0][1], []string{"data-warehouse", "data-platform"}) {
		t.Errorf("review requests %v", gh.requested)
	}
	run := gh.runs[gh.checks["sha1"]]
	if len(run) != 1 || run[0].Conclusion != ConclusionActionRequired || len(run[0].Annotations) == 0 {
		t.Errorf("check run %+v", run)
	}

	// The same event again (a duplicate delivery, or another replica): nothing new.
	pr.Labels = append(pr.Labels, gh.labelList()...)
	body := gh.comments[0].Body
	read, err := ParseState(testKey, commentRef(pr), body)
	if err != nil {
		t.Fatal(err)
	}
	r2 := evaluate(t, read.Teams, nil)
	if err := runConverge(t, gh, pr, r2, &read, verdict.Markdown(r2, verdict.MarkdownOptions{})); err != nil {
		t.Fatal(err)
	}
	if len(gh.comments) != 1 || gh.comments[0].Body != body {
		t.Error("a second convergence changed or added a comment")
	}
	if len(gh.requested) != 1 {
		t.Errorf("teams asked again: %v", gh.requested)
	}

	// data-warehouse approves: its sign-off counts; the label and check follow.
	reviews := []verdict.Review{{Login: "dana", State: "APPROVED", SubmittedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}}
	r3 := evaluate(t, read.Teams, reviews)
	if err := runConverge(t, gh, pr, r3, &read, verdict.Markdown(r3, verdict.MarkdownOptions{})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gh.comments[0].Body, "approved by @dana") {
		t.Errorf("the comment does not show the approval:\n%s", gh.comments[0].Body)
	}
}

func TestConvergeBatchesAnnotationsAndFixesDuplicates(t *testing.T) {
	gh := newRecorder()
	gh.comments = []Comment{{ID: 99, Body: Marker + "\nforged", Login: "mallory"}, {ID: 100, Body: Marker + "\nold", Login: botLogin},
		{ID: 101, Body: "a person's comment", Login: "olivia"}, {ID: 102, Body: Marker + "\nrace", Login: botLogin}}
	gh.nextID = 200
	pr := PullRequest{Owner: "acme", Repo: "contracts", Number: 7, HeadSHA: "sha2"}
	r := evaluate(t, nil, nil)
	for i := 0; i < 120; i++ { // many lint errors: many annotations
		r.Lint = append(r.Lint, contract.Diagnostic{Span: located.Span{File: "contracts/x.yaml", Line: i + 1, Column: 1}, Severity: contract.Error, Code: "yaml-syntax", Message: "m"})
	}
	if err := runConverge(t, gh, pr, r, nil, "body"); err != nil {
		t.Fatal(err)
	}
	if len(gh.comments) != 4 || gh.comments[0].Body != Marker+"\nforged" || !strings.Contains(gh.comments[1].Body, "body") ||
		!strings.Contains(gh.comments[3].Body, "superseded") || gh.comments[2].Body != "a person's comment" {
		t.Errorf("comments after convergence: %+v", gh.comments)
	}
	run := gh.runs[gh.checks["sha2"]]
	total := 0
	for _, in := range run {
		total += len(in.Annotations)
		if in.Conclusion != ConclusionFailure {
			t.Errorf("conclusion %s with lint errors", in.Conclusion)
		}
	}
	if len(run) < 3 || total != len(verdict.Annotations(r)) {
		t.Errorf("%d requests carrying %d annotations, want batches of at most 50 carrying %d", len(run), total, len(verdict.Annotations(r)))
	}
}

func TestConvergeSendsAtMostTheCheckRunBudget(t *testing.T) {
	gh := newRecorder()
	pr := PullRequest{Owner: "acme", Repo: "contracts", Number: 7, HeadSHA: "sha3"}
	r := evaluate(t, nil, nil)
	for i := 0; i < 700; i++ {
		r.Lint = append(r.Lint, contract.Diagnostic{Span: located.Span{File: "contracts/x.yaml", Line: i + 1, Column: 1}, Severity: contract.Error, Code: "yaml-syntax", Message: "m"})
	}
	if err := runConverge(t, gh, pr, r, nil, "body"); err != nil {
		t.Fatal(err)
	}
	run := gh.runs[gh.checks["sha3"]]
	total := 0
	for _, in := range run {
		total += len(in.Annotations)
	}
	want := verdict.MaxCheckRunAnnotations / verdict.AnnotationsPerRequest
	if len(run) != want || total != verdict.MaxCheckRunAnnotations {
		t.Errorf("%d requests carrying %d annotations, want %d carrying %d", len(run), total, want, verdict.MaxCheckRunAnnotations)
	}
	extra := len(verdict.Annotations(r)) - verdict.MaxCheckRunAnnotations
	if !strings.Contains(run[0].Summary, fmt.Sprintf("%d more annotations", extra)) {
		t.Errorf("the check run's summary does not count the %d annotations left out", extra)
	}
}
