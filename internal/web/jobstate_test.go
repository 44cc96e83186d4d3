package web

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// statePR makes the example tree's repository with a pull request's head beside its
// branch: dw.order-detail-value's amount_cents widened from long to double (a
// change Avro's resolution allows) and a new field. dws-gmv-1min keeps amount_cents
// in POJO state, which cannot change a field's declared type. The branch served
// stays at the example tree, with a commit per change of before; the head's hash is
// returned.
func statePR(t *testing.T, before ...func(t *testing.T, dir string)) (*git.Repository, string) {
	t.Helper()
	r := testutil.ExampleRepo(t)
	for _, c := range before {
		c(t, r.Dir)
		r.Commit("change")
	}
	r.Branch("widen-amount")
	r.Edit("contracts/dw/order-detail/order_detail.avsc", `{"name": "amount_cents", "type": "long"`, `{"name": "amount_cents", "type": "double"`)
	r.Edit("contracts/dw/order-detail/order_detail.avsc", `{"name": "currency", "type": "string"`,
		`{"name": "discount_cents", "type": "long", "default": 0, "doc": "Discount granted, in cents of currency."},
    {"name": "currency", "type": "string"`)
	head := r.Commit("widen amount_cents to double; discount_cents")
	wt, err := r.Git.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("master")}); err != nil {
		t.Fatal(err)
	}
	return r.Git, head.String()
}

// TestJobRecoverability: the entry of a job with state: on the page of the subject it
// reads shows its recoverability against the open pull requests that change the
// subject, evaluated as the bot evaluates them: a widening Avro allows is still
// unrecoverable for POJO state, field by field with the serializer's rule; a pull
// request whose head the server's repository lacks is named with how to fetch it;
// without the bot the figure is computed against the pull request a planned change
// names when its head was fetched, else not computed, and the page says why. Goldens
// subject-dw.order-detail-value.html and subject-dw.order-detail-value-planned.html.
func TestJobRecoverability(t *testing.T) {
	repo, head := statePR(t)
	srv := pagesServerWith(t, repo, statePRs(head))

	_, body := get(t, srv, "/subjects/dw.order-detail-value")
	golden(t, "subject-dw.order-detail-value.html", body)
	job := consumerEntry(t, body, "dws-gmv-1min")
	for _, want := range []string{
		"POJO serializer", "1 of 3 fields in state cannot be restored", "<code>amount_cents</code>", "<code>promoted</code>",
		"POJO state cannot change a field&#39;s declared type", "pull/70", "pull/71", "not in this server&#39;s repository", "refs/pull/*/head",
		"No state-migration entry is planned",
	} {
		if !strings.Contains(job, want) {
			t.Errorf("the state of dws-gmv-1min lacks %q:\n%s", want, job)
		}
	}
	for _, not := range []string{"discount_cents", "pull/72"} {
		if strings.Contains(job, not) {
			t.Errorf("the state of dws-gmv-1min names %q, which is not a change to a field it keeps", not)
		}
	}
	if entry := consumerEntry(t, body, "clickhouse-order-detail"); strings.Contains(entry, "Recoverability") {
		t.Errorf("a sink without state: shows a recoverability figure")
	}

	// Without the bot the figure is computed against the pull request the planned
	// change names (the example's calendar/2026-12-08-split-order-amount.yaml, #42),
	// when the repository has its head; else it is not computed, and the page says why.
	_, body = get(t, pagesServer(t, repo), "/subjects/dw.order-detail-value")
	job = consumerEntry(t, body, "dws-gmv-1min")
	contains(t, "without the bot or the planned pull request's head, the job's state", job,
		"Recoverability:</strong> not computed. The bot is not connected", "could not be evaluated",
		"Planned change <code>calendar/2026-12-08-split-order-amount.yaml</code>, pull request #42", "its head is not in this server&#39;s repository")
	if err := repo.Storer.SetReference(plumbing.NewHashReference("refs/remotes/origin/pull/42/head", plumbing.NewHash(head))); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, pagesServer(t, repo), "/subjects/dw.order-detail-value")
	job = consumerEntry(t, body, "dws-gmv-1min")
	contains(t, "without the bot, with the planned pull request's head fetched, the job's state", job,
		"1 of 3 fields in state cannot be restored", "planned changes in calendar/",
		"Planned change <code>calendar/2026-12-08-split-order-amount.yaml</code>, pull request #42", "<code>promoted</code>")
	golden(t, "subject-dw.order-detail-value-planned.html", body)
}

// statePRs are open pull requests of dw.order-detail-value: #70 at head (from
// statePR), #71 at a head no repository has, and #72 of another subject.
func statePRs(head string) fakeSource {
	return fakeSource{prs: []PullRequestStatus{
		{Repo: "acme/contracts", Number: 70, URL: "https://github.com/acme/contracts/pull/70", Title: "Widen amount_cents",
			Class: "breaking", HeadSHA: head, EvaluatedAt: pagesNow, Subjects: []string{"dw.order-detail-value"}},
		{Repo: "acme/contracts", Number: 71, URL: "https://github.com/acme/contracts/pull/71", Title: "Not fetched here",
			Class: "compatible", HeadSHA: "0123456789abcdef0123456789abcdef01234567", EvaluatedAt: pagesNow, Subjects: []string{"dw.order-detail-value"}},
		{Repo: "acme/contracts", Number: 72, Title: "Another subject", HeadSHA: head, Subjects: []string{"orders.order-created-value"}},
	}}
}

// contains fails the test for every one of wants that text lacks.
func contains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// consumerEntry returns the <li> of a consumer on a subject page.
func consumerEntry(t *testing.T, body, name string) string {
	t.Helper()
	body = plain(body)
	i := strings.Index(body, `<li id="consumer-`+name+`">`)
	if i < 0 {
		t.Fatalf("the page has no entry for consumer %s", name)
	}
	e := body[i:]
	return e[:strings.Index(e, "\n</li>")]
}

// A pull request whose head does not pass lint cannot be judged: the job's entry says
// so rather than that it changes no field in state.
func TestJobRecoverabilityLintFailingHead(t *testing.T) {
	r := testutil.ExampleRepo(t)
	r.Branch("bad")
	r.Edit("contracts/dw/order-detail/order_detail.avsc", `{"name": "amount_cents", "type": "long"`, `{"name": "amount_cents", "type": "double"`)
	r.Edit("contracts/dw/order-detail/contract.yaml", "fields:\n", "fields:\n  user_id:\n    doc: twice\n")
	head := r.Commit("widen amount_cents; user_id twice in contract.yaml")
	wt, err := r.Git.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("master")}); err != nil {
		t.Fatal(err)
	}
	srv := pagesServerWith(t, r.Git, fakeSource{prs: []PullRequestStatus{{Repo: "acme/contracts", Number: 73, HeadSHA: head.String(), Subjects: []string{"dw.order-detail-value"}}}})
	_, body := get(t, srv, "/subjects/dw.order-detail-value")
	job := consumerEntry(t, body, "dws-gmv-1min")
	if !strings.Contains(job, "does not pass lint (1 error)") || !strings.Contains(job, "not computed") {
		t.Errorf("a head that fails lint should leave the figure not computed and say why:\n%s", job)
	}
}
