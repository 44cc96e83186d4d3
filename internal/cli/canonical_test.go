package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/publish/publishtest"
	"github.com/contractbot/contractbot/internal/registry"
)

// Against a registry that stores Confluent's canonical forms: publish, then
// `registry diff` finds nothing; a layout-only commit (an Avro file re-indented with
// its attributes reordered, a .proto file's comments reworded) publishes no version
// and sends no event, and diff still finds nothing.
func TestPublishAndDiffAgainstCanonicalRegistry(t *testing.T) {
	dir, repo := exampleRepo(t)
	fake, srv, state, eventsFile, publish := publishToDouble(t, dir)
	diff := []string{"registry", "diff", "--url", srv.URL, "--repo", dir}
	if out, errOut, code := runCLI(t, diff...); code != 0 || !strings.HasPrefix(out, "no drift") {
		t.Fatalf("diff after publish: exit %d:\n%s%s", code, out, errOut)
	}
	regs, events := fake.Registrations(), len(readEventLines(t, eventsFile))

	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	data, err := os.ReadFile(avsc)
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, data, "", "\t"); err != nil {
		t.Fatal(err)
	}
	relaid := strings.Replace(indented.String(), "\"type\": \"record\",\n\t\"name\": \"OrderCreated\",", "\"name\": \"OrderCreated\",\n\t\"type\": \"record\",", 1)
	if relaid == indented.String() {
		t.Fatal("the reordering did not apply")
	}
	if err := os.WriteFile(avsc, []byte(relaid), 0o644); err != nil {
		t.Fatal(err)
	}
	proto := filepath.Join(dir, "contracts/logistics/shipment-dispatched/shipment_dispatched.proto")
	edit(t, proto, "// A postal address.", "// A postal address, as the carrier prints it on the label.")
	commit(t, repo, "Re-indent order_created.avsc, reword a comment")

	out := mustRun(t, publish...)
	if fake.Registrations() != regs || len(readEventLines(t, eventsFile)) != events {
		t.Errorf("a layout-only commit registered %d schema(s) and sent %d event(s):\n%s", fake.Registrations()-regs, len(readEventLines(t, eventsFile))-events, out)
	}
	publishGolden(t, "layout-only.txt", regexp.MustCompile(`[0-9a-f]{40}`).ReplaceAllString(out, "<commit>"), srv.URL, state, eventsFile)
	if out, errOut, code := runCLI(t, diff...); code != 0 || !strings.HasPrefix(out, "no drift") {
		t.Fatalf("diff after a layout-only commit: exit %d:\n%s%s", code, out, errOut)
	}
}

// Against a registry that stores schemas in a form of its own (here: Avro without its
// docs, as a registry normalizing them might), no stored text is the canonical form
// Git's versions have; `registry diff --url` asks the registry to look each of them up
// with ?normalize=true and reports no drift.
func TestDiffAsksARegistryThatStoresItsOwnForm(t *testing.T) {
	dir, _ := exampleRepo(t)
	fake := publishtest.NewRegistry()
	fake.Normalize = func(typ registry.SchemaType, form string) string {
		if typ != registry.Avro {
			return form
		}
		var v any
		if json.Unmarshal([]byte(form), &v) != nil {
			return form
		}
		out, _ := json.Marshal(withoutDocs(v))
		return string(out)
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	mustRun(t, "publish", "--repo", dir, "--registry", srv.URL, "--events", "file:"+filepath.Join(t.TempDir(), "e.jsonl"), "--state", filepath.Join(t.TempDir(), "s.json"))
	c, err := registry.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := c.GetLatest(context.Background(), "orders.order-created-value")
	if err != nil || strings.Contains(stored.Schema, `"doc"`) {
		t.Fatalf("the registry should store its own form (no docs): %v %.200s", err, stored.Schema)
	}
	out, errOut, code := runCLI(t, "registry", "diff", "--url", srv.URL, "--repo", dir)
	if code != 0 || !strings.HasPrefix(out, "no drift") {
		t.Fatalf("diff against a registry of equivalent texts: exit %d:\n%s%s", code, out, errOut)
	}
	if fake.NormalizedLookUps() == 0 {
		t.Error("diff matched every version without asking the registry")
	}
}

// withoutDocs is v without "doc" members, at every depth.
func withoutDocs(v any) any {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "doc")
		for k, x := range t {
			t[k] = withoutDocs(x)
		}
	case []any:
		for i, x := range t {
			t[i] = withoutDocs(x)
		}
	}
	return v
}

