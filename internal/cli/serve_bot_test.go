package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
	cbtest "github.com/contractbot/contractbot/internal/testutil"
)

// TestServeStartsWhileGitHubIsDown: GitHub answers 503 to everything when serve
// starts with credentials. The read side serves all the same (the registry, the
// pages), /readyz says what the bot lacks, and the metric says why.
func TestServeStartsWhileGitHubIsDown(t *testing.T) {
	fake := githubfake.New()
	defer fake.Close()
	fake.FailNext("", "/user", 1<<20, http.StatusServiceUnavailable)
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "s")
	t.Setenv("GITHUB_TOKEN", "t")
	t.Setenv("SLACK_BOT_TOKEN", "")
	dir, _ := exampleRepo(t)
	base := startServe(t, "--repo", dir, "--github-url", fake.URL()+"/api/v3/")
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/readyz"); code != http.StatusOK || !strings.Contains(body, "bot: ") || !strings.Contains(body, "login") {
		t.Errorf("/readyz while GitHub is down: %d %q", code, body)
	}
	if code, body := get("/registry/subjects"); code != http.StatusOK || !strings.Contains(body, "orders") {
		t.Errorf("the registry while GitHub is down: %d %q", code, body)
	}
	if _, metrics := get("/metrics"); !strings.Contains(metrics, `contractbot_bot_not_ready{cause="identity"} 1`) {
		t.Errorf("the metric does not say the bot lacks its identity:\n%s", grepLines(metrics, "contractbot_bot"))
	}
}

// flakyClients fails Identity and For a number of times each, then answers.
type flakyClients struct {
	mu                        sync.Mutex
	identityFails, installFor int
}

func (f *flakyClients) For(context.Context, string, string, int64) (*githubapi.Client, transport.AuthMethod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.installFor > 0 {
		f.installFor--
		return nil, nil, errors.New("the App is not installed on acme/contracts")
	}
	return nil, nil, nil
}

func (f *flakyClients) Identity(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.identityFails > 0 {
		f.identityFails--
		return "", errors.New("learn the token's login (GET /user): 503 Service Unavailable")
	}
	return "contractbot", nil
}

// TestBotStartupRetriesWithBackoff: the login and the installations are retried
// until GitHub answers; each cause is logged once when it appears and once when it
// clears, however many attempts fail, and its gauge follows.
func TestBotStartupRetriesWithBackoff(t *testing.T) {
	var logs cbtest.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	clients := &flakyClients{identityFails: 4, installFor: 3}
	s := newBotStartup(clients, []bot.Repository{{Owner: "acme", Name: "contracts"}}, log)
	s.apps, s.first, s.max = true, time.Millisecond, 4*time.Millisecond
	b := &bot.Bot{}
	if got := s.Missing(); !strings.Contains(got, "login") {
		t.Errorf("before any attempt: %q", got)
	}
	delivered := make(chan struct{})
	s.after(context.Background(), func() { close(delivered) })
	s.run(context.Background(), b)
	<-delivered
	if b.Self != "contractbot" || s.Missing() != "" {
		t.Errorf("after GitHub answers: self %q, missing %q", b.Self, s.Missing())
	}
	out := logs.String()
	if n := strings.Count(out, "level=WARN msg=\"the bot is not ready"); n != 2 {
		t.Errorf("%d not-ready lines, want one per cause:\n%s", n, out)
	}
	for _, c := range []string{causeIdentity, causeInstallation} {
		if n := strings.Count(out, "level=INFO msg=\"the bot has what it needs of GitHub: "+c); n != 1 {
			t.Errorf("%s: %d recovery lines, want 1:\n%s", c, n, out)
		}
	}
	for _, c := range []string{causeIdentity, causeInstallation} {
		if v := testutil.ToFloat64(s.gauge.WithLabelValues(c)); v != 0 {
			t.Errorf("contractbot_bot_not_ready{cause=%q} = %v after recovery", c, v)
		}
	}
}

// TestDeliveryHeldUntilTheLoginIsKnown: a delivery that arrives before the bot knows
// its login is held by the worker that runs it (counted in
// contractbot_bot_held_deliveries), not failed and left to the reconcile loop; once
// GitHub answers, it is routed and run.
func TestDeliveryHeldUntilTheLoginIsKnown(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	clients := &flakyClients{identityFails: 1 << 30}
	s := newBotStartup(clients, nil, log)
	s.first, s.max = time.Millisecond, time.Millisecond
	b := &bot.Bot{Log: log}
	job, err := s.route(b)(server.Delivery{ID: "d1", Event: "ping", Payload: []byte(`{}`)})
	if err != nil || job == nil {
		t.Fatalf("route before the login is known: %v %v", job, err)
	}
	ran := make(chan error, 1)
	go func() { ran <- job.Run(context.Background()) }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.run(ctx, b)
	deadline := time.Now().Add(10 * time.Second)
	for testutil.ToFloat64(s.held) != 1 {
		select {
		case err := <-ran:
			t.Fatalf("the delivery was not held: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the delivery is not counted as held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // many failed attempts at the login later
	select {
	case err := <-ran:
		t.Fatalf("the delivery ended while the login is unknown: %v", err)
	default:
	}
	clients.mu.Lock()
	clients.identityFails = 0
	clients.mu.Unlock()
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("the held delivery failed once the login was known: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held delivery never ran")
	}
	if v := testutil.ToFloat64(s.held); v != 0 {
		t.Errorf("contractbot_bot_held_deliveries = %v after it ran", v)
	}
}
