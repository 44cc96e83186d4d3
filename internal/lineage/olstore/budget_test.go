package olstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// withFields is the adapted Flink event with n more output fields on its output, each
// made from inputs input fields.
func withFields(t *testing.T, n, inputs int) string {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(compactEvent(t, adapted), &e); err != nil {
		t.Fatal(err)
	}
	fields := e["outputs"].([]any)[0].(map[string]any)["facets"].(map[string]any)["columnLineage"].(map[string]any)["fields"].(map[string]any)
	for i := range n {
		var ins []any
		for j := range inputs {
			ins = append(ins, map[string]any{"namespace": "kafka://kafka-cluster-prod:9092", "name": "ods_order_events", "field": fmt.Sprintf("x%d", j)})
		}
		fields[fmt.Sprintf("f%d", i)] = map[string]any{"inputFields": ins}
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Each event has a budget: over MaxBody bytes it is 413 with a sentence; too many
// input fields for one output field, or output fields for one output, is 400 with the
// JSON pointer of the list. Nothing is kept.
func TestPostRefusesEventsOverBudget(t *testing.T) {
	s, srv := serveStore(t, filepath.Join(t.TempDir(), "events.jsonl"), nil)
	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"30,000 output fields (the QA's 3.7 MB event)", withFields(t, 30_000, 1), http.StatusRequestEntityTooLarge, "over 1048576 bytes, the budget of one event"},
		{"an output field from 1,001 input fields", withFields(t, 1, openlineage.MaxInputFields+1), http.StatusBadRequest,
			"at /outputs/0/facets/columnLineage/fields/f0/inputFields: 1001 input fields, more than the 1000"},
		{"the 9 fields of the event and 5,000 more", withFields(t, openlineage.MaxOutputFields, 1), http.StatusBadRequest,
			"at /outputs/0/facets/columnLineage/fields: 5009 output fields, more than the 5000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, srv.URL, tc.body)
			if code != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("%d %q, want %d with %q", code, body, tc.code, tc.want)
			}
		})
	}
	if s.Len() != 0 {
		t.Errorf("%d events kept, want none", s.Len())
	}
}

// With a token, a POST without Authorization: Bearer <token> (or with another) is 401
// and kept nowhere; GET (what the pages show anyway) stays open.
func TestPostNeedsTheTokenWhenOneIsSet(t *testing.T) {
	s, srv := serveStore(t, "", nil)
	s.Token = "s3cret"
	event := string(compactEvent(t, adapted))
	accepted := 0
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Basic s3cret", "bearer s3cret", "Bearer s3cret"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+Path, strings.NewReader(event))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		want := http.StatusUnauthorized
		if strings.EqualFold(auth, "Bearer s3cret") { // the scheme's name is case-insensitive
			want = http.StatusCreated
			if accepted++; accepted > 1 {
				want = http.StatusOK // the same event again: kept once
			}
		}
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: %d, want %d", auth, resp.StatusCode, want)
		}
	}
	if s.Len() != 1 {
		t.Errorf("%d events kept, want the one with the token", s.Len())
	}
	if resp, err := http.Get(srv.URL + Path); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET without the token: %v %v", resp, err)
	}
}

