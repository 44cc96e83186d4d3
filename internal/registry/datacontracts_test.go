package registry

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/versions"
)

// TestDataContractsCached: a start with a cached index reads no contract.yaml for the
// versions' metadata and rules (they come from the data contracts file the first
// start wrote) and answers every read, and a look-up that compares metadata and rules,
// byte for byte as the first start did. A damaged file is ignored with a warning.
func TestDataContractsCached(t *testing.T) {
	dir, repo := testRepo(t)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "fields:\n", `rules:
  - name: coupon-format
    kind: CONDITION
    type: CEL
    mode: WRITE
    expr: message.coupon_code == null || message.coupon_code.startsWith("C-")
    params: {dlq.topic: bad-orders}
fields:
`)
	commitAll(t, repo, "rules", 50)
	var log bytes.Buffer
	cache := &versions.Cache{Dir: t.TempDir(), Repo: dir, Branch: "master"}
	src := Source{Repo: repo, Branch: "master", Cache: cache, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	// start returns every answer of a registry started on src and how many
	// contract.yaml files its first build read.
	start := func() (map[string]string, int) {
		t.Helper()
		gate := make(chan struct{})
		srv, err := Start(src, gate)
		if err != nil {
			t.Fatal(err)
		}
		reads, read := 0, srv.b.contractAt
		srv.b.contractAt = func(v versions.Version) ([]byte, error) { reads++; return read(v) }
		close(gate)
		waitReady(t, srv)
		ts := httptest.NewServer(srv)
		defer ts.Close()
		answers := map[string]string{}
		do := func(method, path string, body []byte) []byte {
			req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", ContentType)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			answers[method+" "+path] = resp.Status + "\n" + string(b)
			return b
		}
		var subjects []string
		if err := json.Unmarshal(do("GET", "/subjects", nil), &subjects); err != nil {
			t.Fatal(err)
		}
		do("GET", "/schemas", nil)
		for _, s := range subjects {
			var nums []int
			if err := json.Unmarshal(do("GET", "/subjects/"+s+"/versions", nil), &nums); err != nil {
				t.Fatal(err)
			}
			do("GET", "/config/"+s, nil)
			for _, n := range nums {
				v := do("GET", "/subjects/"+s+"/versions/"+strconv.Itoa(n), nil)
				var sc Schema
				if err := json.Unmarshal(v, &sc); err != nil {
					t.Fatal(err)
				}
				do("GET", "/schemas/ids/"+strconv.Itoa(sc.ID), nil)
				sc.Subject, sc.Version, sc.ID = "", 0, 0
				lookup, _ := json.Marshal(sc)
				do("POST", "/subjects/"+s, lookup)
			}
		}
		return answers, reads
	}

	first, reads := start()
	if reads == 0 {
		t.Fatal("the first start read no contract.yaml: the test shows nothing")
	}
	all := ""
	for _, a := range first {
		all += a
	}
	if !strings.Contains(all, `"ruleSet":{"domainRules"`) || !strings.Contains(all, `"tags":{"**.`) {
		t.Fatal("no version has rules and PII tags: the test shows nothing")
	}
	second, reads := start()
	if reads != 0 {
		t.Errorf("the second start read %d contract.yaml files, want none (from the data contracts file)", reads)
	}
	same := func(got map[string]string) {
		t.Helper()
		for k, want := range first {
			if got[k] != want {
				t.Errorf("%s after a restart:\n%s\nwant\n%s", k, got[k], want)
			}
		}
	}
	same(second)

	if err := os.WriteFile(strings.TrimSuffix(cache.Path(), ".idx")+".contracts.json", []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	third, reads := start()
	if reads == 0 || !strings.Contains(log.String(), "ignoring the cached data contracts") {
		t.Errorf("a damaged file: %d contract.yaml files read, log:\n%s", reads, log.String())
	}
	same(third)
}