// check on a layout-only change: SAFE, and a note says the registry sees no new
// version. check on a change that returns a schema to an earlier version's form: a
// warning says the registry will not make it the latest and what to do.
func TestCheckLayoutOnlyAndRevert(t *testing.T) {
	dir, repo := exampleRepo(t)
	proto := filepath.Join(dir, "contracts/logistics/shipment-dispatched/shipment_dispatched.proto")
	edit(t, proto, "// A postal address.", "// A postal address, as the carrier prints it on the label.")
	edit(t, proto, "  string city = 4;\n", "  string   city = 4 ;\n")
	commit(t, repo, "Reword a comment")
	out, errOut, code := runCLI(t, "check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z")
	if code != 0 || !strings.Contains(out, "only the layout of contracts/logistics/shipment-dispatched/shipment_dispatched.proto changes") {
		t.Fatalf("layout-only check: exit %d:\n%s%s", code, out, errOut)
	}
	checkGolden(t, filepath.Join("..", "check", "layout-only.txt"), out)

	// A new version of orders.order-status-changed-value, then back to the first
	// version's form in another layout: a revert.
	avsc := filepath.Join(dir, "contracts/orders/order-status-changed/order_status_changed.avsc")
	v1, err := os.ReadFile(avsc)
	if err != nil {
		t.Fatal(err)
	}
	var v2 bytes.Buffer
	if err := json.Compact(&v2, v1); err != nil {
		t.Fatal(err)
	}
	added := strings.Replace(v2.String(), `"fields":[`, `"fields":[{"name":"note","type":["null","string"],"default":null},`, 1)
	if err := os.WriteFile(avsc, []byte(added), 0o644); err != nil {
		t.Fatal(err)
	}
	commit(t, repo, "Add a note")
	if err := os.WriteFile(avsc, []byte(strings.ReplaceAll(string(v1), "  ", "\t")), 0o644); err != nil {
		t.Fatal(err)
	}
	commit(t, repo, "Back to version 1")
	out, errOut, code = runCLI(t, "check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z")
	if code == 2 || !strings.Contains(out, "returns to version 1 of orders.order-status-changed-value") {
		t.Fatalf("revert check: exit %d:\n%s%s", code, out, errOut)
	}
	checkGolden(t, filepath.Join("..", "check", "revert.txt"), out)
	// The bot posts the Markdown rendering: the warning is in it.
	md, _, _ := runCLI(t, "check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z", "--format", "markdown")
	if !strings.Contains(md, "**Warnings**") {
		t.Errorf("the Markdown report has no warning:\n%s", md)
	}
	checkGolden(t, filepath.Join("..", "check", "revert.md"), md)
	// The bot's check run and GitHub Actions: a warning annotation on the schema file.
	gh, _, _ := runCLI(t, "check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z", "--format", "github")
	if !strings.Contains(gh, "::warning file=contracts/orders/order-status-changed/order_status_changed.avsc,line=1") {
		t.Errorf("no warning annotation:\n%s", gh)
	}
}

