package registry

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
)

// realClients is set by .ci/run: a client that is missing is then a failure, not a
// skip, so that CI really runs the round trips.
const realClients = "CONTRACTBOT_REAL_CLIENTS"

// needTool skips the test when a client is not installed here, or fails it under
// CONTRACTBOT_REAL_CLIENTS=1.
func needTool(t *testing.T, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv(realClients) == "1" {
		t.Fatalf("%s (%s=1 asks for the real clients)", why, realClients)
	}
	t.Skipf("%s; set %s=1 to make this a failure", why, realClients)
}

// The subjects the real clients read: Protobuf with a reference and a well-known
// import, Avro in two versions, JSON Schema; each with CEL rules. The Protobuf rule is
// a CEL_FIELD one on a top-level field: Confluent's JavaScript CEL executor has no
// registry of the producer's Protobuf types, so a CEL rule reading message.x evaluates
// to an error there, which its serializer does not count as a failed condition, and
// its field walk does not enter nested messages (the message goes through whatever
// the registry serves).
var clientFiles = map[string]string{
	"contracts/shop/money/contract.yaml": "subject: shop.money-value\nformat: protobuf\nschema: money.proto\ncompatibility: BACKWARD\nowner: shop\ntier: standard\nmessage: shop.v1.Money\n",
	"contracts/shop/money/money.proto":   "syntax = \"proto3\";\npackage shop.v1;\n\nmessage Money {\n  string currency_code = 1;\n  int64 units = 2;\n}\n",
	"contracts/shop/payment/contract.yaml": `subject: shop.payment-value
format: protobuf
schema: payment.proto
compatibility: BACKWARD
owner: shop
tier: standard
message: shop.v1.Payment
rules:
  - name: positive
    kind: CONDITION
    type: CEL_FIELD
    mode: WRITE
    expr: name == 'payment_id' ; value != ''
    on_failure: ERROR
`,
	"contracts/shop/payment/payment.proto": `syntax = "proto3";
package shop.v1;

import "shop/money/money.proto";
import "google/protobuf/timestamp.proto";

message Payment {
  string payment_id = 1;
  Money amount = 2;
  google.protobuf.Timestamp paid_at = 3;
}
`,
	"contracts/shop/order/contract.yaml": `subject: shop.order-value
format: avro
schema: order.avsc
compatibility: BACKWARD
owner: shop
tier: standard
rules:
  - name: positive
    kind: CONDITION
    type: CEL
    mode: WRITE
    expr: message.amount > 0
    on_failure: ERROR
`,
	"contracts/shop/order/order.avsc": `{"type": "record", "name": "Order", "namespace": "shop", "fields": [
  {"name": "order_id", "type": "string"},
  {"name": "amount", "type": "long"}
]}
`,
	"contracts/shop/event/contract.yaml": `subject: shop.event-value
format: json
schema: event.json
compatibility: BACKWARD
owner: shop
tier: standard
rules:
  - name: positive
    kind: CONDITION
    type: CEL
    mode: WRITE
    expr: message.qty > 0
    on_failure: ERROR
`,
	"contracts/shop/event/event.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "title": "Event", "type": "object",
 "properties": {"id": {"type": "string"}, "qty": {"type": "integer"}},
 "required": ["id", "qty"], "additionalProperties": false}
`,
}

// The order's version 2: a note, a READ rule that fills it, and an UPGRADE rule that
// marks order ids written with version 1.
var orderV2 = map[string]string{
	"contracts/shop/order/order.avsc": `{"type": "record", "name": "Order", "namespace": "shop", "fields": [
  {"name": "order_id", "type": "string"},
  {"name": "amount", "type": "long"},
  {"name": "note", "type": "string", "default": ""}
]}
`,
	"contracts/shop/order/contract.yaml": clientFiles["contracts/shop/order/contract.yaml"] + `  - name: note-checked
    kind: TRANSFORM
    type: CEL_FIELD
    mode: READ
    expr: name == 'note' ; 'checked'
  - name: order-id-v2
    kind: TRANSFORM
    type: CEL_FIELD
    mode: UPGRADE
    expr: name == 'order_id' ; 'v2-' + value
