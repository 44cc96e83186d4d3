package bot

import (
	"context"
	"fmt"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
)

// TestWebhookLoad sends signed deliveries for many pull requests concurrently to the
// running server (loopback, the GitHub fake, a real Git repository) and checks that
// every pull request converges to exactly one comment. With CONTRACTBOT_LOAD=1 it runs
// the documented size (500 deliveries over 50 pull requests) and logs the response
// p99 and the time to a converged comment (p50, p99); otherwise a small size keeps the
// suite fast.
func TestWebhookLoad(t *testing.T) {
	prs, perPR := 10, 5
	if os.Getenv("CONTRACTBOT_LOAD") == "1" {
		prs, perPR = 50, 10
	}
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }), githubfake.WithRateLimit(1_000_000, time.Hour))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.SetCloneURL("acme", "contracts", remote)
	var numbers []int
	for i := 0; i < prs; i++ {
		numbers = append(numbers, fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: head.String(), BaseSHA: base.String(), BaseRef: "master"}))
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := &Bot{Self: botLogin, StateKey: testKey, ClaimSettle: testSettle, GH: githubapi.New(fake.Client()), Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }), Log: log}
	srv := server.New(server.Config{WebhookSecret: []byte("s"), Workers: 2, QueueSize: 1000, Route: b, Log: log})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, l, 5*time.Second)
	url := "http://" + l.Addr().String() + "/webhook"
	waitFor(t, func() bool { return get(t, "http://"+l.Addr().String()+"/readyz") == http.StatusOK })

	type job struct{ pr, i int }
	jobs := make(chan job)
	var mu sync.Mutex
	var responses []time.Duration
	first := map[int]time.Time{}
	client := &http.Client{Timeout: 10 * time.Second}
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				action := "synchronize"
				if j.i == 0 {
					action = "opened"
				}
				ev := fake.PullRequestEvent("acme", "contracts", j.pr, action, "olivia")
				start := time.Now()
				resp, err := githubfake.Deliver(ctx, client, url, "s", "pull_request", ev)
				d := time.Since(start)
				if err != nil {
					t.Error(err)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					t.Errorf("delivery %v: %d", j, resp.StatusCode)
				}
				mu.Lock()
				responses = append(responses, d)
				if _, ok := first[j.pr]; !ok {
					first[j.pr] = start
				}
				mu.Unlock()
			}
		}()
	}
	converged := map[int]time.Duration{}
	done := make(chan struct{})
	go func() { // watch for each pull request's comment
		defer close(done)
		deadline := time.Now().Add(2 * time.Minute)
		for len(converged) < prs && time.Now().Before(deadline) {
			for _, n := range numbers {
				if _, ok := converged[n]; ok {
					continue
				}
				if len(fake.Comments("acme", "contracts", n)) > 0 {
					mu.Lock()
					if t0, ok := first[n]; ok {
						converged[n] = time.Since(t0)
					}
					mu.Unlock()
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	for i := 0; i < perPR; i++ {
		for _, n := range numbers {
			jobs <- job{n, i}
		}
	}
	close(jobs)
	wg.Wait()
	<-done
	waitFor(t, func() bool { return srv.Queue().Len() == 0 })
	for _, n := range numbers {
		if got := len(fake.Comments("acme", "contracts", n)); got != 1 {
			t.Errorf("pull request %d has %d comments, want exactly 1", n, got)
		}
	}
	if len(converged) != prs {
		t.Fatalf("%d of %d pull requests converged", len(converged), prs)
	}
	var conv []time.Duration
	for _, d := range converged {
		conv = append(conv, d)
	}
	t.Logf("%d deliveries over %d pull requests: response p50 %s p99 %s; time to converged comment p50 %s p99 %s",
		len(responses), prs, pct(responses, 50), pct(responses, 99), pct(conv, 50), pct(conv, 99))
	if os.Getenv("CONTRACTBOT_LOAD") == "1" {
		fmt.Fprintf(os.Stderr, "load: responses p99 %s, comment p50 %s p99 %s\n", pct(responses, 99), pct(conv, 50), pct(conv, 99))
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}
