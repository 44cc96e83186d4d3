package memory

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/bot/githubapi"
)

// ledgerOn is the keeper's ledger on commit "root" of the fake's repository, with
// its marks spread over 256 contexts as the bot's alerts are.
func ledgerOn(t *testing.T, nowFn func() time.Time) (Ledger, func() int) {
	t.Helper()
	fake, gh, _, k := keeperOn(t, nowFn)
	l := Ledger{Keeper: k, GH: gh, Owner: "acme", Repo: "contracts", SHA: "root", Context: "contractbot/once", Spread: true, Settle: 50 * time.Millisecond}
	pages := func() int { return fake.Count("GET", "/repos/{owner}/{repo}/commits/{ref}/statuses") }
	return l, pages
}

// TestClaimHasOneWinnerPerKey: two replicas claim the same three keys at the same
// moment; after the settle each key is won by exactly one of them, and the other's
// claims are released at once (not left standing for the lease).
func TestClaimHasOneWinnerPerKey(t *testing.T) {
	l, _ := ledgerOn(t, time.Now)
	ctx := context.Background()
	keys := []string{"pr/a", "pr/b", "pr/c"}
	var mu sync.Mutex
	won := map[string]int{}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := l.Claim(ctx, keys, time.Now().Add(-time.Hour))
			if err != nil {
				t.Error(err)
				return
			}
			for _, k := range keys {
				if c.Won(k) {
					mu.Lock()
					won[k]++
					mu.Unlock()
					if err := c.Done(ctx, k, "1.2", nil); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if won[k] != 1 {
			t.Errorf("%s won %d times, want once", k, won[k])
		}
	}
	// The next round finds every key sent, with the sender's note.
	c, err := l.Claim(ctx, keys, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if c.Won(k) || c.Others[k] != "1.2" {
			t.Errorf("%s after it was sent: won %v, note %q", k, c.Won(k), c.Others[k])
		}
	}
}

// TestClaimReadsItsWindowNotTheHistory: GitHub lists a commit's statuses newest first
// and cannot filter them by context, so a claim that read every status would cost a
// page more for every hundred marks ever written. A claim reads from its window's
// start (since, or a lease ago): after N older marks it reads one page before it
// claims and one after, for any N; reading the whole history costs N/100 pages.
func TestClaimReadsItsWindowNotTheHistory(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 150, 990} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
			l, pages := ledgerOn(t, func() time.Time { return now })
			for i := range n { // a day of marks of other keys
				if err := l.Write(ctx, "success", fmt.Sprintf("tell/%04d", i), "sent", NewToken(), ""); err != nil {
					t.Fatal(err)
				}
			}
			now = now.Add(24 * time.Hour)
			before := pages()
			c, err := l.Claim(ctx, []string{"pr/x"}, now.Add(-time.Hour))
			if err != nil || !c.Won("pr/x") {
				t.Fatalf("claim: %v, won %v", err, c.Won("pr/x"))
			}
			if got := pages() - before; got != 2 {
				t.Errorf("after %d older marks a claim read %d pages, want 2", n, got)
			}
			before = pages()
			if _, err := l.marks(ctx, []string{"pr/x"}, time.Time{}); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d older marks: a claim reads 2 pages; the whole history %d", n, pages()-before)
			if want := n/100 + 1; pages()-before != want {
				t.Errorf("the whole history read %d pages, want %d", pages()-before, want)
			}
		})
	}
}

// TestSpreadMarksMoveOnEachMonth: GitHub refuses a commit's 1,001st status of one
// context. A key's context for this month is full; the claim fails (nothing is
// sent twice for it), and next month the key's marks go to a fresh context while
// the last month's are still read.
func TestSpreadMarksMoveOnEachMonth(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	l, _ := ledgerOn(t, func() time.Time { return now })
	if err := l.Write(ctx, "success", "pr/sent", "sent", NewToken(), "1.5"); err != nil {
		t.Fatal(err)
	}
	full := l.context("pr/full")
	for i := range 1000 {
		if err := l.GH.CreateStatus(ctx, l.Owner, l.Repo, l.SHA, githubapi.Status{State: "pending", Context: full, Description: fmt.Sprint("filler ", i)}); err != nil {
			t.Fatalf("status %d of %s: %v", i+1, full, err)
		}
	}
	if _, err := l.Claim(ctx, []string{"pr/full"}, now.Add(-time.Hour)); err == nil {
		t.Fatalf("a claim in the full context %s succeeded", full)
	}
	now = now.Add(2 * time.Hour) // December
	c, err := l.Claim(ctx, []string{"pr/full", "pr/sent"}, now.Add(-3*time.Hour))
	if err != nil || !c.Won("pr/full") {
		t.Fatalf("next month: %v, won %v", err, c.Won("pr/full"))
	}
	if c.Won("pr/sent") || c.Others["pr/sent"] != "1.5" {
		t.Errorf("last month's sent mark was not read: won %v, note %q", c.Won("pr/sent"), c.Others["pr/sent"])
	}
	if next := l.context("pr/full"); next == full || !strings.Contains(next, "/2026-12/") {
		t.Errorf("December's context %q, November's %q", next, full)
	}
}
