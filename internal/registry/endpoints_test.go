package registry

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/twmb/franz-go/pkg/sr"
)

// GET /contexts, GET /schemas and .../referencedby through franz-go's client, checked
// against what the per-subject reads say.
func TestContextsSchemasReferencedBy(t *testing.T) {
	_, ts, _ := newTestServer(t)
	ctx := context.Background()
	cl, err := sr.NewClient(sr.URLs(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cl.Contexts(ctx); err != nil || !slices.Equal(got, []string{"."}) {
		t.Errorf("Contexts() = %v %v, want [.]", got, err)
	}
	all, err := cl.AllSchemas(ctx)
	if err != nil {
		t.Fatal(err)
	}
	subjects, _ := cl.Subjects(ctx)
	want := 0
	referencing := map[[2]any][]int{} // subject, version -> ids of schemas referencing it
	for _, s := range subjects {
		vs, _ := cl.SubjectVersions(ctx, s)
		want += len(vs)
		for _, v := range vs {
			ss, err := cl.SchemaByVersion(ctx, s, v)
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range ss.References {
				k := [2]any{ref.Subject, ref.Version}
				if !slices.Contains(referencing[k], ss.ID) {
					referencing[k] = append(referencing[k], ss.ID)
				}
			}
		}
	}
	if len(all) != want || !slices.IsSortedFunc(all, func(a, b sr.SubjectSchema) int {
		return strings.Compare(a.Subject, b.Subject)*4 + (a.Version - b.Version)
	}) {
		t.Errorf("AllSchemas: %d schemas (want %d), ordered by subject and version", len(all), want)
	}
	if len(referencing) == 0 {
		t.Fatal("the example tree has no references")
	}
	for k, ids := range referencing {
		body, status, _ := get(t, ts.URL+"/subjects/"+k[0].(string)+"/versions/"+itoa(k[1].(int))+"/referencedby")
		slices.Sort(ids)
		if status != 200 || body != string(mustJSON(ids)) {
			t.Errorf("referencedby of %v: %d %s, want %v", k, status, body, ids)
		}
	}
	users, err := cl.SchemaReferences(ctx, "common.money-value", 1)
	if err != nil || len(users) == 0 || !slices.ContainsFunc(users, func(s sr.SubjectSchema) bool { return s.Subject == "payments.payment-authorized-value" }) {
		t.Errorf("SchemaReferences(common.money-value, 1) = %+v %v", users, err)
	}
	for path, want := range map[string]string{
		"/schemas?latestOnly=true&subjectPrefix=orders.order-created": `"version":2`,
		"/schemas?subjectPrefix=orders.order-created&limit=1":         `"version":1`,
		"/schemas?subjectPrefix=nothing":                              `[]`,
	} {
		if body, status, _ := get(t, ts.URL+path); status != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %s, want it to contain %s", path, status, body, want)
		}
	}
	if body, status, _ := get(t, ts.URL+"/subjects/nope/versions/1/referencedby"); status != 404 || !strings.Contains(body, "40401") {
		t.Errorf("referencedby of an unknown subject: %d %s", status, body)
	}
}

func itoa(n int) string { return string(mustJSON(n)) }

// By-id reads and numbered versions carry a strong ETag and an immutable
// Cache-Control and answer If-None-Match with 304; "latest" is not immutable.
func TestImmutableReadsAreCacheable(t *testing.T) {
	_, ts, _ := newTestServer(t)
	for _, path := range []string{"/schemas/ids/1", "/schemas/ids/1/schema", "/subjects/orders.order-created-value/versions/1", "/subjects/orders.order-created-value/versions/1/schema"} {
		body, status, hdr := get(t, ts.URL+path)
		tag := hdr.Get("ETag")
		if status != 200 || body == "" || !strings.HasPrefix(tag, `"`) || hdr.Get("Cache-Control") != ImmutableCacheControl {
			t.Errorf("GET %s: %d, ETag %q, Cache-Control %q", path, status, tag, hdr.Get("Cache-Control"))
			continue
		}
		for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
			req.Header.Set("If-None-Match", inm)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != tag {
				t.Errorf("GET %s with If-None-Match %s: %d, want 304", path, inm, resp.StatusCode)
			}
		}
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		req.Header.Set("If-None-Match", `"stale"`)
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s with a stale tag: %v %v, want 200", path, resp.StatusCode, err)
		} else {
			resp.Body.Close()
		}
	}
	_, _, hdr := get(t, ts.URL+"/subjects/orders.order-created-value/versions/latest")
	if strings.Contains(hdr.Get("Cache-Control"), "immutable") {
		t.Errorf("latest is cached as immutable: %q", hdr.Get("Cache-Control"))
	}
	// Two ids have different tags.
	_, _, h1 := get(t, ts.URL+"/schemas/ids/1")
	_, _, h2 := get(t, ts.URL+"/schemas/ids/2")
	if h1.Get("ETag") == h2.Get("ETag") {
		t.Error("ids 1 and 2 share an ETag")
	}
}

