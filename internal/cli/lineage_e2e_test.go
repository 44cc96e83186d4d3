package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// httpDo sends a request and returns the status and body.
func httpDo(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// End to end, as issue 17 asks: serve runs on a test repository (the example tree in
// Git), OpenLineage events built from OpenLineage's published Flink and Spark examples
// (adapted to the repository's topics; internal/lineage/openlineage/testdata/SOURCE.md)
// are posted to it, a bad one is refused with where and why, and the drift shows in
// lineage verify --url and on the lineage page, also after a restart on the same file.
func TestLineageEndToEnd(t *testing.T) {
	t.Setenv("CONTRACTBOT_WEBHOOK_SECRET", "")
	t.Setenv("GITHUB_TOKEN", "")
	dir, _ := exampleRepo(t)
	events := filepath.Join(t.TempDir(), "events.jsonl")
	base := startServe(t, "--repo", dir, "--lineage-events", events, "--insecure-lineage-without-token")

	if code, page := httpDo(t, http.MethodGet, base+"/lineage", ""); code != http.StatusOK || !strings.Contains(page, "No OpenLineage event received yet") {
		t.Fatalf("the lineage page before any event: %d\n%s", code, page)
	}
	adapted := "../lineage/openlineage/testdata/adapted/"
	for _, f := range []string{"flink-dwd-order-detail-start.json", "flink-dwd-order-detail-complete.json", "spark-order-fraud-rules-complete.json"} {
		data, err := os.ReadFile(adapted + f)
		if err != nil {
			t.Fatal(err)
		}
		if code, body := httpDo(t, http.MethodPost, base+"/api/v1/lineage", string(data)); code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", f, code, body)
		}
		if f == "flink-dwd-order-detail-complete.json" {
			bad := strings.Replace(string(data), `"eventTime": "2026-11-30T10:05:00.000Z"`, `"eventTime": "30/11/2026 10:05"`, 1)
			code, body := httpDo(t, http.MethodPost, base+"/api/v1/lineage", bad)
			if code != http.StatusBadRequest || !strings.Contains(body, "at /eventTime: '30/11/2026 10:05' is not valid date-time") {
				t.Errorf("a bad event: %d %s", code, body)
			}
		}
	}

	out, errOut, code := runCLI(t, "lineage", "verify", "--repo", dir, "--url", base)
	if code != 1 {
		t.Fatalf("lineage verify --url: exit %d, want 1 (drift)\n%s%s", code, out, errOut)
	}
	checkLineageGolden(t, "verify-e2e.txt", out)

	code, page := httpDo(t, http.MethodGet, base+"/lineage", "")
	if code != http.StatusOK {
		t.Fatalf("GET /lineage: %d", code)
	}
	// The pages put a line-break point (<wbr>) after each . _ - / of an identifier;
	// the text a reader sees is the page without them.
	page = strings.ReplaceAll(page, "<wbr>", "")
	for _, want := range []string{
		"From 3 OpenLineage events, 2 jobs reading contract topics",
		`<code>contracts/orders/order-created/consumers/order-fraud-rules.yaml</code> <span class="tag bad">missing</span>`,
		`<th scope="row">dwd-order-detail</th><td data-label="Subject"><a href="/subjects/orders.order-created-value">orders.order-created-value</a></td><td data-label="Field"><code>event_time</code></td>`,
		`<th scope="row">dwd-order-detail</th><td data-label="Subject"><a href="/subjects/orders.order-created-value">orders.order-created-value</a></td><td data-label="Field"><code>coupon_code</code></td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the lineage page lacks %s\n%s", want, page)
		}
	}

	// A restart on the same file shows the same drift.
	again := startServe(t, "--repo", dir, "--lineage-events", events, "--insecure-lineage-without-token")
	if out2, _, _ := runCLI(t, "lineage", "verify", "--repo", dir, "--url", again); out2 != out {
		t.Errorf("after a restart lineage verify says:\n%s\nwant\n%s", out2, out)
	}
}
