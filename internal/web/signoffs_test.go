package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fakeSource is an in-memory SignOffSource.
type fakeSource struct {
	prs []PullRequestStatus
	err error
}

func (f fakeSource) OpenPullRequests(context.Context) ([]PullRequestStatus, error) {
	return f.prs, f.err
}

// fakeSignOffs has three pull requests at pagesNow: one fully signed off, one
// pending, one with an overdue sign-off (listed first).
func fakeSignOffs() fakeSource {
	at := func(d time.Duration) time.Time { return pagesNow.Add(d) }
	return fakeSource{prs: []PullRequestStatus{
		{Repo: "acme/contracts", Number: 42, URL: "https://github.com/acme/contracts/pull/42", Title: "Split order amount",
			Class: "breaking", HeadSHA: "0123456789abcdef0123456789abcdef01234567", EvaluatedAt: at(-2 * time.Hour),
			Subjects: []string{"orders.order-created-value", "dw.order-detail-value"},
			Teams: []TeamSignOff{
				{Team: "data-warehouse", Status: SignOffPending, Deadline: at(27 * time.Hour)},
				{Team: "analytics", Status: SignOffApproved, ApprovedBy: "jdoe", Deadline: at(27 * time.Hour)},
			}},
		{Repo: "acme/contracts", Number: 57, URL: "https://github.com/acme/contracts/pull/57", Title: "Add buyer_count",
			Class: "breaking", HeadSHA: "89abcdef0123456789abcdef0123456789abcdef", EvaluatedAt: at(-30 * time.Hour),
			Teams: []TeamSignOff{
				{Team: "orders", Status: SignOffPending, Deadline: at(-5 * time.Hour)}, // pending past its deadline
				{Team: "analytics", Status: SignOffPending, Deadline: at(3 * 24 * time.Hour)},
			}},
		{Repo: "acme/contracts", Number: 61, URL: "https://github.com/acme/contracts/pull/61", Title: "Document a field",
			Class: "additive", EvaluatedAt: at(-1 * time.Hour),
			Teams: []TeamSignOff{{Team: "risk", Status: SignOffApproved, ApprovedBy: "sgarcia"}}},
	}}
}

func TestSignOffRowsOrder(t *testing.T) {
	rows := signOffRows(fakeSignOffs().prs, pagesNow, "")
	var got []int
	for _, r := range rows {
		got = append(got, r.Number)
	}
	if len(got) != 3 || got[0] != 57 || got[1] != 42 || got[2] != 61 {
		t.Fatalf("order %v, want overdue #57, then #42 by deadline, then the signed-off #61", got)
	}
	if !rows[0].Overdue || rows[0].Teams[0].Team != "orders" || rows[0].Teams[0].Status != SignOffOverdue || rows[0].Teams[0].Left != "overdue by 5 hours" {
		t.Errorf("#57: %+v", rows[0].Teams[0])
	}
	if l := rows[1].Teams[0].Left; l != "1 day 3 hours left" {
		t.Errorf("#42 time left %q", l)
	}
	if rows := signOffRows(fakeSignOffs().prs, pagesNow, "orders"); len(rows) != 1 || rows[0].Number != 57 || len(rows[0].Teams) != 1 {
		t.Errorf("filtered to orders: %+v", rows)
	}
}

func TestSignOffPages(t *testing.T) {
	repo := exampleRepo(t)
	// Not connected: the page and the team page say so.
	srv := pagesServer(t, repo)
	if resp, body := get(t, srv, "/signoffs"); resp.StatusCode != http.StatusOK || !strings.Contains(plain(body), "The bot is not connected") {
		t.Errorf("no source: %d, want a page that says the bot is not connected", resp.StatusCode)
	}
	if _, body := get(t, srv, "/teams/orders"); !strings.Contains(plain(body), "The bot is not connected") {
		t.Errorf("team page without a source does not say the bot is not connected")
	}
	// Connected.
	srv = pagesServerWith(t, repo, fakeSignOffs())
	_, body := get(t, srv, "/signoffs")
	i57, i42, i61 := strings.Index(plain(body), ">acme/contracts#57<"), strings.Index(plain(body), ">acme/contracts#42<"), strings.Index(plain(body), ">acme/contracts#61<")
	if i57 < 0 || i42 < i57 || i61 < i42 {
		t.Errorf("sign-off page order: #57 at %d, #42 at %d, #61 at %d; want overdue first", i57, i42, i61)
	}
	for _, want := range []string{"1 overdue (listed first)", "overdue by 5 hours", "approved</strong> by <code>jdoe</code>", `<tr class="overdue">`} {
		if !strings.Contains(plain(body), want) {
			t.Errorf("sign-off page lacks %q", want)
		}
	}
	_, body = get(t, srv, "/teams/orders")
	if !strings.Contains(plain(body), ">acme/contracts#57<") || strings.Contains(plain(body), ">acme/contracts#42<") {
		t.Errorf("orders' page: what waits on it should be #57 only")
	}
	_, body = get(t, srv, "/teams/risk")
	if !strings.Contains(plain(body), "No open pull request waits for this team") {
		t.Errorf("risk has signed off everything; its page should say nothing waits on it")
	}
	// A failing source: a sentence, not a crash.
	srv = pagesServerWith(t, repo, fakeSource{err: errors.New("boom")})
	if resp, body := get(t, srv, "/signoffs"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(plain(body), "could not be read") || strings.Contains(plain(body), "boom") {
		t.Errorf("failing source: %d", resp.StatusCode)
	}
}

func TestTeamPages(t *testing.T) {
	srv := pagesServer(t, exampleRepo(t))
	_, body := get(t, srv, "/teams/orders")
	for _, want := range []string{
		`<a href="/subjects/orders.order-created-value">orders.order-created-value</a>`, // produces
		"Split order amount", // planned
		`href="/calendar/orders.ics"`,
		"Europe/Berlin",
	} {
		if !strings.Contains(plain(body), want) {
			t.Errorf("orders' page lacks %q", want)
		}
	}
	_, body = get(t, srv, "/teams/analytics")
	if !strings.Contains(plain(body), `href="/subjects/dws.gmv-1min-value#consumer-`) {
		t.Errorf("analytics' page does not link the consumer it owns")
	}
	if resp, _ := get(t, srv, "/teams/nobody"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown team: %d", resp.StatusCode)
	}
	_, body = get(t, srv, "/teams")
	if !strings.Contains(plain(body), `<a href="/teams/supply-chain">supply-chain</a>`) {
		t.Errorf("the team list lacks supply-chain")
	}
}