// The registration of orders.order-created-value carries contract.yaml's data
// contract: owner, tier and topic as properties, a PII tag on user_id.
func TestPublishSendsMetadata(t *testing.T) {
	dir, _ := exampleRepo(t)
	fake := publishtest.NewRegistry()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	if out, errOut, code := runCLI(t, "publish", "--repo", dir, "--registry", srv.URL,
		"--events", "file:"+filepath.Join(t.TempDir(), "e.jsonl"), "--state", filepath.Join(t.TempDir(), "s.json")); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	bodies := fake.Bodies("orders.order-created-value")
	if len(bodies) != 1 {
		t.Fatalf("%d registrations of orders.order-created-value", len(bodies))
	}
	got, _ := json.MarshalIndent(bodies[0]["metadata"], "", "  ")
	for _, want := range []string{`"owner": "orders"`, `"tier": "core"`, `"topic": "ods_order_events"`, `"**.user_id": [`, `"PII"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("metadata lacks %s:\n%s", want, got)
		}
	}
	publishGolden(t, "metadata-order-created.json", string(got)+"\n")
}

// A commit that changes only the data contract (a rule added to contract.yaml) is
// published as Confluent takes it: the schema is registered again with the rule, and
// the registry double (which, like Confluent, makes a version of the same form with
// other metadata or rules) has one more version; `registry diff` still finds nothing.
// Removing the rule registers the schema with an empty ruleSet, so the registry does
// not carry the old rules over to it.
func TestPublishRegistersDataContractChange(t *testing.T) {
	dir, repo := exampleRepo(t)
	fake, srv, state, eventsFile, publish := publishToDouble(t, dir)
	const subj = "orders.order-created-value"
	versions := fake.Versions(subj)
	cy := filepath.Join(dir, "contracts/orders/order-created/contract.yaml")
	edit(t, cy, "fields:\n", "rules:\n  - name: amount-positive\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.amount > 0\nfields:\n")
	commit(t, repo, "A data rule on amounts")
	out := mustRun(t, publish...)
	bodies := fake.Bodies(subj)
	if fake.Versions(subj) != versions+1 || !strings.Contains(fmt.Sprint(bodies[len(bodies)-1]["ruleSet"]), "amount-positive") {
		t.Fatalf("after a rule alone: %d versions (want %d), last registration %v", fake.Versions(subj), versions+1, bodies[len(bodies)-1])
	}
	publishGolden(t, "data-contract-only.txt", regexp.MustCompile(`[0-9a-f]{40}`).ReplaceAllString(out, "<commit>"), srv.URL, state, eventsFile)
	if out, errOut, code := runCLI(t, "registry", "diff", "--url", srv.URL, "--repo", dir); code != 0 || !strings.HasPrefix(out, "no drift") {
		t.Fatalf("diff after the rule: exit %d:\n%s%s", code, out, errOut)
	}
	edit(t, cy, "rules:\n  - name: amount-positive\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.amount > 0\n", "")
	commit(t, repo, "No rule after all")
	mustRun(t, publish...)
	bodies = fake.Bodies(subj)
	if rs, ok := bodies[len(bodies)-1]["ruleSet"].(map[string]any); !ok || len(rs) != 0 || fake.Versions(subj) != versions+2 {
		t.Errorf("after removing the rule: %d versions, last registration %v", fake.Versions(subj), bodies[len(bodies)-1])
	}
}

// A commit that removes `rules:` and also changes the schema registers a new form,
// which no look-up finds; the registration still carries an empty ruleSet, since
// Confluent copies the latest version's rules onto a registration without one
// (maybeSetMetadataRuleSet), and the removed condition would stay enforced.
func TestPublishRemovesRulesWithSchemaChange(t *testing.T) {
	dir, repo := exampleRepo(t)
	fake, _, _, _, publish := publishToDouble(t, dir)
	const subj = "orders.order-created-value"
	cy := filepath.Join(dir, "contracts/orders/order-created/contract.yaml")
	const rule = "rules:\n  - name: amount-positive\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.amount > 0\n"
	edit(t, cy, "fields:\n", rule+"fields:\n")
	commit(t, repo, "A data rule on amounts")
	mustRun(t, publish...)
	edit(t, cy, rule, "")
	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	edit(t, avsc, "    {\n      \"name\": \"coupon_code\",", "    {\n      \"name\": \"gift_note\",\n      \"type\": [\"null\", \"string\"],\n      \"default\": null\n    },\n    {\n      \"name\": \"coupon_code\",")
	commit(t, repo, "No rule, and a gift note")
	mustRun(t, publish...)
	bodies := fake.Bodies(subj)
	last := bodies[len(bodies)-1]
	if !strings.Contains(fmt.Sprint(last["schema"]), "gift_note") {
		t.Fatalf("the last registration is not the new schema: %v", last)
	}
	if rs, ok := last["ruleSet"].(map[string]any); !ok || len(rs) != 0 {
		t.Errorf("the registration of the new schema without rules carries ruleSet %v, want {}", last["ruleSet"])
	}
	if _, ok := last["metadata"].(map[string]any); !ok {
		t.Errorf("the registration carries no metadata: %v", last)
	}
	// A schema change while the registry's latest version has no rules sends none:
	// an empty ruleSet is part of a Confluent schema's identity (MD5 marks it apart
	// from none), so it is sent only to stop the inheritance.
	edit(t, avsc, "    {\n      \"name\": \"gift_note\",", "    {\n      \"name\": \"gift_wrap\",\n      \"type\": [\"null\", \"string\"],\n      \"default\": null\n    },\n    {\n      \"name\": \"gift_note\",")
	commit(t, repo, "A gift wrap")
	mustRun(t, publish...)
	bodies = fake.Bodies(subj)
	if last := bodies[len(bodies)-1]; last["ruleSet"] != nil {
		t.Errorf("a registration after a version without rules carries ruleSet %v", last["ruleSet"])
	}
}

// A data rule in contract.yaml reads coupon_code; a change removing the field breaks
// the rule: check says so, BREAKING for the rule's owner, at the rule's line.
func TestCheckReportsBrokenDataRule(t *testing.T) {
	dir, repo := exampleRepo(t)
	cy := filepath.Join(dir, "contracts/orders/order-created/contract.yaml")
	edit(t, cy, "fields:\n", "rules:\n  - name: coupon-format\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.coupon_code == null || message.coupon_code.startsWith(\"C-\")\n    on_failure: DLQ\n    params: {dlq.topic: bad-orders}\nfields:\n")
	commit(t, repo, "A data rule on coupon codes")
	if out, errOut, code := runCLI(t, "lint", "--repo", dir); code != 0 {
		t.Fatalf("the rule does not lint: exit %d\n%s%s", code, out, errOut)
	}
	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	edit(t, avsc, "    {\n      \"name\": \"coupon_code\",\n      \"type\": [\"null\", \"string\"],\n      \"default\": null,\n      \"doc\": \"Coupon redeemed on the order, null when none.\"\n    },\n", "")
	commit(t, repo, "Drop coupon_code")
	data, err := os.ReadFile(cy)
	if err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(string(data[:strings.Index(string(data), "expr: message.coupon_code")]), "\n")
	out, errOut, code := runCLI(t, "check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z")
	if code != 1 || !strings.Contains(out, fmt.Sprintf(`data rule: contracts/orders/order-created/contract.yaml:%d:11: data rule "coupon-format" reads coupon_code, which this change removes`, line)) {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	checkGolden(t, filepath.Join("..", "check", "data-rule.txt"), out)
}

// Two data rules read fields a change retypes: amount goes from long to double, which
// `message.amount > 0` still reads correctly (CEL compares numbers of different types),
// and currency from string to int, which `message.currency.size() == 3` no longer
// type-checks against. check reports the second only, BREAKING for the rule's owner
// with the type checker's words, at the rule's line.
func TestCheckReportsRetypedDataRule(t *testing.T) {
	dir, repo := exampleRepo(t)
	cy := filepath.Join(dir, "contracts/orders/order-created/contract.yaml")
	rule := func(name, expr string) string {
		return "  - name: " + name + "\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: " + expr + "\n"
	}
	edit(t, cy, "fields:\n", "rules:\n"+rule("amount-positive", "message.amount > 0")+rule("currency-code", "message.currency.size() == 3")+"fields:\n")
	commit(t, repo, "Two data rules")
	if out, errOut, code := runCLI(t, "lint", "--repo", dir); code != 0 {
		t.Fatalf("the rules do not lint: exit %d\n%s%s", code, out, errOut)
	}
	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	edit(t, avsc, "\"name\": \"amount\",\n      \"type\": \"long\"", "\"name\": \"amount\",\n      \"type\": \"double\"")
	edit(t, avsc, "\"name\": \"currency\",\n      \"type\": \"string\",\n      \"default\": \"CNY\"", "\"name\": \"currency\",\n      \"type\": \"int\",\n      \"default\": 156")
	commit(t, repo, "Amount in double, currency as its ISO number")
	r, code := checkJSON(t, "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1")
	if code != 1 || len(r.Subjects) == 0 {
		t.Fatalf("exit %d: %+v", code, r)
	}
	var got []string
	for _, s := range r.Subjects {
		for _, d := range s.DataRules {
			got = append(got, d.Rule+" "+d.Field+" "+d.Change)
		}
	}
	if want := []string{"currency-code currency type_changed"}; !slices.Equal(got, want) {
		t.Errorf("data rule findings %q, want %q", got, want)
	}
	out, _, _ := runCLI(t, "check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z")
	checkGolden(t, filepath.Join("..", "check", "data-rule-retyped.txt"), out)
}

// publishToDouble publishes the repository at dir to a new registry double: the double,
// its server, the state and events files, and the publish command line.
func publishToDouble(t *testing.T, dir string) (*publishtest.Registry, *httptest.Server, string, string, []string) {
	t.Helper()
	fake := publishtest.NewRegistry()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	state := filepath.Join(t.TempDir(), "state.json")
	eventsFile := filepath.Join(t.TempDir(), "events.jsonl")
	publish := []string{"publish", "--repo", dir, "--registry", srv.URL, "--events", "file:" + eventsFile, "--state", state}
	if out, errOut, code := runCLI(t, publish...); code != 0 {
		t.Fatalf("publish: exit %d: %s%s", code, out, errOut)
	}
	return fake, srv, state, eventsFile, publish
}

// A registry that refuses a version as incompatible (409) refuses it again on every
// run: publish says so, names the registry's version and level the schema fails
// against, and what to do, instead of telling to run it again. A failure that may pass
// on a retry (the registry unreachable) keeps "run contractbot publish again".
func TestPublishIncompatibleSaysWhatToDo(t *testing.T) {
	dir, repo := exampleRepo(t)
	fake := publishtest.NewRegistry()
	refuse := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/versions") {
			w.Header().Set("Content-Type", registry.ContentType)
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error_code":409,"message":"Schema being registered is incompatible with an earlier schema for subject \"orders.order-created-value\""}`))
			return
		}
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	publish := []string{"publish", "--repo", dir, "--registry", srv.URL, "--events", "file:" + filepath.Join(t.TempDir(), "e.jsonl"), "--state", state}
	mustRun(t, publish...)
	versions := fake.Versions("orders.order-created-value")
	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	edit(t, avsc, "    {\n      \"name\": \"coupon_code\",", "    {\n      \"name\": \"gift_note\",\n      \"type\": [\"null\", \"string\"],\n      \"default\": null\n    },\n    {\n      \"name\": \"coupon_code\",")
	commit(t, repo, "A gift note")
	refuse = true
	for range 2 {
		out, errOut, code := runCLI(t, publish...)
		want := fmt.Sprintf("incompatible with its version %d (id", versions)
		if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "at level BACKWARD_TRANSITIVE") ||
			!strings.Contains(errOut, "fails the same way") || strings.Contains(errOut, "again to finish") {
			t.Fatalf("exit %d, want %q and no \"run again\":\n%s%s", code, want, out, errOut)
		}
	}
	srv.Close()
	_, errOut, code := runCLI(t, append(publish, "--timeout", "1s")...)
	if code == 0 || !strings.Contains(errOut, "run contractbot publish again once the cause is fixed") {
		t.Errorf("an unreachable registry: exit %d:\n%s", code, errOut)
	}
}