// runOf is the adapted Flink event of another run, at another time.
func runOf(t *testing.T, runID, eventType, at string) string {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(compactEvent(t, adapted), &e); err != nil {
		t.Fatal(err)
	}
	e["run"].(map[string]any)["runId"] = runID
	e["eventType"], e["eventTime"] = eventType, at
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The store keeps, of each job, the latest completed run and the runs begun after it:
// a COMPLETE supersedes the job's earlier runs, in memory, after a restart, and in the
// file once most of it is superseded events.
func TestACompletedRunSupersedesTheJobsEarlierRuns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "events.jsonl")
	s, srv := serveStore(t, file, nil)
	const r1, r2, r3 = "0193d2a4-6c1e-7b4a-9f3e-5a1c2b3d4e11", "0193d2a4-6c1e-7b4a-9f3e-5a1c2b3d4e12", "0193d2a4-6c1e-7b4a-9f3e-5a1c2b3d4e13"
	for _, ev := range []struct{ run, typ, at string }{
		{r1, "START", "2026-11-30T10:00:00Z"}, {r1, "COMPLETE", "2026-11-30T10:05:00Z"},
		{r2, "START", "2026-11-30T11:00:00Z"}, {r3, "START", "2026-11-30T11:30:00Z"},
		{r2, "COMPLETE", "2026-11-30T11:45:00Z"},
	} {
		if code, body := post(t, srv.URL, runOf(t, ev.run, ev.typ, ev.at)); code != http.StatusCreated {
			t.Fatalf("%s %s: %d %s", ev.run, ev.typ, code, body)
		}
	}
	runs := func(s *Store) []string {
		var out []string
		for _, ev := range s.events {
			out = append(out, ev.key.runID[len(ev.key.runID)-2:]+" "+ev.key.eventType)
		}
		return out
	}
	want := "[12 START 13 START 12 COMPLETE]"
	if got := fmt.Sprint(runs(s)); got != want {
		t.Errorf("held %s, want %s (run 11 superseded by 12, 13 begun after it)", got, want)
	}
	// a late event of a superseded run changes nothing
	if code, _ := post(t, srv.URL, runOf(t, r1, "OTHER", "2026-11-30T12:00:00Z")); code != http.StatusOK || s.Len() != 3 {
		t.Errorf("a late event of run 11: %d, %d held; want 200 and 3", code, s.Len())
	}
	again, err := Open(file, nil)
	if err != nil || fmt.Sprint(runs(again)) != want {
		t.Errorf("reopened: %v %v, want %s", runs(again), err, want)
	}
	// enough superseded runs (over 1 MiB of them) make the file compact itself
	for i := range 300 {
		id := fmt.Sprintf("0193d2a4-6c1e-7b4a-9f3e-5a1c2b3d%04d", i)
		if code, body := post(t, srv.URL, runOf(t, id, "COMPLETE", "2026-11-30T13:00:00Z")); code != http.StatusCreated {
			t.Fatalf("run %d: %d %s", i, code, body)
		}
	}
	if s.Len() != 1 {
		t.Errorf("%d events held after 300 completed runs of one job, want 1", s.Len())
	}
	if b := readFile(t, file); bytes.Count(b, []byte("\n")) >= 300 || len(b) > 2*s.bytes+1<<20 {
		t.Errorf("the file holds %d lines, %d bytes, want it compacted to at most twice the events held and 1 MiB", bytes.Count(b, []byte("\n")), len(b))
	}
}

// A job that runs every minute for months must not grow the store: the runs it
// remembers are those with events held, and the superseded runs it remembers by id
// are the last budget's worth. A late event of a run forgotten beyond that is still
// superseded when it is older than the latest completed run.
func TestRunsForgottenOnceSuperseded(t *testing.T) {
	s, err := open("", nil, budget{events: 50, bytes: MaxBytes, jobBytes: MaxJobBytes})
	if err != nil {
		t.Fatal(err)
	}
	at := func(i int) string {
		return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
	}
	keep := func(id, typ, when string) outcome {
		line := runOf(t, id, typ, when)
		e, err := openlineage.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		return s.keep(e, []byte(line))
	}
	const runs = 1000
	for i := range runs {
		id := fmt.Sprintf("0193d2a4-6c1e-7b4a-9f3e-%012d", i)
		keep(id, "START", at(i))
		keep(id, "COMPLETE", at(i))
	}
	if len(s.runs) != 1 || len(s.gone) > 50 || len(s.goneOrder) > 50 || s.Len() != 2 {
		t.Errorf("after %d runs: %d runs, %d gone (%d in order), %d events held; want 1, at most 50, 2", runs, len(s.runs), len(s.gone), len(s.goneOrder), s.Len())
	}
	// run 10 is beyond the last 50 remembered: its late event is older than the
	// latest completed run, so it is superseded all the same
	if o := keep(fmt.Sprintf("0193d2a4-6c1e-7b4a-9f3e-%012d", 10), "OTHER", at(10)); o != superseded {
		t.Errorf("a late event of a long-forgotten run: %v, want superseded", o)
	}
	// one of the last 50 is superseded whatever its time
	if o := keep(fmt.Sprintf("0193d2a4-6c1e-7b4a-9f3e-%012d", runs-2), "OTHER", at(runs+10)); o != superseded {
		t.Errorf("a late event of a recently superseded run: %v, want superseded", o)
	}
	// a new run is kept
	if o := keep("0193d2a4-6c1e-7b4a-9f3e-999999999999", "START", at(runs+20)); o != kept {
		t.Errorf("a new run: %v, want kept", o)
	}
}
