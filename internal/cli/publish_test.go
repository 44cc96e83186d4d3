package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/publish/publishtest"
)

func TestPublishCommand(t *testing.T) {
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/common/money/money.proto"), "  int32 nanos = 3;\n", "  reserved 3;\n")
	commit(t, repo, "Drop Money.nanos (#12)")
	fake := publishtest.NewRegistry()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	eventsFile := filepath.Join(t.TempDir(), "events.jsonl")
	args := []string{"publish", "--repo", dir, "--registry", srv.URL, "--events", "file:" + eventsFile, "--state", state}

	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "common.money-value version 2 (id 14), level FULL_TRANSITIVE, event ") ||
		!strings.Contains(out, "2 commit(s) of refs/heads/master published up to") ||
		!strings.Contains(out, "14 version(s), 0 level change(s); registered at "+srv.URL) {
		t.Errorf("output:\n%s", out)
	}
	if fake.Registrations() != 14 || fake.Versions("common.money-value") != 2 || fake.Level("orders.order-created-value") != "BACKWARD_TRANSITIVE" {
		t.Errorf("registry: %d registrations, money %d versions", fake.Registrations(), fake.Versions("common.money-value"))
	}
	evs := readEventLines(t, eventsFile)
	if len(evs) != 14 || evs[13].Data.Class != "BREAKING" || evs[13].Data.PullRequest.Number != 12 || !strings.HasPrefix(evs[13].Source, "file://") {
		t.Errorf("%d events; last %+v", len(evs), evs[len(evs)-1])
	}

	publishGolden(t, "registry.txt", out, srv.URL, state, eventsFile)

	// Nothing left: a rerun registers nothing and sends nothing.
	out, _, code = runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "nothing to publish: refs/heads/master is published up to") || fake.Registrations() != 14 || len(readEventLines(t, eventsFile)) != 14 {
		t.Errorf("rerun (exit %d, %d registrations):\n%s", code, fake.Registrations(), out)
	}

	// The embedded default: nothing registered, events in the Git folder.
	out, errOut, code = runCLI(t, "publish", "--repo", dir, "--embedded")
	if code != 0 || !strings.Contains(out, "the embedded registry serves them") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if evs := readEventLines(t, filepath.Join(dir, ".git", "contractbot", "events.jsonl")); len(evs) != 14 {
		t.Errorf("%d events in the default file", len(evs))
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "contractbot", "published.json")); err != nil {
		t.Error(err)
	}

	if _, errOut, code := runCLI(t, "publish", "--repo", dir, "--events", "smtp:x"); code != 2 || !strings.Contains(errOut, "file:PATH") {
		t.Errorf("a bad --events: exit %d, %s", code, errOut)
	}

	// A bare repository (the bot's clone): its record and events are in its own folder,
	// not in a .git folder of wherever the command runs.
	bare := t.TempDir()
	if _, err := git.PlainClone(bare, true, &git.CloneOptions{URL: dir}); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, "publish", "--repo", bare, "--embedded"); code != 0 {
		t.Fatalf("bare: exit %d:\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"published.json", "events.jsonl"} {
		if _, err := os.Stat(filepath.Join(bare, "contractbot", f)); err != nil {
			t.Errorf("bare repository: %v", err)
		}
	}
}

