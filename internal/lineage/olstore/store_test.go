package olstore

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const adapted = "../openlineage/testdata/adapted/flink-dwd-order-detail-complete.json"

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+Path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A bad event gets 400 naming where (a JSON pointer) and why it breaks OpenLineage's
// schema, and neither the store nor its file changes.
func TestPostRefusesEventsThatBreakTheSchema(t *testing.T) {
	good, err := os.ReadFile(adapted)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "events.jsonl")
	s, srv := serveStore(t, file, nil)
	if code, body := post(t, srv.URL, string(good)); code != http.StatusCreated {
		t.Fatalf("the good event: %d %s", code, body)
	}
	kept := readFile(t, file)
	for _, tc := range []struct{ name, old, new, want string }{
		{"runId not a UUID", `"runId": "0193d2a4-6c1e-7b4a-9f3e-5a1c2b3d4e01"`, `"runId": "run-1"`, `at /run/runId: 'run-1' is not valid uuid`},
		{"no schemaURL", `"schemaURL":`, `"schemaUrl":`, `at "" (the event itself): missing property 'schemaURL'`},
		{"eventType unknown", `"eventType": "COMPLETE"`, `"eventType": "DONE"`, `at /eventType: value must be one of`},
		{"columnLineage input field without field", `"field": "order_id",`, ``, `at /outputs/0/facets/columnLineage/fields/order_id/inputFields/0: missing property 'field'`},
		{"columnLineage without _producer", `"_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.39.0/integration/flink",
          "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/ColumnLineageDatasetFacet.json`, `"_schemaURL": "https://openlineage.io/spec/facets/1-1-0/ColumnLineageDatasetFacet.json`,
			`at /outputs/0/facets/columnLineage: missing property '_producer'`},
		{"not JSON", `{`, `[`, `not an OpenLineage event`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(string(good), tc.old, tc.new, 1)
			if bad == string(good) {
				t.Fatalf("%q is not in the event", tc.old)
			}
			code, body := post(t, srv.URL, bad)
			if code != http.StatusBadRequest || !strings.Contains(body, tc.want) {
				t.Errorf("%d %q, want 400 with %q", code, body, tc.want)
			}
			if s.Len() != 1 {
				t.Errorf("the store holds %d events, want 1", s.Len())
			}
			if now, _ := os.ReadFile(file); !bytes.Equal(now, kept) {
				t.Errorf("the file changed:\n%s", now)
			}
		})
	}
	again, err := Open(file, nil)
	if err != nil || again.Len() != 1 {
		t.Errorf("reopened: %d events, %v", again.Len(), err)
	}
}

// serveStore opens the store of file and serves it on loopback.
func serveStore(t *testing.T, file string, log *slog.Logger) (*Store, *httptest.Server) {
	t.Helper()
	s, err := Open(file, log)
	if err != nil {
		t.Fatalf("the store refused to open: %v", err)
	}
	s.Anyone = true // the tests of the token set one
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func readFile(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compactEvent reads a test event as the store keeps it (one line).
func compactEvent(t *testing.T, file string) []byte {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A crash in the middle of an append leaves a torn last line; a bad line in the middle
// is someone's edit. Neither stops the store from opening: the bad line is logged with
// file:line and skipped, the torn one dropped with a warning and cut off before the
// next event is appended, so that event is a line of its own.
func TestOpenSurvivesATornLastLineAndBadLines(t *testing.T) {
	dir := "../openlineage/testdata/adapted/"
	names, err := filepath.Glob(dir + "*.json")
	if err != nil || len(names) < 3 {
		t.Fatalf("want 3 test events in %s: %v %v", dir, names, err)
	}
	first, second, third := compactEvent(t, names[0]), compactEvent(t, names[1]), compactEvent(t, names[2])
	file := filepath.Join(t.TempDir(), "events.jsonl")
	var content []byte
	content = append(append(content, first...), '\n')
	content = append(content, "{\"bad\":1}\n"...)
	content = append(append(content, second...), '\n')
	content = append(content, `{"truncated": `...)
	if err := os.WriteFile(file, content, 0o644); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	s, srv := serveStore(t, file, slog.New(slog.NewTextHandler(&logged, nil)))
	if s.Len() != 2 {
		t.Errorf("%d events held, want the 2 good ones", s.Len())
	}
	for _, want := range []string{file + ":2: the line is not an OpenLineage run event and is skipped", file + ":4: the last line is cut short"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logged.String())
		}
	}
	if code, body := post(t, srv.URL, string(third)); code != http.StatusCreated {
		t.Fatalf("posting an event: %d %s", code, body)
	}
	now := readFile(t, file)
	want := append(append(bytes.Clone(content[:bytes.LastIndexByte(content, '\n')+1]), third...), '\n')
	if !bytes.Equal(now, want) {
		t.Errorf("the file is\n%s\nwant the torn line cut off and the new event on a line of its own:\n%s", now, want)
	}
	logged.Reset()
	again, err := Open(file, slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil || again.Len() != 3 {
		t.Errorf("reopened: %d events (want 3), %v", again.Len(), err)
	}
	if strings.Contains(logged.String(), "cut short") {
		t.Errorf("the torn line is still there:\n%s", logged.String())
	}
}

// OpenLineage clients retry: the same event (run, type, time, job) posted twice is kept
// once, and the second post is answered 200, not an error.
func TestTheSameEventPostedTwiceIsKeptOnce(t *testing.T) {
	event := compactEvent(t, adapted)
	file := filepath.Join(t.TempDir(), "events.jsonl")
	s, srv := serveStore(t, file, nil)
	for i, want := range []int{http.StatusCreated, http.StatusOK} {
		if code, body := post(t, srv.URL, string(event)); code != want {
			t.Errorf("post %d: %d %s, want %d", i+1, code, body, want)
		}
	}
	if s.Len() != 1 {
		t.Errorf("%d events held, want 1", s.Len())
	}
	if _, events, _ := s.Observed(); events != 1 {
		t.Errorf("%d events counted, want 1", events)
	}
	// a file that already holds it twice (from before) is read as one event
	if err := os.WriteFile(file, append(append(append(bytes.Clone(event), '\n'), event...), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := Open(file, nil); err != nil || again.Len() != 1 {
		t.Errorf("a file with the event twice: %d events, %v; want 1", again.Len(), err)
	}
}
