package registry

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	hambareg "github.com/hamba/avro/v2/registry"
	"github.com/twmb/franz-go/pkg/sr"
	"go.yaml.in/yaml/v3"
)

// gitSubject is a subject as the files at the repository's head say.
type gitSubject struct {
	folder, subject, format, level, schema string
}

func headSubjects(t *testing.T, dir string) []gitSubject {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "contracts/*/*/contract.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no contracts in %s: %v", dir, err)
	}
	var out []gitSubject
	for _, f := range files {
		var c struct{ Subject, Format, Compatibility, Schema string }
		data, _ := os.ReadFile(f)
		if err := yaml.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(filepath.Join(filepath.Dir(f), c.Schema))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, gitSubject{filepath.Dir(f), c.Subject, c.Format, c.Compatibility, string(text)})
	}
	return out
}

func newTestServer(t *testing.T) (*Server, *httptest.Server, string) {
	t.Helper()
	dir, repo := testRepo(t)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts, dir
}

// TestFranzGoClient: franz-go's registry client reads every subject's latest version,
// by subject and by id, looks each schema up and reads each level; all match the files.
func TestFranzGoClient(t *testing.T) {
	_, ts, dir := newTestServer(t)
	ctx := context.Background()
	cl, err := sr.NewClient(sr.URLs(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	subs := headSubjects(t, dir)
	listed, err := cl.Subjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(subs) {
		t.Errorf("Subjects() = %d subjects, want %d: %v", len(listed), len(subs), listed)
	}
	for _, g := range subs {
		latest, err := cl.SchemaByVersion(ctx, g.subject, -1)
		if err != nil {
			t.Fatalf("%s latest: %v", g.subject, err)
		}
		if latest.Schema.Schema != g.schema {
			t.Errorf("%s latest: text differs from %s", g.subject, g.folder)
		}
		wantType := sr.TypeAvro
		switch g.format {
		case "protobuf":
			wantType = sr.TypeProtobuf
		case "json":
			wantType = sr.TypeJSON
		}
		if latest.Type != wantType {
			t.Errorf("%s: type %v, want %v", g.subject, latest.Type, wantType)
		}
		byID, err := cl.SchemaByID(ctx, latest.ID)
		if err != nil {
			t.Fatalf("%s id %d: %v", g.subject, latest.ID, err)
		}
		if byID.Schema != g.schema || byID.Type != wantType {
			t.Errorf("%s: schema id %d differs from the file", g.subject, latest.ID)
		}
		found, err := cl.LookupSchema(ctx, g.subject, sr.Schema{Schema: g.schema, Type: wantType})
		if err != nil {
			t.Fatalf("%s lookup: %v", g.subject, err)
		}
		if found.ID != latest.ID || found.Version != latest.Version {
			t.Errorf("%s lookup: id %d version %d, want %d %d", g.subject, found.ID, found.Version, latest.ID, latest.Version)
		}
		res := cl.Compatibility(ctx, g.subject)
		if res[0].Err != nil || res[0].Level.String() != g.level {
			t.Errorf("%s level: %v %v, want %s", g.subject, res[0].Level, res[0].Err, g.level)
		}
		vs, err := cl.SchemaVersionsByID(ctx, latest.ID)
		if err != nil || len(vs) == 0 {
			t.Errorf("%s: versions of id %d: %v %v", g.subject, latest.ID, vs, err)
		}
	}
	// Version 1 of a changed subject is the text of the first commit.
	orig, _ := os.ReadFile("../../contracts/orders/order-created/order_created.avsc")
	v1, err := cl.SchemaByVersion(ctx, "orders.order-created-value", 1)
	if err != nil || v1.Schema.Schema != string(orig) {
		t.Errorf("order-created version 1 is not the original text: %v", err)
	}
	v2, _ := cl.SchemaByVersion(ctx, "orders.order-created-value", 2)
	if v2.ID <= v1.ID {
		t.Errorf("version 2 id %d is not after version 1 id %d", v2.ID, v1.ID)
	}
	// Writes are refused with 42205.
	_, err = cl.CreateSchema(ctx, "orders.order-created-value", sr.Schema{Schema: string(orig)})
	var re *sr.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != CodeNotPermitted || re.StatusCode != 422 {
		t.Errorf("CreateSchema: %v, want error code 42205", err)
	}
	// A compatibility test through our checkers.
	ok, err := cl.CheckCompatibility(ctx, "orders.order-created-value", -1, sr.Schema{Schema: string(orig)})
	if err != nil || !ok.Is {
		t.Errorf("the previous version is backward compatible at BACKWARD_TRANSITIVE: %+v %v", ok, err)
	}
}

// TestHambaClient: hamba/avro's registry client fetches Avro schemas by id and by
// subject, looks them up and reads levels; parsed, they equal the files.
func TestHambaClient(t *testing.T) {
	_, ts, dir := newTestServer(t)
	ctx := context.Background()
	cl, err := hambareg.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range headSubjects(t, dir) {
		if g.format != "avro" {
			continue
		}
		n++
		want, err := hamba.Parse(g.schema)
		if err != nil {
			t.Fatal(err)
		}
		info, err := cl.GetLatestSchemaInfo(ctx, g.subject)
		if err != nil {
			t.Fatalf("%s: %v", g.subject, err)
		}
		if info.Schema.String() != want.String() {
			t.Errorf("%s latest differs from the file", g.subject)
		}
		byID, err := cl.GetSchema(ctx, info.ID)
		if err != nil || byID.Fingerprint() != want.Fingerprint() {
			t.Errorf("%s id %d: %v", g.subject, info.ID, err)
		}
		byVersion, err := cl.GetSchemaByVersion(ctx, g.subject, info.Version)
		if err != nil || byVersion.Fingerprint() != want.Fingerprint() {
			t.Errorf("%s version %d: %v", g.subject, info.Version, err)
		}
		id, _, err := cl.IsRegistered(ctx, g.subject, g.schema)
		if err != nil || id != info.ID {
			t.Errorf("%s IsRegistered: %d %v, want %d", g.subject, id, err, info.ID)
		}
		lvl, err := cl.GetCompatibilityLevel(ctx, g.subject)
		if err != nil || lvl != g.level {
			t.Errorf("%s level %q %v, want %s", g.subject, lvl, err, g.level)
		}
		compatible, err := cl.IsCompatible(ctx, g.subject, g.schema)
		if err != nil || !compatible {
			t.Errorf("%s: its own schema is not compatible: %v", g.subject, err)
		}
	}
	if n < 5 {
		t.Fatalf("only %d Avro subjects checked", n)
	}
	_, err = cl.GetSchema(ctx, 9999)
	var he hambareg.Error
	if !errors.As(err, &he) || he.StatusCode != 404 || he.Code != CodeSchemaNotFound {
		t.Errorf("GetSchema(9999): %v, want 40403", err)
	}
}

// TestProtobufReferences: Protobuf versions name their imports of other subjects,
// pinned to the version current when they appeared; Avro versions carry no schemaType.
func TestProtobufReferences(t *testing.T) {
	_, ts, _ := newTestServer(t)
	ctx := context.Background()
	c, _ := NewClient(ts.URL)
	for _, tc := range []struct{ version, moneyVersion int }{{1, 1}, {2, 2}} {
		s, err := c.GetVersion(ctx, "payments.payment-authorized-value", tc.version)
		if err != nil {
			t.Fatal(err)
		}
		want := []Reference{{Name: "common/money/money.proto", Subject: "common.money-value", Version: tc.moneyVersion}}
		if s.SchemaType != Protobuf || len(s.References) != 1 || s.References[0] != want[0] {
			t.Errorf("version %d: type %q references %+v, want %+v", tc.version, s.SchemaType, s.References, want)
		}
		byID, _ := c.GetByID(ctx, s.ID)
		if len(byID.References) != 1 || byID.References[0] != want[0] {
			t.Errorf("id %d: references %+v", s.ID, byID.References)
		}
	}
	// Well-known imports are not references.
	fs, _ := c.GetLatest(ctx, "risk.fraud-score-value")
	if len(fs.References) != 0 {
		t.Errorf("fraud-score references %+v, want none", fs.References)
	}
	body, _, _ := get(t, ts.URL+"/subjects/orders.order-created-value/versions/latest")
	if strings.Contains(body, "schemaType") || strings.Contains(body, "references") {
		t.Errorf("Avro version carries schemaType or references: %s", body)
	}
	// A breaking Protobuf change is reported by our checker.
	latest, _ := c.GetLatest(ctx, "common.money-value")
	broken := strings.Replace(latest.Schema, "int64 units = 2;", "string units = 2;", 1)
	res, err := c.TestCompatibility(ctx, "common.money-value", "latest", broken, Protobuf, nil)
	if err != nil || res.IsCompatible || len(res.Messages) == 0 {
		t.Errorf("changing units' type: %+v %v, want incompatible with messages", res, err)
	}
	pa, _ := c.GetLatest(ctx, "payments.payment-authorized-value")
	res, err = c.TestCompatibility(ctx, "payments.payment-authorized-value", "latest", pa.Schema, Protobuf, pa.References)
	if err != nil || !res.IsCompatible {
		t.Errorf("payment-authorized against itself: %+v %v", res, err)
	}
}

func get(t *testing.T, url string) (string, int, http.Header) {
	t.Helper()
	return do(t, http.MethodGet, url, "")
}

func do(t *testing.T, method, url, body string) (string, int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", ContentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return string(data), resp.StatusCode, resp.Header
}

// TestErrors: not-found cases, invalid versions and refused writes answer Confluent's
// status codes and error bodies.
func TestErrors(t *testing.T) {
	_, ts, _ := newTestServer(t)
	oc := "/subjects/orders.order-created-value"
	schema, _ := json.Marshal(map[string]string{"schema": `{"type":"string"}`})
	for _, tc := range []struct {
		method, path, body string
		status, code       int
		contains           string
	}{
		{"GET", "/subjects/nope/versions", "", 404, 40401, "Subject 'nope' not found"},
		{"GET", "/subjects/nope/versions/latest", "", 404, 40401, ""},
		{"GET", oc + "/versions/9", "", 404, 40402, "Version 9 not found"},
		{"GET", oc + "/versions/0", "", 422, 42202, "not a valid version"},
		{"GET", oc + "/versions/abc", "", 422, 42202, ""},
		{"GET", "/schemas/ids/9999", "", 404, 40403, "Schema 9999 not found"},
		{"GET", "/schemas/ids/x/versions", "", 404, 40403, ""},
		{"POST", oc, string(schema), 404, 40403, "Schema not found"},
		{"POST", "/subjects/nope", string(schema), 404, 40401, ""},
		{"POST", oc + "/versions", string(schema), 422, 42205, "pull request"},
		{"DELETE", oc, "", 422, 42205, "contracts/orders/order-created"},
		{"DELETE", oc + "/versions/1", "", 422, 42205, ""},
		{"PUT", "/config/orders.order-created-value", `{"compatibility":"NONE"}`, 422, 42205, ""},
		{"PUT", "/config", `{"compatibility":"NONE"}`, 422, 42205, ""},
		{"PUT", "/mode", `{"mode":"READWRITE"}`, 422, 42205, ""},
		{"GET", "/config/nope", "", 404, 40408, ""},
		{"GET", "/nothing/here", "", 404, 404, ""},
		// A method a known path does not take: 405, as Jersey answers, with Confluent's body.
		{"PUT", oc + "/versions/1", "", 405, 405, "HTTP 405 Method Not Allowed"},
		{"PATCH", oc + "/versions", "", 405, 405, "HTTP 405 Method Not Allowed"},
		{"POST", "/schemas/ids/1", "", 405, 405, "HTTP 405 Method Not Allowed"},
		// A schema type no provider serves: 42201 "Invalid schema type", as Confluent's loadSchema says.
		{"POST", oc, `{"schema":"<a/>","schemaType":"XML"}`, 422, 42201, "Invalid schema type XML"},
		{"POST", "/compatibility/subjects/orders.order-created-value/versions/latest", `{"schema":"<a/>","schemaType":"XML"}`, 422, 42201, "Invalid schema type XML"},
		{"GET", "/subjects/a%2Fb-value/versions", "", 404, 40401, "Subject 'a/b-value' not found"},
	} {
		body, status, hdr := do(t, tc.method, ts.URL+tc.path, tc.body)
		var e Error
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			t.Errorf("%s %s: body %q is not an error body", tc.method, tc.path, body)
			continue
		}
		if status != tc.status || e.Code != tc.code || !strings.Contains(e.Message, tc.contains) {
			t.Errorf("%s %s: %d %d %q, want %d %d containing %q", tc.method, tc.path, status, e.Code, e.Message, tc.status, tc.code, tc.contains)
		}
		if hdr.Get("Content-Type") != ContentType {
			t.Errorf("%s %s: content type %q", tc.method, tc.path, hdr.Get("Content-Type"))
		}
		if status == http.StatusMethodNotAllowed && !strings.Contains(hdr.Get("Allow"), "GET") {
			t.Errorf("%s %s: Allow %q, want the methods the path takes", tc.method, tc.path, hdr.Get("Allow"))
		}
	}
	for path, want := range map[string]string{
		"/mode":                             `{"mode":"READONLY"}`,
		"/schemas/types":                    `["AVRO","PROTOBUF","JSON"]`,
		"/config":                           `{"compatibilityLevel":"BACKWARD","compatibility":"BACKWARD"}`,
		"/config/nope?defaultToGlobal=true": `{"compatibilityLevel":"BACKWARD","compatibility":"BACKWARD"}`,
		oc + "/versions":                    `[1,2]`,
	} {
		if body, status, _ := get(t, ts.URL+path); status != 200 || body != want {
			t.Errorf("GET %s: %d %s, want %s", path, status, body, want)
		}
	}
	// Our client's typed errors.
	c, _ := NewClient(ts.URL)
	ctx := context.Background()
	if _, err := c.GetLatest(ctx, "nope"); !IsSubjectNotFound(err) || !IsNotFound(err) {
		t.Errorf("GetLatest(nope): %v", err)
	}
	if _, err := c.GetVersion(ctx, "orders.order-created-value", 7); !IsVersionNotFound(err) {
		t.Errorf("GetVersion 7: %v", err)
	}
	if _, err := c.Register(ctx, "orders.order-created-value", `{"type":"string"}`, Avro, nil); !IsNotPermitted(err) {
		t.Errorf("Register: %v", err)
	}
	if err := c.SetConfig(ctx, "", "NONE"); !IsNotPermitted(err) {
		t.Errorf("SetConfig: %v", err)
	}
	// Look-up matches canonical forms: the version re-marshalled (keys sorted, no
	// white space) is found; a schema that does not parse is 42201, as Confluent says.
	g, _ := c.GetVersion(ctx, "orders.order-created-value", 1)
	var v any
	_ = json.Unmarshal([]byte(g.Schema), &v)
	sorted, _ := json.Marshal(v)
	found, err := c.LookUp(ctx, "orders.order-created-value", string(sorted), Avro, nil)
	if err != nil || found.Version != 1 || found.ID != g.ID {
		t.Errorf("look-up of version 1 with its keys sorted: %+v %v", found, err)
	}
	if _, err := c.LookUp(ctx, "orders.order-created-value", `{"type":"record",`, Avro, nil); !IsInvalidSchema(err) {
		t.Errorf("look-up of a schema that does not parse: %v, want 42201", err)
	}
	// A backward-incompatible Avro change: a new field without a default.
	latest, _ := c.GetLatest(ctx, "orders.order-created-value")
	bad := strings.Replace(latest.Schema, `"name": "gift_note",`, `"name": "gift_note2", "type": "string"}, {"name": "gift_note",`, 1)
	res, err := c.TestCompatibility(ctx, "orders.order-created-value", "latest", bad, Avro, nil)
	if err != nil || res.IsCompatible || len(res.Messages) == 0 {
		t.Errorf("a field without default: %+v %v", res, err)
	}
	if _, err := c.TestCompatibility(ctx, "orders.order-created-value", "latest", `{"type":`, Avro, nil); !IsInvalidSchema(err) {
		t.Errorf("a schema that does not parse: %v", err)
	}
}