// TestPublishCommandHTTP sends the events to an HTTP endpoint, signed.
func TestPublishCommandHTTP(t *testing.T) {
	dir, _ := exampleRepo(t)
	t.Setenv("CONTRACTBOT_EVENTS_SECRET", "s3cret")
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !events.Verify([]byte("s3cret"), body, r.Header.Get(events.SignatureHeader)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		got = append(got, r.Header.Get("Ce-Id"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	out, errOut, code := runCLI(t, "publish", "--repo", dir, "--events", srv.URL+"/hook", "--state", filepath.Join(t.TempDir(), "s.json"))
	if code != 0 || len(got) != 13 || !strings.Contains(out, "events to http "+srv.URL+"/hook") {
		t.Errorf("exit %d, %d events posted:\n%s%s", code, len(got), out, errOut)
	}
}

// TestPublishCommandBaseline: a registry that already holds the history starts
// publishing after the baseline.
func TestPublishCommandBaseline(t *testing.T) {
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/common/money/money.proto"), "  int32 nanos = 3;\n", "  reserved 3;\n")
	commit(t, repo, "Drop Money.nanos (#12)")
	state := filepath.Join(t.TempDir(), "s.json")
	eventsFile := filepath.Join(t.TempDir(), "e.jsonl")
	out, errOut, code := runCLI(t, "publish", "--repo", dir, "--state", state, "--baseline", "HEAD~1")
	if code != 0 || !strings.Contains(out, "marked published") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "publish", "--repo", dir, "--state", state, "--events", "file:"+eventsFile)
	if evs := readEventLines(t, eventsFile); code != 0 || len(evs) != 1 || evs[0].Subject != "common.money-value" {
		t.Errorf("exit %d, %d events:\n%s%s", code, len(evs), out, errOut)
	}
}

func TestPublishCommandRegistryDown(t *testing.T) {
	dir, _ := exampleRepo(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error_code":50001,"message":"down"}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	_, errOut, code := runCLI(t, "publish", "--repo", dir, "--registry", srv.URL, "--state", state, "--timeout", "1s")
	if code != 2 || !strings.Contains(errOut, "run contractbot publish again") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(state); err == nil {
		t.Error("a commit was marked published while the registry was down")
	}
}

var (
	commitHex = regexp.MustCompile(`\b[0-9a-f]{12}\b`)
	eventHex  = regexp.MustCompile(`\bevent [0-9a-f]{32}\b`)
)

// publishGolden compares the command's output with testdata/publish/name, commit and
// event ids and temporary paths masked (they change with the example tree and the run).
func publishGolden(t *testing.T, name, out string, masks ...string) {
	t.Helper()
	for i, m := range masks {
		out = strings.ReplaceAll(out, m, fmt.Sprintf("<%d>", i))
	}
	out = eventHex.ReplaceAllString(out, "event <event>")
	out = commitHex.ReplaceAllString(out, "<commit>")
	path := filepath.Join("testdata", "publish", name)
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file missing (run go test ./internal/cli/ -run Publish -update): %v", err)
	}
	if out != string(want) {
		t.Errorf("%s differs (rerun with -update if intended):\n--- got\n%s\n--- want\n%s", name, out, want)
	}
}

func readEventLines(t *testing.T, path string) []events.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []events.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var e events.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestPublishCommandFailsMidway: the registry fails on the second commit's version.
// The summary names the last commit marked (the first), never the head, and says
// where it stopped.
func TestPublishCommandFailsMidway(t *testing.T) {
	dir, repo := exampleRepo(t)
	edit(t, filepath.Join(dir, "contracts/common/money/money.proto"), "  int32 nanos = 3;\n", "  reserved 3;\n")
	commit(t, repo, "Drop Money.nanos (#12)")
	head, _ := repo.Head()
	c, err := repo.CommitObject(head.Hash())
	if err != nil || len(c.ParentHashes) == 0 {
		t.Fatal("the head has no parent", err)
	}
	first := c.ParentHashes[0].String()
	fake := publishtest.NewRegistry()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The second version of common.money-value (the second commit's) fails.
		if r.Method == http.MethodPost && r.URL.Path == "/subjects/common.money-value/versions" && fake.Versions("common.money-value") >= 1 {
			http.Error(w, `{"error_code":50001,"message":"down"}`, http.StatusServiceUnavailable)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	eventsFile := filepath.Join(t.TempDir(), "events.jsonl")
	out, errOut, code := runCLI(t, "publish", "--repo", dir, "--registry", srv.URL, "--state", state, "--timeout", "1s",
		"--events", "file:"+eventsFile)
	if code != 2 || !strings.Contains(errOut, "run contractbot publish again") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "1 commit(s) of refs/heads/master published up to "+first[:12]) ||
		strings.Contains(out, "published up to "+head.Hash().String()[:12]) ||
		!strings.Contains(out, "stopped before "+head.Hash().String()[:12]) {
		t.Errorf("the summary must name the last commit marked (%.12s), not the head (%.12s):\n%s", first, head.Hash(), out)
	}
	publishGolden(t, "fails-midway.txt", out, srv.URL, state, eventsFile)
}

// TestPublishHidesPasswords: a registry or an event sink named with user:password@
// never shows the password: not in the summary, not in an error.
func TestPublishHidesPasswords(t *testing.T) {
	dir, _ := exampleRepo(t)
	withPassword := func(u string) string { return strings.Replace(u, "http://", "http://ci:hunter2@", 1) }
	reg := httptest.NewServer(publishtest.NewRegistry())
	defer reg.Close()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer hook.Close()
	out, errOut, code := runCLI(t, "publish", "--repo", dir, "--registry", withPassword(reg.URL), "--events", withPassword(hook.URL)+"/hook",
		"--state", filepath.Join(t.TempDir(), "s.json"))
	if code != 0 || strings.Contains(out+errOut, "hunter2") || !strings.Contains(out, "registered at http://ci:xxxxx@") || !strings.Contains(out, "events to http http://ci:xxxxx@") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // refuses connections
	out, errOut, code = runCLI(t, "publish", "--repo", dir, "--registry", withPassword(down.URL), "--events", withPassword(down.URL)+"/hook",
		"--state", filepath.Join(t.TempDir(), "s.json"), "--timeout", "1s")
	if code != 2 || strings.Contains(out+errOut, "hunter2") || !strings.Contains(errOut, "ci:xxxxx@") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
}