`,
}

// The order's version 3: its UPGRADE rule is another, the schema untouched (a version,
// and an id, of its own).
var orderV3 = map[string]string{
	"contracts/shop/order/contract.yaml": strings.Replace(strings.Replace(orderV2["contracts/shop/order/contract.yaml"],
		"order-id-v2", "order-id-v3", 1), "'v2-' + value", "value + '-v3'", 1),
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func clientsRepo(t *testing.T) (string, *git.Repository) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, clientFiles)
	commitAll(t, repo, "shop: money, payment, order, event", 0)
	writeFiles(t, dir, orderV2)
	commitAll(t, repo, "order: note, READ and UPGRADE rules", 1)
	writeFiles(t, dir, orderV3)
	commitAll(t, repo, "order: an UPGRADE rule, nothing else", 2)
	return dir, repo
}

// TestRealClients: Confluent's JavaScript client (@confluentinc/schemaregistry, from
// testdata/clients/package-lock.json) and confluent-kafka-python (Debian's
// python3-confluent-kafka) round-trip Avro, Protobuf and JSON messages through the
// embedded registry on loopback, with the served CEL WRITE, READ and UPGRADE rules,
// with and without a configured schema id. The scripts are
// testdata/clients/roundtrip.mjs and roundtrip.py.
func TestRealClients(t *testing.T) {
	dir, repo := clientsRepo(t)
	srv, err := NewServer(Source{Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	snap := srv.snap.Load()
	id := func(subject string, version int) int { return snap.subjects[subject].versions[version-1].v.ID }
	cfg := map[string]any{
		"url":          ts.URL,
		"payment_fdp":  clientDescriptor(t, dir, "shop/payment/payment.proto"),
		"money_fdp":    clientDescriptor(t, dir, "shop/money/money.proto"),
		"event_schema": clientFiles["contracts/shop/event/event.json"],
		"ids": map[string]int{
			"money": id("shop.money-value", 1), "payment": id("shop.payment-value", 1),
			"order1": id("shop.order-value", 1), "order2": id("shop.order-value", 2), "order3": id("shop.order-value", 3),
			"event": id("shop.event-value", 1),
		},
	}
	data, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfgPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	clients, _ := filepath.Abs("testdata/clients")

	t.Run("javascript", func(t *testing.T) {
		node, err := exec.LookPath("node")
		needTool(t, err == nil, "node is not installed")
		_, err = os.Stat(filepath.Join(clients, "node_modules/@confluentinc/schemaregistry"))
		needTool(t, err == nil, "@confluentinc/schemaregistry is not installed: run npm ci --ignore-scripts in internal/registry/testdata/clients")
		run(t, exec.Command(node, filepath.Join(clients, "roundtrip.mjs"), cfgPath))
	})
	t.Run("python", func(t *testing.T) {
		py := pythonWithConfluent()
		needTool(t, py != "", "no python3 can import confluent_kafka, google.protobuf, jsonschema and requests: apt-get install python3-confluent-kafka python3-protobuf python3-jsonschema python3-requests")
		run(t, exec.Command(py, filepath.Join(clients, "roundtrip.py"), cfgPath))
	})
}

// pythonWithConfluent is the first python3 that imports confluent-kafka's Schema
// Registry serializers: Debian's /usr/bin/python3 first (a python3 earlier on PATH,
// such as pyenv's, does not see Debian's packages).
func pythonWithConfluent() string {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		p, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		probe := "import confluent_kafka.schema_registry.protobuf, confluent_kafka.schema_registry.json_schema, google.protobuf, jsonschema, requests"
		if exec.Command(p, "-c", probe).Run() == nil {
			return p
		}
	}
	return ""
}

// run runs a client script and fails the test with its output when it fails; each
// case it ran is logged.
func run(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(cmd.Args[1]), err)
	}
}
