package olstore

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// Without a token the endpoint takes nothing unless the operator said so with
// Anyone: an open endpoint is a choice, not a default.
func TestPostNeedsATokenByDefault(t *testing.T) {
	s, srv := serveStore(t, "", nil)
	s.Anyone = false
	if code, body := post(t, srv.URL, string(compactEvent(t, adapted))); code != http.StatusForbidden || !strings.Contains(body, "CONTRACTBOT_LINEAGE_TOKEN") {
		t.Errorf("a POST to a store without a token: %d %q", code, body)
	}
	if s.Len() != 0 {
		t.Errorf("%d events kept", s.Len())
	}
}

// fat is the adapted event of job's run n, of eventType, with fields more output
// fields (about 50 bytes each).
func fat(t *testing.T, job string, n int, eventType string, fields int) string {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal([]byte(withFields(t, fields, 1)), &e); err != nil {
		t.Fatal(err)
	}
	e["job"].(map[string]any)["name"] = job
	e["run"].(map[string]any)["runId"] = fmt.Sprintf("0193d2a4-6c1e-7b4a-9f3e-5a1c2b3d%04d", n)
	e["eventType"] = eventType
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// One job posting run after run never completed (a streaming job restarted again and
// again) fills its own budget, not the store: its new runs evict its oldest, other
// jobs keep posting, and a full store takes a job's new run by letting go of that
// job's old ones, in memory and after a restart.
func TestOneJobCannotStarveTheOthers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "events.jsonl")
	s, srv := serveStore(t, file, nil)
	size := len(fat(t, "job-00", 0, "START", 0)) // every job name below is as long
	small := budget{events: MaxEvents, jobBytes: 3*size + size/2, bytes: 10*size + size/2}
	s.budget = small
	for i := range 20 {
		if code, body := post(t, srv.URL, fat(t, "noisy", i, "START", 0)); code != http.StatusCreated {
			t.Fatalf("noisy run %d: %d %s", i, code, body)
		}
	}
	if held := s.jobBytes[jobKey{"flink-jobs", "noisy"}]; held > s.budget.jobBytes {
		t.Errorf("the noisy job holds %d bytes, over its budget of %d", held, s.budget.jobBytes)
	}
	// Fill the store with other jobs; each one's next run still gets in.
	for j := 0; s.bytes+size <= s.budget.bytes; j++ {
		if code, body := post(t, srv.URL, fat(t, fmt.Sprintf("job-%02d", j), 0, "START", 0)); code != http.StatusCreated {
			t.Fatalf("job %d: %d %s", j, code, body)
		}
	}
	if code, _ := post(t, srv.URL, fat(t, "job-99", 0, "START", 0)); code != http.StatusServiceUnavailable {
		t.Errorf("a new job in a full store: %d, want 503", code)
	}
	if code, body := post(t, srv.URL, fat(t, "job-00", 1, "START", 0)); code != http.StatusCreated {
		t.Errorf("a new run of a job in a full store: %d %s", code, body)
	}
	again, err := open(file, nil, small)
	if err != nil {
		t.Fatal(err)
	}
	again.Anyone = true
	if again.bytes != s.bytes || len(again.events) != len(s.events) {
		t.Errorf("reopened: %d events, %d bytes; want %d, %d", len(again.events), again.bytes, len(s.events), s.bytes)
	}
	srv2 := serveOpened(t, again)
	if code, body := post(t, srv2.URL, fat(t, "job-01", 1, "START", 0)); code != http.StatusCreated {
		t.Errorf("a new run of a job in a full store after a restart: %d %s", code, body)
	}
}

// On a real file system that fills up, a POST is answered 201 only once its event is
// in the file; while the disk is full it is 500 and the file keeps only whole lines,
// so after space is freed and the event sent again, a restart finds every event.
func TestAFullDiskNeverTearsTheEventsFile(t *testing.T) {
	dir := testutil.FullFS(t, 256<<10)
	file := filepath.Join(dir, "events.jsonl")
	s, srv := serveStore(t, file, nil)
	first := fat(t, "job", 1, "START", 100)
	if code, body := post(t, srv.URL, first); code != http.StatusCreated {
		t.Fatalf("%d %s", code, body)
	}
	filler := testutil.Fill(t, dir, 4096)
	second := fat(t, "job", 2, "START", 400) // over a page
	for range 2 {
		if code, _ := post(t, srv.URL, second); code != http.StatusInternalServerError {
			t.Fatalf("a POST on a full disk: %d, want 500", code)
		}
	}
	if s.Len() != 1 {
		t.Errorf("%d events held after a failed append, want 1", s.Len())
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, body := post(t, srv.URL, second); code != http.StatusCreated {
		t.Fatalf("after space was freed: %d %s", code, body)
	}
	var logs testutil.SyncBuffer
	again, err := Open(file, slogTo(&logs))
	if err != nil || again.Len() != 2 || logs.String() != "" {
		t.Errorf("reopened: %d events, %v; log:\n%s", again.Len(), err, logs.String())
	}
}

// serveOpened serves an opened store.
func serveOpened(t *testing.T, s *Store) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
