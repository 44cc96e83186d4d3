package events

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contractbot/contractbot/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// sample is an event with every field set, as publish would build it.
func sample() Event {
	return New("https://github.com/acme/contracts", time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Published{
		Subject: "orders.order-created-value", Version: 3, ID: 17, RegisteredID: 101,
		Previous: &Ref{Version: 2, ID: 12}, Format: "avro", Level: "BACKWARD_TRANSITIVE", Class: "COMPATIBLE",
		Changes: []FieldChange{{Kind: "promoted", Path: "amount", Old: "int", New: "long", Effect: "meaning",
			Message: `field "amount" was promoted from int to long.`}},
		Affected: []Consumer{
			{Name: "dwd-order-detail", Subject: "orders.order-created-value", Owner: "data-warehouse", Effect: "meaning", Direct: true},
			{Name: "gmv-1min", Subject: "dw.order-detail-value", Owner: "analytics", Effect: "meaning", Hops: 1},
		},
		SignOffs: []SignOff{{Team: "data-warehouse", Status: "approved", ApprovedBy: "dora", At: time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC),
			RequestedAt: time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)}},
		Calendar:    "calendar/2026-12-03-promote-amount.yaml",
		PullRequest: &PullRequest{Number: 42, URL: "https://github.com/acme/contracts/pull/42"},
		MergeCommit: "1f0c2a9d4b7e5c1d0e2a9f311f0c2a9d4b7e5c1d",
		SchemaFile:  "contracts/orders/order-created/order_created.avsc",
	})
}

// eventSchema compiles docs/schemas/change-event.schema.json.
func eventSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join(testutil.RepoRoot(t), "docs", "schemas", "change-event.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("change-event.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("change-event.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validateLine fails the test unless line is an event the JSON Schema accepts.
func validateLine(t *testing.T, s *jsonschema.Schema, line []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, line)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("event does not match docs/schemas/change-event.schema.json: %v\n%s", err, line)
	}
}

func TestEventGoldenAndSchema(t *testing.T) {
	e := sample()
	if e.ID != ID(e.Data.MergeCommit, e.Subject, 3) || len(e.ID) != 32 {
		t.Fatalf("id %q is not the deterministic id", e.ID)
	}
	first, again := ID("a", "b", 1), ID("a", "b", 1)
	if first == ID("a", "b", 2) || first != again {
		t.Fatal("ids must differ by version and be stable")
	}
	b, err := Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	validateLine(t, eventSchema(t), b)
	// The minimal event (first version, nothing affected) is valid too.
	min := New("file:///srv/contracts", time.Unix(0, 0), Published{Subject: "x-value", Version: 1, ID: 1,
		Format: "protobuf", Level: "NONE", Class: "SAFE", MergeCommit: e.Data.MergeCommit, SchemaFile: "contracts/x/x/x.proto"})
	mb, _ := Marshal(min)
	validateLine(t, eventSchema(t), mb)
	// The schema is not vacuous: a wrong class and a missing merge commit are refused.
	bad := e
	bad.Data.Class, bad.Data.MergeCommit = "FINE", ""
	bb, _ := Marshal(bad)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bb))
	if eventSchema(t).Validate(v) == nil {
		t.Error("the schema accepts class FINE and an empty merge commit")
	}

	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden := filepath.Join("testdata", "event.golden.json")
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("event differs from %s (go test -update rewrites it):\n%s", golden, pretty.Bytes())
	}
}

func TestFileAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "events.jsonl")
	for round := 0; round < 2; round++ { // reopening appends, never truncates
		s, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if err := s.Send(context.Background(), sample()); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	lines := ReadLines(t, path)
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6", len(lines))
	}
	sch := eventSchema(t)
	for _, l := range lines {
		validateLine(t, sch, l)
	}
}

// ReadLines returns the lines of a JSON-lines file.
func ReadLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

func TestHTTPSignsAndRetries(t *testing.T) {
	secret := []byte("s3cret")
	var calls atomic.Int32
	var (
		mu  sync.Mutex // handlers run on the server's goroutines, the timed-out one late
		got []byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		switch n {
		case 1:
			http.Error(w, "down for a moment", http.StatusServiceUnavailable)
			return
		case 2:
			time.Sleep(300 * time.Millisecond) // longer than the attempt's timeout
			return                             // the sender has given up on this one
		}
		if r.Header.Get("Content-Type") != MediaType || r.Header.Get("Ce-Id") == "" {
			t.Errorf("headers %v", r.Header)
		}
		if !Verify(secret, body, r.Header.Get(SignatureHeader)) {
			t.Errorf("bad signature %q", r.Header.Get(SignatureHeader))
		}
		mu.Lock()
		got = body
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	h := NewHTTP(srv.URL, WithSecret(secret), WithHTTPRetry(4, time.Millisecond), WithHTTPTimeout(100*time.Millisecond))
	if err := h.Send(context.Background(), sample()); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls, want 3 (503, timeout, 202)", calls.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	var e Event
	if err := json.Unmarshal(got, &e); err != nil || e.ID != sample().ID {
		t.Errorf("posted %s (%v)", got, err)
	}
}

func TestHTTPGivesUp(t *testing.T) {
	for _, tc := range []struct {
		status, calls int
	}{{http.StatusBadRequest, 1}, {http.StatusInternalServerError, 3}} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			http.Error(w, "no", tc.status)
		}))
		err := NewHTTP(srv.URL, WithHTTPRetry(3, time.Millisecond)).Send(context.Background(), sample())
		srv.Close()
		if err == nil || int(calls.Load()) != tc.calls {
			t.Errorf("status %d: %d calls, err %v; want %d calls and an error", tc.status, calls.Load(), err, tc.calls)
		}
	}
	// A refused connection is retried, then reported.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if err := NewHTTP(url, WithHTTPRetry(2, time.Millisecond)).Send(context.Background(), sample()); err == nil {
		t.Error("a closed endpoint must be an error")
	}
}
