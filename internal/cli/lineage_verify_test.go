package cli

import (
	"encoding/json"
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
	srv := lineageEndpoint(t, file, "", true)
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
	again, err := newLineage(file, "", true, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux2 := http.NewServeMux()
	again.Mount(mux2)
	srv2 := httptest.NewServer(mux2)
	defer srv2.Close()
	if out2, _, _ := runCLI(t, "lineage", "verify", "--repo", "../..", "--url", srv2.URL); out2 != out {
		t.Errorf("after a restart:\n%s", out2)
	}
}

// A job is matched to a consumer file by the file's openlineage key, else by a name
// equal to the job's: Spark's <app>.<action> job is not taken for a consumer named
// after its action, and a job name is never pasted raw into a suggested file name.
func TestLineageVerifyMatchesJobsByTheOpenLineageKey(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"contracts", "calendar"} {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join("../..", d))); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile("testdata/lineage/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	fraud := lines[len(lines)-1] // the order-fraud-rules job, reading the ODS topic
	if !strings.Contains(fraud, `"name": "flink-jobs/order-fraud-rules"`) {
		t.Fatalf("the last test event is not order-fraud-rules: %s", fraud)
	}
	rename := func(ns, job string) string {
		var e map[string]any
		if err := json.Unmarshal([]byte(fraud), &e); err != nil {
			t.Fatal(err)
		}
		e["job"] = map[string]string{"namespace": ns, "name": job}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	events := filepath.Join(dir, "events.jsonl")
	spark, script := rename("spark-jobs", "order-fraud-rules.collect_limit"), rename("spark-jobs", "<script>alert(1)</script>")
	if err := os.WriteFile(events, []byte(spark+"\n"+script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	verify := func() string {
		out, errOut, _ := runCLI(t, "lineage", "verify", "--repo", dir, "--openlineage", events)
		return out + errOut
	}
	out := verify()
	for _, want := range []string{
		"job order-fraud-rules.collect_limit (namespace spark-jobs) reads orders.order-created-value (topic ods_order_events), and no consumer file of it names the job: add `openlineage: {namespace: \"spark-jobs\", job: \"order-fraud-rules.collect_limit\"}` to the job's file in contracts/orders/order-created/consumers/, or write contracts/orders/order-created/consumers/order-fraud-rules-collect_limit.yaml with that key",
		`job "<script>alert(1)</script>" (namespace spark-jobs)`,
		"consumers/script-alert-1-script.yaml",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify does not say %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"consumers/collect_limit.yaml", "script>.yaml"} {
		if strings.Contains(out, bad) {
			t.Errorf("verify suggests %s:\n%s", bad, out)
		}
	}
	declare := func(ns string) {
		file := filepath.Join(dir, "contracts/orders/order-created/consumers/order-fraud-rules.yaml")
		body := "name: order-fraud-rules\nowner: risk\nkind: spark-job\nreads: [order_id]\nopenlineage: {namespace: " + ns + ", job: order-fraud-rules.collect_limit}\n"
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	declare("spark-jobs")
	if out := verify(); strings.Contains(out, "order-fraud-rules.collect_limit (namespace spark-jobs) reads") || !strings.Contains(out, "job order-fraud-rules.collect_limit reads orders.order-created-value without field-level lineage") {
		t.Errorf("the file's openlineage key does not match the job:\n%s", out)
	}
	declare("flink-jobs")
	if out := verify(); !strings.Contains(out, "order-fraud-rules.collect_limit (namespace spark-jobs) reads") {
		t.Errorf("a key of another namespace matches the job:\n%s", out)
	}
}

// lineageEndpoint serves what serve mounts for OpenLineage events on loopback
// (anyone: --insecure-lineage-without-token).
func lineageEndpoint(t *testing.T, file, token string, anyone bool) *httptest.Server {
	t.Helper()
	mount, err := newLineage(file, token, anyone, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mount.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// serve's --lineage-token (or CONTRACTBOT_LINEAGE_TOKEN) reaches the endpoint: a POST
// without it is 401 (olstore's tests try the other headers).
func TestLineageTokenReachesTheEndpoint(t *testing.T) {
	srv := lineageEndpoint(t, "", "s3cret", false)
	data, err := os.ReadFile("testdata/lineage/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+"/api/v1/lineage", "application/json", strings.NewReader(strings.SplitN(string(data), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a POST without the token: %d, want 401", resp.StatusCode)
	}
}

// Events that name no Kafka topic a contract declares compare nothing: verify says so,
// lists the datasets it could not map and exits 3, not 0 ("matches").
func TestLineageVerifyComparedNothing(t *testing.T) {
	out, errOut, code := runCLI(t, "lineage", "verify", "--repo", "../..", "--openlineage", "testdata/lineage/events-no-kafka.jsonl")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (compared nothing)\n%s%s", code, out, errOut)
	}
	checkLineageGolden(t, "verify-nothing.txt", out)
}

// Without a token serve takes no OpenLineage event (403, naming the way out), unless
// --insecure-lineage-without-token says so; the flag and a token exclude each other.
func TestLineageEndpointIsClosedWithoutAToken(t *testing.T) {
	srv := lineageEndpoint(t, "", "", false)
	data, err := os.ReadFile("testdata/lineage/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+"/api/v1/lineage", "application/json", strings.NewReader(strings.SplitN(string(data), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "--insecure-lineage-without-token") {
		t.Errorf("a POST to serve without a token: %d %q", resp.StatusCode, body)
	}
	if _, err := newLineage("", "s3cret", true, nil, nil); err == nil {
		t.Error("a token and --insecure-lineage-without-token were both taken")
	}
}
