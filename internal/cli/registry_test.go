package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/registry"
)

// registryRepo is the example tree with a second commit that gives
// orders.order-created-value a version 2.
func registryRepo(t *testing.T) (string, *registry.Server) {
	t.Helper()
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"),
		`    {
      "name": "event_time",`,
		`    {
      "name": "gift_note",
      "type": ["null", "string"],
      "default": null
    },
    {
      "name": "event_time",`)
	commit(t, repo, "order-created: gift_note")
	srv, err := registry.NewServer(registry.Source{Repo: repo, Branch: "master"})
	if err != nil {
		t.Fatal(err)
	}
	return dir, srv
}

var hexRun = regexp.MustCompile(`\b[0-9a-f]{12}\b`)

func registryGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "registry", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output:\n%s", path, got)
	}
}

// TestRegistryDiff: Git against its own embedded registry has no drift; against a
// registry with drift, every difference is listed and the exit status is 1.
func TestRegistryDiff(t *testing.T) {
	dir, srv := registryRepo(t)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	out, errOut, code := runCLI(t, "registry", "diff", "--url", ts.URL, "--repo", dir)
	if code != 0 || !strings.Contains(out, "no drift") {
		t.Fatalf("against the embedded registry: exit %d\n%s%s", code, out, errOut)
	}
	registryGolden(t, "diff-none.txt", hexRun.ReplaceAllString(out, "COMMIT"))

	drifted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", registry.ContentType)
		switch r.URL.Path {
		case "/subjects":
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, r)
			var names []string
			_ = json.Unmarshal(rec.Body.Bytes(), &names)
			_ = json.NewEncoder(w).Encode(append(names, "rogue-value"))
		case "/subjects/orders.order-created-value/versions":
			_, _ = w.Write([]byte("[1]"))
		case "/subjects/orders.order-created-value": // a look-up finds version 1 only
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, r)
			var found registry.Schema
			if json.Unmarshal(rec.Body.Bytes(), &found) == nil && found.Version == 1 {
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error_code":40403,"message":"Schema not found"}`))
		case "/config/users.user-profile-value":
			_, _ = w.Write([]byte(`{"compatibilityLevel":"BACKWARD"}`))
		default:
			srv.ServeHTTP(w, r)
		}
	}))
	defer drifted.Close()
	out, errOut, code = runCLI(t, "registry", "diff", "--url", drifted.URL, "--repo", dir)
	if code != 1 {
		t.Fatalf("against a drifted registry: exit %d, want 1\n%s%s", code, out, errOut)
	}
	registryGolden(t, "diff-drift.txt", hexRun.ReplaceAllString(out, "COMMIT"))
	out, _, code = runCLI(t, "registry", "diff", "--url", drifted.URL, "--repo", dir, "--json")
	var rep registry.DriftReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	kinds := map[registry.DriftKind]string{}
	for _, d := range rep.Drift {
		kinds[d.Kind] = d.Subject
	}
	want := map[registry.DriftKind]string{registry.Missing: "orders.order-created-value", registry.LevelDiffers: "users.user-profile-value", registry.UnknownSubject: "rogue-value"}
	if len(rep.Drift) != 3 || len(kinds) != 3 {
		t.Errorf("drift %+v, want %v", rep.Drift, want)
	}
	for k, s := range want {
		if kinds[k] != s {
			t.Errorf("drift %s on %q, want %q", k, kinds[k], s)
		}
	}
	if _, errOut, code := runCLI(t, "registry", "diff", "--repo", dir); code != 2 || !strings.Contains(errOut, "--url") {
		t.Errorf("without --url: exit %d %s", code, errOut)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
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

// TestRegistryServe: the command serves the repository until its context ends; with
// --cache-dir the second start restores the versions index the first one saved.
func TestRegistryServe(t *testing.T) {
	dir, _ := registryRepo(t)
	cache := t.TempDir()
	for run, want := range []string{"from_cache=false", "from_cache=true"} {
		registryServeOnce(t, dir, cache, want, run)
	}
}

func registryServeOnce(t *testing.T, dir, cache, wantLog string, run int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := New()
	var out, errOut syncBuffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"registry", "serve", "--repo", dir, "--addr", "127.0.0.1:0", "--poll", "50ms", "--cache-dir", cache})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	var url string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if i := strings.Index(out.String(), "http://"); i >= 0 {
			url = strings.TrimSpace(out.String()[i:])
			break
		}
	}
	if url == "" {
		t.Fatalf("serve printed no address: %s %s", out.String(), errOut.String())
	}
	resp, err := http.Get(url + "/subjects/orders.order-created-value/versions")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "[1,2]" || resp.Header.Get("Content-Type") != registry.ContentType {
		t.Errorf("versions: %s %q", body, resp.Header.Get("Content-Type"))
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q, want nosniff", got)
	}
	if !strings.Contains(errOut.String(), wantLog) {
		t.Errorf("start %d: the log does not say %s:\n%s", run+1, wantLog, errOut.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop when its context ended")
	}
}
