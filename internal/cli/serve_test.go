package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/gctune"
)

func TestServeChecksItsSettings(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	if _, errOut, code := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--repo", t.TempDir()); code != 2 || !strings.Contains(errOut, "--repo") {
		t.Errorf("not a repository: exit %d: %q", code, errOut)
	}
	dir, _ := exampleRepo(t)
	t.Setenv("GITHUB_TOKEN", "t")
	if _, errOut, code := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--repo", dir, "--cache-dir", t.TempDir()); code != 2 || !strings.Contains(errOut, "CONTRACTBOT_WEBHOOK_SECRET") {
		t.Errorf("no webhook secret: exit %d: %q", code, errOut)
	}
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "s")
	if _, errOut, code := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--repo", dir, "--cache-dir", t.TempDir(), "--app-id", "1", "--app-key-file", "/nonexistent.pem"); code != 2 || !strings.Contains(errOut, "--app-key-file") {
		t.Errorf("missing key file: exit %d: %q", code, errOut)
	}
}

// TestServeReadSideWithoutCredentials: with no GitHub credentials serve still serves
// the embedded registry, the calendar feeds and the pages of the repository; no
// webhook route. /metrics is on its own listener (--metrics-addr), and every response
// of both listeners says X-Content-Type-Options: nosniff.
func TestServeReadSideWithoutCredentials(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	dir, _ := exampleRepo(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ml, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := ml.Addr().String()
	ml.Close()
	cmd := New()
	var stderr bytes.Buffer
	cmd.SetErr(&stderr)
	cmd.SetOut(io.Discard)
	cmd.SetArgs([]string{"serve", "--addr", addr, "--metrics-addr", metricsAddr, "--repo", dir, "--cache-dir", t.TempDir()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	base := "http://" + addr
	var sniffable []string // responses without X-Content-Type-Options: nosniff
	getURL := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			sniffable = append(sniffable, url)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	get := func(path string) (int, string) { return getURL(base + path) }
	deadline := time.Now().Add(20 * time.Second)
	for {
		if code, _ := get("/readyz"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not become ready:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get("/registry/subjects"); code != http.StatusOK || !strings.Contains(body, "orders.order-created-value") {
		t.Errorf("registry: %d %s", code, body)
	}
	if code, body := get("/calendar.ics"); code != http.StatusOK || !strings.Contains(body, "BEGIN:VCALENDAR") {
		t.Errorf("calendar feed: %d", code)
	}
	for _, path := range []string{"/", "/healthz", "/registry/schemas/ids/1", "/registry/no-such-route", "/no-such-page"} {
		get(path)
	}
	// The health page's history part is audited in the background after a page was
	// served (the / above): it finishes, and the page shows it.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, body := get("/report")
		if code != http.StatusOK {
			t.Fatalf("/report: %d %s", code, body)
		}
		if !strings.Contains(body, "Being computed") {
			if !strings.Contains(body, "Every version on the branch passed its level") && !strings.Contains(body, "refused by") {
				t.Errorf("/report, computed, shows no history:\n%s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the health page's history was still being computed after 20 s:\n%s", stderr.String())
		}
	}
	if code, _ := get("/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics on --addr with --metrics-addr set: %d, want 404", code)
	}
	if code, body := getURL("http://" + metricsAddr + "/metrics"); code != http.StatusOK || !strings.Contains(body, "contractbot_evaluations_total") {
		t.Errorf("/metrics on --metrics-addr: %d", code)
	}
	if code, _ := getURL("http://" + metricsAddr + "/registry/subjects"); code != http.StatusNotFound {
		t.Errorf("the metrics listener serves more than /metrics: %d", code)
	}
	if len(sniffable) > 0 {
		t.Errorf("responses without X-Content-Type-Options: nosniff: %v", sniffable)
	}
	resp, err := http.Post(base+"/webhook", "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("webhook without a bot: %d", resp.StatusCode)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("POST /webhook without a bot: no nosniff")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestServeChecksPublicURL: --public-url is copied into every feed, so anything but
// an http(s) address of a host is refused before serve starts.
func TestServeChecksPublicURL(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	dir, _ := exampleRepo(t)
	for _, bad := range []string{"contracts.example.com", "javascript:alert(1)", "https://u:hunter2@contracts.example.com", "https://contracts.example.com/?a=b"} {
		_, errOut, code := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--repo", dir, "--cache-dir", t.TempDir(), "--public-url", bad)
		// The refusal names the flag and says what to write (not cobra's "unknown
		// flag", which a serve without --public-url would print), the password hidden.
		if code != 2 || !strings.Contains(errOut, "--public-url") || !strings.Contains(errOut, "write the address people reach serve by") || strings.Contains(errOut, "hunter2") {
			t.Errorf("--public-url %q: exit %d: %q", bad, code, errOut)
		}
	}
	for _, good := range []string{"", "https://contracts.example.com", "http://10.0.0.7:8080/contracts"} {
		if err := checkPublicURL(good); err != nil {
			t.Errorf("--public-url %q refused: %v", good, err)
		}
	}
}

// serve's collector goal (GOGC) stays under gctune's soft limit with room for the
// runtime's own memory, so the limit does not make the collector run back to back.
func TestServeGCGoalUnderTheSoftLimit(t *testing.T) {
	goal := 1 + float64(serveGCPercent)/100 // times the live heap
	if limit := float64(gctune.Headroom); goal > 0.8*limit {
		t.Errorf("GOGC %d makes the collector's goal %.2f x the live heap, over 80%% of the soft limit (%.0f x)", serveGCPercent, goal, limit)
	}
}
