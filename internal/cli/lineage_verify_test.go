package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Events shaped as OpenLineage's RunEvent (spec 2-0-2, columnLineage facet 1-2-0):
// dwd-order-detail does what its file says, dws-gmv-1min drifted, and a job without
// a consumer file reads the ODS topic.
func TestLineageVerify(t *testing.T) {
	out, errOut, code := runCLI(t, "lineage", "verify", "--repo", "../..", "--openlineage", "testdata/lineage/events.jsonl")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (drift)\n%s%s", code, out, errOut)
	}
	checkLineageGolden(t, "verify.txt", out)
	if strings.Contains(out, "dwd-order-detail.yaml") {
		t.Errorf("dwd-order-detail does what its file says, yet drifts:\n%s", out)
	}
}

func TestLineageVerifyRefusesBadEvents(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ line, want string }{
		"no run":   {`{"eventType":"COMPLETE","eventTime":"2026-11-30T10:00:00Z","producer":"https://x.example/","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","job":{"namespace":"n","name":"j"}}`, `events.jsonl:1: the event does not follow OpenLineage's JSON Schema for a RunEvent (spec 2-0-2): at "" (the event itself): missing property 'run'`},
		"bad type": {`{"eventType":"DONE","eventTime":"2026-11-30T10:00:00Z","producer":"https://x.example/","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{"runId":"01937a6e-0000-7000-8000-000000000009"},"job":{"namespace":"n","name":"j"}}`, `events.jsonl:1: the event does not follow OpenLineage's JSON Schema for a RunEvent (spec 2-0-2): at /eventType: value must be one of`},
		"not json": {`{"eventType":`, "events.jsonl:1: not an OpenLineage event"},
	} {
		p := filepath.Join(dir, "events.jsonl")
		if err := os.WriteFile(p, []byte(tc.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI(t, "lineage", "verify", "--repo", "../..", "--openlineage", p)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d %q, want %q", name, code, errOut, tc.want)
		}
	}
}

// End to end: the events are posted to the endpoint serve mounts, a bad one is
// refused with its reason and changes nothing, verify --url sees the same drift as
// from the file, and a restart on the same file keeps the events.
func TestLineageServeThenVerify(t *testing.T) {
	file := filepath.Join(t.TempDir(), "events.jsonl")
	mount, err := withLineage(nil, file, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mount(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	data, err := os.ReadFile("testdata/lineage/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		resp, err := http.Post(srv.URL+"/api/v1/lineage", "application/json", strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST: %s", resp.Status)
		}
	}
	resp, err := http.Post(srv.URL+"/api/v1/lineage", "application/json", strings.NewReader(`{"eventType":"COMPLETE","producer":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `at "" (the event itself): missing properties 'run', 'job'`) {
		t.Errorf("a bad event: %s %s", resp.Status, body)
	}
	out, errOut, code := runCLI(t, "lineage", "verify", "--repo", "../..", "--url", srv.URL)
	if code != 1 {
		t.Fatalf("verify --url: exit %d\n%s%s", code, out, errOut)
	}
	want, _ := os.ReadFile("testdata/lineage/verify.txt")
	if out != string(want) {
		t.Errorf("verify --url differs from verify --openlineage:\n%s\nwant\n%s", out, want)
	}
	again, err := withLineage(nil, file, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux2 := http.NewServeMux()
	again(mux2)
	srv2 := httptest.NewServer(mux2)
	defer srv2.Close()
	if out2, _, _ := runCLI(t, "lineage", "verify", "--repo", "../..", "--url", srv2.URL); out2 != out {
		t.Errorf("after a restart:\n%s", out2)
	}
}
