package bot

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"github.com/contractbot/contractbot/internal/bot/githubapi"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
)

// TestGitHubAppAuth: the bot acts as a GitHub App: the webhook names the
// installation, the App's JWT mints an installation token, and the bot's API calls
// and Git fetch use it; the reconcile loop finds the installation by repository.
func TestGitHubAppAuth(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	remote, base, head := remoteWithChange(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fake := githubfake.New(githubfake.WithClock(func() time.Time { return now }), githubfake.WithApp(4242, &key.PublicKey))
	defer fake.Close()
	fake.AddRepo("acme", "contracts")
	fake.AddInstallation(77, "acme")
	fake.SetCloneURL("acme", "contracts", remote)
	n := fake.AddPullRequest("acme", "contracts", githubfake.PullRequest{Author: "olivia", HeadSHA: head.String(), BaseSHA: base.String(), BaseRef: "master"})

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	apps := &githubapi.AppClients{AppID: 4242, PrivateKey: pemKey, BaseURL: fake.URL() + "/api/v3/"}
	// The bot learns the login it writes as from GET /app, with the App's JWT.
	self, err := apps.Identity(context.Background())
	if err != nil || self != botLogin {
		t.Fatalf("identity %q, %v; want %q", self, err, botLogin)
	}
	b := &Bot{Self: self, StateKey: testKey, ClaimSettle: testSettle, Clients: ClientsOf(apps), Cache: &GitCache{Dir: t.TempDir()}, Clock: clock.Func(func() time.Time { return now }), Log: log}
	srv := server.New(server.Config{WebhookSecret: []byte("s"), Workers: 1, QueueSize: 5, Route: b, Log: log})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, l, time.Second)
	url := "http://" + l.Addr().String()
	waitFor(t, func() bool { return get(t, url+"/readyz") == http.StatusOK })
	resp, err := githubfake.Deliver(ctx, nil, url+"/webhook", "s", "pull_request", fake.PullRequestEvent("acme", "contracts", n, "opened", "olivia"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitFor(t, func() bool { return len(fake.Comments("acme", "contracts", n)) == 1 })
	if got := fake.Count("POST", "/app/installations/{id}/access_tokens"); got < 1 {
		t.Errorf("no installation token was minted (%d)", got)
	}
	if c := fake.Comments("acme", "contracts", n)[0]; c.GetUser().GetLogin() != githubfake.DefaultBotLogin {
		t.Errorf("the comment was written by %q, want the App's bot", c.GetUser().GetLogin())
	}
	// The reconcile loop has no webhook: it looks the installation up.
	b.Reconcile(ctx, []Repository{{"acme", "contracts"}})
	if got := fake.Count("GET", "/repos/{owner}/{repo}/installation"); got != 1 {
		t.Errorf("installation look-ups: %d, want 1", got)
	}
	if got := len(fake.Comments("acme", "contracts", n)); got != 1 {
		t.Errorf("%d comments after reconcile", got)
	}
}