// A rule added, removed, then added again: the third registration is identical to the
// first version's (schema, metadata and rules), so the registry answers with that
// version and keeps the one without the rule as its latest. publish says so: producers
// that write the latest version would run without the rule.
func TestPublishWarnsWhenTheRegistryKeepsAnotherLatest(t *testing.T) {
	dir, repo := exampleRepo(t)
	fake, _, _, _, publish := publishToDouble(t, dir)
	const subj = "orders.order-created-value"
	cy := filepath.Join(dir, "contracts/orders/order-created/contract.yaml")
	const rule = "rules:\n  - name: amount-positive\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.amount > 0\n"
	edit(t, cy, "fields:\n", rule+"fields:\n")
	commit(t, repo, "A data rule on amounts")
	mustRun(t, publish...)
	edit(t, cy, rule, "")
	commit(t, repo, "No rule")
	mustRun(t, publish...)
	versions := fake.Versions(subj)
	edit(t, cy, "fields:\n", rule+"fields:\n")
	commit(t, repo, "The rule again")
	out := mustRun(t, publish...)
	if fake.Versions(subj) != versions {
		t.Fatalf("the registry made a version of an identical registration: %d, want %d", fake.Versions(subj), versions)
	}
	if !strings.Contains(out, "warning: "+subj+": the registry answered with its earlier version") || !strings.Contains(out, "use.latest.version") {
		t.Errorf("publish does not warn that the latest version stays without the rule:\n%s", out)
	}
}
