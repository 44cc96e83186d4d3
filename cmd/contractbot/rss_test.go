package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/githubfake"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestServeUnverifiedRSS measures a real `contractbot serve` process (the bot
// enabled, the example repository served) while hostile requests arrive from 10
// concurrent senders: 100 unsigned requests with 900 KB X-GitHub-Event values (past
// the header limit: 431), then 100 with 20 KB event, delivery and signature values
// (60 KB in all, under the limit, so they reach the webhook handler: 401), then 100
// whose body is validly signed (GitHub signs the body only) but whose event and
// delivery id are 20 KB each (400). It logs the resident
// memory after each round and fails if the process grew by more than 50 MB or
// /metrics reached 1 MB. Linux only (reads /proc). Run it with
//
//	CONTRACTBOT_RSS=1 go test ./cmd/contractbot -run ServeUnverifiedRSS -v -count=1
func TestServeUnverifiedRSS(t *testing.T) {
	if os.Getenv("CONTRACTBOT_RSS") != "1" {
		t.Skip("set CONTRACTBOT_RSS=1 to measure the server's memory under hostile requests")
	}
	bin := filepath.Join(t.TempDir(), "contractbot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := testutil.ExampleRepo(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	fake := githubfake.New() // the bot learns its identity at start; in this process, not the server's
	defer fake.Close()
	fake.AddToken("ghp_rss", "contractbot-user")
	cmd := exec.Command(bin, "serve", "--addr", addr, "--repo", repo.Dir, "--github-url", fake.URL()+"/api/v3/")
	cmd.Env = append(os.Environ(), "CONTRACTBOT_WEBHOOK_SECRET=s3cret", "GITHUB_TOKEN=ghp_rss", "SLACK_BOT_TOKEN=")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	base := "http://" + addr
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) (int, []byte) {
		resp, err := client.Get(base + path)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if code, _ := get("/readyz"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not become ready:\n%s", stderr.String())
		}
	}
	// Warm up what a normal start touches: pages, the registry, metrics, a ping.
	for _, p := range []string{"/", "/registry/subjects", "/calendar", "/metrics"} {
		get(p)
	}
	send := func(event, id, sig string, body []byte) int {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/webhook", strings.NewReader(string(body)))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", id)
		req.Header.Set("X-Hub-Signature-256", sig)
		resp, err := client.Do(req)
		if err != nil {
			return 0 // the server may close the connection while a 900 KB header is still being sent
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	send("ping", "warm-up", server.Sign([]byte("s3cret"), []byte("{}")), []byte("{}"))
	time.Sleep(time.Second)
	start := rss(t, cmd.Process.Pid)
	t.Logf("after start and warm-up: VmRSS %d MB", start.rss>>20)

	body := []byte(`{"action":"opened","pull_request":{"number":1},"repository":{"name":"r","owner":{"login":"o"}}}`)
	sign := func(int) string { return server.Sign([]byte("s3cret"), body) }
	zero := func(int) string { return "sha256=" + strings.Repeat("0", 64) }
	id := func(i int) string { return fmt.Sprintf("%08d-0000-0000-0000-000000000000", i) }
	sized := func(n int) func(int) string { return func(i int) string { return value(i, n) } }
	rounds := []struct {
		name           string
		event, id, sig func(i int) string
	}{
		{"unsigned, 900 KB X-GitHub-Event (issue 13's input)", sized(900 << 10), id, zero},
		{"unsigned, 20 KB event, delivery and signature values", sized(20 << 10), sized(20 << 10), func(i int) string { return "sha256=" + value(i, 20<<10) }},
		{"signed body, 20 KB event and delivery id", sized(20 << 10), sized(20 << 10), sign},
	}
	for _, r := range rounds {
		codes := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w * 10; i < w*10+10; i++ {
					// Each request's values differ, as an attacker's would, so nothing
					// can be shared between them.
					c := send(r.event(i), r.id(i+1), r.sig(i), body)
					mu.Lock()
					codes[c]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		m := rss(t, cmd.Process.Pid)
		_, metrics := get("/metrics")
		t.Logf("%s: answers %v; VmRSS %d MB (%+d MB), VmHWM %d MB; /metrics %d bytes", r.name, codes, m.rss>>20, (m.rss-start.rss)>>20, m.hwm>>20, len(metrics))
		if grew := m.rss - start.rss; grew > 50<<20 {
			t.Errorf("%s: the server grew by %d MB, want at most 50 MB", r.name, grew>>20)
		}
		if len(metrics) >= 1<<20 {
			t.Errorf("%s: /metrics is %d bytes, want under 1 MB", r.name, len(metrics))
		}
	}
}

// value is a header value of n bytes, different for each i.
func value(i, n int) string {
	p := fmt.Sprintf("%08d", i)
	return p + strings.Repeat(string(rune('a'+i%26)), n-len(p))
}

type mem struct{ rss, hwm int64 }

// rss reads a process's resident memory and its peak from /proc.
func rss(t *testing.T, pid int) mem {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var m mem
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, _ := strings.Cut(s.Text(), ":")
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			m.rss = kb << 10
		case "VmHWM":
			m.hwm = kb << 10
		}
	}
	return m
}

// syncBuffer is a bytes.Buffer safe for the process's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
