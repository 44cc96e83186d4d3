package olstore

import (
	"bytes"
	"io"
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
	s, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	if code, body := post(t, srv.URL, string(good)); code != http.StatusCreated {
		t.Fatalf("the good event: %d %s", code, body)
	}
	kept, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
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
	again, err := Open(file)
	if err != nil || again.Len() != 1 {
		t.Errorf("reopened: %d events, %v", again.Len(), err)
	}
}
