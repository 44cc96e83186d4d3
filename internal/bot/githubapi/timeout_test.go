package githubapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/githubfake"
)

// TestHungGitHubCallIsCutOff: GitHub stalls on GET /app. The call returns after the
// App's timeout rather than when GitHub lets go, and the log names the call.
func TestHungGitHubCallIsCutOff(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	fake := githubfake.New(githubfake.WithApp(4242, &key.PublicKey))
	defer fake.Close()
	fake.HangNext("GET", "/app", 1)
	var logs bytes.Buffer
	apps := &AppClients{AppID: 4242, BaseURL: fake.URL() + "/api/v3/", Timeout: 200 * time.Millisecond,
		PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		Log:        slog.New(slog.NewTextHandler(&logs, nil))}
	start := time.Now()
	_, err = apps.Identity(context.Background())
	if took := time.Since(start); err == nil || took > 10*time.Second {
		t.Fatalf("identity against a stalled GitHub: %v after %s", err, took)
	}
	if !strings.Contains(logs.String(), `call="github GET `+fake.URL()+`/api/v3/app"`) {
		t.Errorf("the log does not name the stalled call:\n%s", logs.String())
	}
}