// Every version carries its data contract as metadata (contract.yaml at the commit
// where it first appeared), read back with franz-go's client.
func TestVersionsCarryMetadata(t *testing.T) {
	_, ts, _ := newTestServer(t)
	ctx := context.Background()
	cl, err := sr.NewClient(sr.URLs(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := cl.SchemaByVersion(ctx, "orders.order-created-value", 1)
	if err != nil {
		t.Fatal(err)
	}
	m := ss.SchemaMetadata
	if m == nil || m.Properties["owner"] != "orders" || m.Properties["tier"] != "core" || m.Properties["topic"] != "ods_order_events" ||
		!slices.Equal(m.Tags["**.user_id"], []string{"PII"}) {
		t.Errorf("metadata of orders.order-created-value v1: %+v", m)
	}
	proto, err := cl.SchemaByVersion(ctx, "common.money-value", -1)
	if err != nil || proto.SchemaMetadata == nil || proto.SchemaMetadata.Properties["owner"] == "" {
		t.Errorf("metadata of common.money-value: %+v %v", proto.SchemaMetadata, err)
	}
}

// A version committed with rules: in its contract.yaml carries them as its ruleSet
// (domain and migration rules apart), read back with franz-go's client.
func TestVersionsCarryRuleSet(t *testing.T) {
	dir, repo := testRepo(t)
	cy := filepath.Join(dir, "contracts/orders/order-created/contract.yaml")
	edit(t, cy, "fields:\n", `rules:
  - name: coupon-format
    kind: CONDITION
    type: CEL
    mode: WRITE
    expr: message.coupon_code == null || message.coupon_code.startsWith("C-")
    on_failure: DLQ
    params: {dlq.topic: bad-orders}
  - name: v2-currency
    kind: TRANSFORM
    type: CEL_FIELD
    mode: UPGRADE
    expr: name == "currency" ; value.upperAscii()
fields:
`)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/order_created.avsc"), `"fields": [`,
		`"fields": [{"name": "note", "type": ["null", "string"], "default": null},`)
	commitAll(t, repo, "rules and a note", 50)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cl, err := sr.NewClient(sr.URLs(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	latest, err := cl.SchemaByVersion(context.Background(), "orders.order-created-value", -1)
	if err != nil {
		t.Fatal(err)
	}
	rs := latest.SchemaRuleSet
	if rs == nil || len(rs.DomainRules) != 1 || len(rs.MigrationRules) != 1 {
		t.Fatalf("ruleSet of the latest version: %+v", rs)
	}
	d := rs.DomainRules[0]
	if d.Name != "coupon-format" || d.Type != "CEL" || d.OnFailure != "DLQ" || d.Params["dlq.topic"] != "bad-orders" || !strings.Contains(d.Expr, "startsWith") {
		t.Errorf("domain rule %+v", d)
	}
	if m := rs.MigrationRules[0]; m.Name != "v2-currency" || m.Mode != sr.SchemaRuleModeUpgrade || m.Kind != sr.SchemaRuleKindTransform {
		t.Errorf("migration rule %+v", m)
	}
	if first, _ := cl.SchemaByVersion(context.Background(), "orders.order-created-value", 1); first.SchemaRuleSet != nil {
		t.Errorf("version 1, committed before the rules, carries %+v", first.SchemaRuleSet)
	}
}

// A commit that changes only the data contract (a rule added to contract.yaml, the
// schema untouched) is a new version with a new id, as Confluent assigns them:
// versions lists it, it carries the rule (read with franz-go), by version and by id,
// while the version before does not, and a look-up of the text finds the newest.
func TestDataContractChangeIsServedAsAVersion(t *testing.T) {
	dir, repo := testRepo(t)
	ctx := context.Background()
	prev, err := franzClient(t, repo).SchemaByVersion(ctx, "orders.order-created-value", -1)
	if err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "fields:\n",
		"rules:\n  - name: amount-positive\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.amount > 0\nfields:\n")
	commitAll(t, repo, "a rule, nothing else", 50)
	cl := franzClient(t, repo)
	latest, err := cl.SchemaByVersion(ctx, "orders.order-created-value", -1)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Version != prev.Version+1 || latest.ID == prev.ID || latest.Schema.Schema != prev.Schema.Schema {
		t.Fatalf("after a rule alone: version %d id %d, want version %d with a new id (not %d) and the same text", latest.Version, latest.ID, prev.Version+1, prev.ID)
	}
	byID, err := cl.SchemaByID(ctx, latest.ID)
	if err != nil || byID.SchemaRuleSet == nil || len(byID.SchemaRuleSet.DomainRules) != 1 {
		t.Errorf("id %d carries no rule: %+v %v", latest.ID, byID.SchemaRuleSet, err)
	}
	if old, err := cl.SchemaByID(ctx, prev.ID); err != nil || old.SchemaRuleSet != nil {
		t.Errorf("id %d (before the rule) carries %+v %v", prev.ID, old.SchemaRuleSet, err)
	}
	if rs := latest.SchemaRuleSet; rs == nil || len(rs.DomainRules) != 1 || rs.DomainRules[0].Name != "amount-positive" {
		t.Errorf("ruleSet of the new version: %+v", latest.SchemaRuleSet)
	}
	if old, err := cl.SchemaByVersion(ctx, "orders.order-created-value", prev.Version); err != nil || old.SchemaRuleSet != nil || old.SchemaMetadata == nil {
		t.Errorf("version %d: %+v %v", prev.Version, old, err)
	}
	uses, err := cl.SubjectsByID(ctx, latest.ID)
	if err != nil || len(uses) == 0 {
		t.Fatalf("subjects of id %d: %v %v", latest.ID, uses, err)
	}
	found, err := cl.LookupSchema(ctx, "orders.order-created-value", latest.Schema)
	if err != nil || found.Version != latest.Version {
		t.Errorf("look-up found version %d (%v), want the newest, %d", found.Version, err, latest.Version)
	}
}

// franzClient serves repo's branch with a new embedded registry and returns franz-go's
// client of it.
func franzClient(t *testing.T, repo *git.Repository) *sr.Client {
	t.Helper()
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	cl, err := sr.NewClient(sr.URLs(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// GET /subjects/{s}/metadata answers the newest version whose metadata has the given
// properties: after the owner changes in contract.yaml alone, owner=orders finds the
// version before it and owner=billing the new one; no match is 40403, an unknown
// subject 40401. GET /schemas/guids/{guid} is Confluent's 40403: no GUIDs here.
func TestLatestWithMetadataAndGUIDs(t *testing.T) {
	dir, repo := testRepo(t)
	edit(t, filepath.Join(dir, "contracts/orders/order-created/contract.yaml"), "owner: orders", "owner: billing")
	commitAll(t, repo, "billing owns order events", 50)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	get := func(path string) (int, Schema, Error) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var s Schema
		var e Error
		_ = json.Unmarshal(data, &s)
		_ = json.Unmarshal(data, &e)
		return resp.StatusCode, s, e
	}
	_, latest, _ := get("/subjects/orders.order-created-value/versions/latest")
	code, s, _ := get("/subjects/orders.order-created-value/metadata?key=owner&value=billing&key=tier&value=core")
	if code != 200 || s.Version != latest.Version || s.Metadata.Properties["owner"] != "billing" {
		t.Errorf("owner=billing: %d version %d, want the latest, %d", code, s.Version, latest.Version)
	}
	code, s, _ = get("/subjects/orders.order-created-value/metadata?key=owner&value=orders")
	if code != 200 || s.Version != latest.Version-1 || s.ID == latest.ID || s.Metadata.Properties["owner"] != "orders" {
		t.Errorf("owner=orders: %d version %d id %d, want version %d with another id than %d", code, s.Version, s.ID, latest.Version-1, latest.ID)
	}
	if code, _, e := get("/subjects/orders.order-created-value/metadata?key=owner&value=nobody"); code != 404 || e.Code != CodeSchemaNotFound {
		t.Errorf("no match: %d %+v", code, e)
	}
	if code, _, e := get("/subjects/nope-value/metadata?key=owner&value=orders"); code != 404 || e.Code != CodeSubjectNotFound {
		t.Errorf("unknown subject: %d %+v", code, e)
	}
	if code, _, e := get("/schemas/guids/b4a3c9b0-1d7e-4c43-9f7e-0e3d5a2b6c11/ids"); code != 404 || e.Code != CodeSchemaNotFound || !strings.Contains(e.Message, "no GUIDs") {
		t.Errorf("guid: %d %+v", code, e)
	}
}
