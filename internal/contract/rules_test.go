package contract

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Data rules are compiled with cel-go at lint time and the fields they read checked
// against the schema: a misspelled field and an expression that does not compile are
// errors at their line and column in contract.yaml; a good rule lists the fields it
// reads.
func TestRulesAreCompiledAgainstTheSchema(t *testing.T) {
	contract := `subject: one
format: avro
schema: s.avsc
compatibility: NONE
owner: a
rules:
  - name: amount-positive
    kind: CONDITION
    type: CEL
    mode: WRITE
    expr: message.amount > 0 && message.buyer.id != ""
    on_failure: DLQ
    params: {dlq.topic: bad-orders}
  - name: typo
    kind: CONDITION
    type: CEL
    mode: WRITE
    expr: "message.ammount > 0"
  - name: broken
    kind: CONDITION
    type: CEL
    mode: READ
    expr: |
      message.amount >
  - name: attrs
    kind: CONDITION
    type: CEL
    mode: UPGRADE
    expr: message.attrs.color == "red" && message.buyer.nick == ""
    on_failure: "NONE,LOUD"
`
	src := MemSource{
		"contracts/teams.yaml":          []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/one/contract.yaml": []byte(contract),
		"contracts/d/one/s.avsc": []byte(`{"type":"record","name":"R","fields":[{"name":"amount","type":"long"},
			{"name":"buyer","type":{"type":"record","name":"B","fields":[{"name":"id","type":"string"}]}},
			{"name":"attrs","type":{"type":"map","values":"string"}}]}`),
	}
	tree, err := Load(src)
	must(t, err)
	got := formatDiagnostics(tree.Diagnostics)
	for _, want := range []string{
		`contracts/d/one/contract.yaml:18:12: error: rule "typo" reads message.ammount, but the schema has no field "ammount". Did you mean "amount"?`,
		`contracts/d/one/contract.yaml:24:23: error: rule "broken": the CEL expression does not compile`,
		`rule "broken": the CEL expression does not compile`,
		`contracts/d/one/contract.yaml:29:43: error: rule "attrs" reads message.buyer.nick, but the schema has no field "buyer.nick".`,
		`contracts/d/one/contract.yaml:30:17: error: on_failure "NONE,LOUD" is not an action`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "message.attrs.color") {
		t.Errorf("a map's key was taken for a field:\n%s", got)
	}
	s := tree.Subject("one")
	if s == nil || len(s.Rules) != 4 {
		t.Fatalf("rules not loaded: %+v", s)
	}
	r := s.Rules[0]
	if !slices.Equal(r.Fields, []string{"amount", "buyer.id"}) || r.OnFailure != "DLQ" || r.Params["dlq.topic"] != "bad-orders" || r.Migration() {
		t.Errorf("rule 1: %+v", r)
	}
	if !s.Rules[3].Migration() {
		t.Error("an UPGRADE rule is a migration rule")
	}
}

// Data rules are type-checked against the schema's field types (Avro records, nullable
// unions, enums, arrays, maps, logical types; Protobuf messages through their
// descriptors; JSON Schema objects, type lists with null, enums), guards included: every problem is located in contract.yaml with what
// to do, and the rules that are right give nothing.
func TestRulesAreTypeChecked(t *testing.T) {
	rule := func(name, typ, kind, expr string) string {
		return "  - name: " + name + "\n    kind: " + kind + "\n    type: " + typ + "\n    mode: WRITE\n    expr: " + expr + "\n"
	}
	avroRules := rule("good-total", "CEL", "CONDITION", `message.total > 0 && message.status == "PAID" && message.buyer.id != ""`) +
		rule("good-nullable", "CEL", "CONDITION", `message.coupon == null || message.coupon.startsWith("C-")`) +
		rule("good-list", "CEL", "CONDITION", `message.items.all(i, i.price >= 0.0 && i.sku.size() > 0)`) +
		rule("good-map", "CEL", "CONDITION", `message.attrs["color"] == "red" && message.email.isEmail()`) +
		rule("good-logical", "CEL", "CONDITION", `message.created_at != null && message.id.isUuid()`) +
		rule("good-guard", "CEL", "CONDITION", `"message.total > 100.0 ; message.items.size() > 1"`) +
		rule("good-field", "CEL_FIELD", "TRANSFORM", `"typeName == 'STRING' && 'PII' in tags ; value + '!'"`) +
		rule("good-recursive", "CEL", "CONDITION", `message.buyer.referrer.referrer.id != ""`) +
		rule("total-vs-string", "CEL", "CONDITION", `message.total > "x"`) +
		rule("enum-vs-int", "CEL", "CONDITION", `message.status == 1`) +
		rule("item-typo", "CEL", "CONDITION", `message.items.exists(i, i.prise > 0.0)`) +
		rule("not-a-condition", "CEL", "CONDITION", `message.total * 2.0`) +
		rule("bad-guard", "CEL", "CONDITION", `"message.coupon > 3 ; message.total > 0"`) +
		rule("field-typo", "CEL_FIELD", "CONDITION", `nmae == "email"`) +
		rule("block", "CEL", "CONDITION", "|\n      message.total > 0.0 &&\n        message.buyer.id > 7")
	avsc := `{"type":"record","name":"Order","namespace":"shop","fields":[
  {"name":"id","type":{"type":"string","logicalType":"uuid"}},
  {"name":"total","type":"double"},
  {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},
  {"name":"coupon","type":["null","string"],"default":null},
  {"name":"email","type":"string"},
  {"name":"created_at","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"attrs","type":{"type":"map","values":"string"}},
  {"name":"buyer","type":{"type":"record","name":"Buyer","fields":[
    {"name":"id","type":"string"},
    {"name":"referrer","type":["null","Buyer"],"default":null}]}},
  {"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
    {"name":"sku","type":"string"},{"name":"price","type":"double"}]}}}]}`
	proto := `syntax = "proto3";
package shop.v1;
import "google/protobuf/timestamp.proto";
message Order {
  enum Status { STATUS_UNSPECIFIED = 0; PAID = 1; }
  message Line { int32 qty = 1; string sku = 2; }
  int64 amount = 1;
  Status status = 2;
  google.protobuf.Timestamp created_at = 3;
  repeated Line lines = 4;
}
`
	protoRules := rule("good-proto", "CEL", "CONDITION", `message.amount > 0 && message.status == 1 && message.lines.exists(l, l.qty > 0)`) +
		rule("good-timestamp", "CEL", "CONDITION", `message.created_at < timestamp("2030-01-01T00:00:00Z")`) +
		rule("amount-vs-string", "CEL", "CONDITION", `message.amount == "x"`) +
		rule("line-typo", "CEL", "CONDITION", `message.lines.exists(l, l.qtty > 0)`)
	jsonSchema := `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {
  "qty": {"type": "integer"}, "price": {"type": "number"}, "name": {"type": "string"},
  "note": {"type": ["string", "null"]}, "status": {"enum": ["NEW", "PAID"]},
  "tags": {"type": "array", "items": {"type": "string"}},
  "buyer": {"type": "object", "properties": {"id": {"type": "string"}}},
  "attrs": {"type": "object", "additionalProperties": {"type": "integer"}}}}`
	jsonRules := rule("good-json", "CEL", "CONDITION", `message.qty > 0 && message.price > 1.5 && message.name.startsWith("a") && message.tags.all(t, t.size() > 0)`) +
		rule("good-json-nullable", "CEL", "CONDITION", `(message.note == null || message.note != "") && message.status == "NEW" && message.attrs["n"] > 2`) +
		rule("qty-vs-string", "CEL", "CONDITION", `message.qty == "x"`) +
		rule("buyer-id-vs-int", "CEL", "CONDITION", `message.buyer.id == 3`)
	head := "format: %s\nschema: %s\ncompatibility: NONE\nowner: a\nrules:\n"
	src := MemSource{
		"contracts/teams.yaml":            []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/avro/contract.yaml":  []byte("subject: avro\n" + fmt.Sprintf(head, "avro", "order.avsc") + avroRules),
		"contracts/d/avro/order.avsc":     []byte(avsc),
		"contracts/d/proto/contract.yaml": []byte("subject: proto\n" + fmt.Sprintf(head, "protobuf", "order.proto") + protoRules),
		"contracts/d/proto/order.proto":   []byte(proto),
		"contracts/d/json/contract.yaml":  []byte("subject: json\n" + fmt.Sprintf(head, "json", "order.json") + jsonRules),
		"contracts/d/json/order.json":     []byte(jsonSchema),
	}
	tree, err := Load(src)
	must(t, err)
	var probs Diagnostics
	for _, d := range tree.Diagnostics {
		if d.Code == CodeInvalidRule {
			probs = append(probs, d)
		}
	}
	golden(t, "rules-typed.golden", formatDiagnostics(probs))
	s := tree.Subject("avro")
	if s == nil || !slices.Equal(s.Rules[2].Fields, []string{"items", "items.price", "items.sku"}) || !slices.Equal(s.Rules[5].Fields, []string{"items", "total"}) {
		t.Errorf("fields read: %+v", s)
	}
}

// Expressions CEL's parser refuses as a whole (nested past its recursion limit, or
// longer than its size limit) come back without a position; they are located at the
// expression, and neither the loader nor the process stops.
func TestHostileRuleExpressionsAreLocatedErrors(t *testing.T) {
	deep := strings.Repeat("(", 300) + "message.total > 0.0" + strings.Repeat(")", 300)
	long := strings.Repeat("message.total > 0.0 && ", 6000) + "true"
	src := MemSource{
		"contracts/teams.yaml":        []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/avro/order.avsc": []byte(`{"type":"record","name":"Order","fields":[{"name":"total","type":"double"}]}`),
		"contracts/d/avro/contract.yaml": []byte("subject: avro\nformat: avro\nschema: order.avsc\ncompatibility: NONE\nowner: a\nrules:\n" +
			"  - name: deep\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: \"" + deep + "\"\n" +
			"  - name: long\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: \"" + long + "\"\n"),
	}
	tree, err := Load(src)
	must(t, err)
	var got []string
	for _, d := range tree.Diagnostics {
		if d.Code == CodeInvalidRule {
			got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Column, d.Message[:min(len(d.Message), 40)]))
		}
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "11:12 rule \"deep\"") || !strings.HasPrefix(got[1], "16:12 rule \"long\"") {
		t.Errorf("invalid-rule errors %q: want one at the start of each expression (11:12 and 16:12)", got)
	}
}

// Confluent's executors end a rule's guard at the first ';' of its expr wherever it
// is; a ';' inside a string literal is one located error that says so, not the parse
// errors of the two halves. A ';' in a string after the guard's own ';' is fine, and
// so is any ';' with cel.ignore.guard.separator "true".
func TestGuardSeparatorInString(t *testing.T) {
	rule := func(name, expr, extra string) string {
		return "  - name: " + name + "\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: '" + expr + "'\n" + extra
	}
	src := MemSource{
		"contracts/teams.yaml":        []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/avro/order.avsc": []byte(`{"type":"record","name":"Order","fields":[{"name":"total","type":"double"},{"name":"model","type":"string"}]}`),
		"contracts/d/avro/contract.yaml": []byte("subject: avro\nformat: avro\nschema: order.avsc\ncompatibility: NONE\nowner: a\nrules:\n" +
			rule("in-string", `message.model != "a;b"`, "") +
			rule("after-guard", `message.total > 0.0 ; message.model != "a;b"`, "") +
			rule("ignored", `message.model != "a;b"`, "    params: {cel.ignore.guard.separator: \"true\"}\n") +
			rule("triple", `message.model != """x""" && message.model != "a;b"`, "")),
	}
	tree, err := Load(src)
	must(t, err)
	var got []string
	for _, d := range tree.Diagnostics {
		if d.Code == CodeInvalidRule {
			got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Column, d.Message))
		}
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], `11:31 rule "in-string": the first ';' of the expression is inside a string literal`) ||
		!strings.HasPrefix(got[1], `27:59 rule "triple": the first ';'`) || !strings.Contains(got[0], `\x3B`) {
		t.Errorf("diagnostics:\n%s", strings.Join(got, "\n"))
	}
}

// Rule fields lint refuses as Confluent's rule semantics would fail on them, each at
// its value with what to write instead: an empty expr, two actions on a rule that
// runs one way, three on one that runs both ways, a space after the comma, DLQ
// without params dlq.topic, a CEL TRANSFORM that gives a bool, and the rule types
// contractbot does not take (ENCRYPT, JSONATA), with why.
func TestRuleFieldsAsConfluentReadsThem(t *testing.T) {
	rule := func(name, kind, typ, mode, expr, extra string) string {
		return "  - name: " + name + "\n    kind: " + kind + "\n    type: " + typ + "\n    mode: " + mode + "\n    expr: '" + expr + "'\n" + extra
	}
	src := MemSource{
		"contracts/teams.yaml":        []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/avro/order.avsc": []byte(`{"type":"record","name":"Order","doc":"d","fields":[{"name":"total","type":"double","doc":"d"}]}`),
		"contracts/d/avro/contract.yaml": []byte("subject: avro\nformat: avro\nschema: order.avsc\ncompatibility: NONE\nowner: a\nrules:\n" +
			rule("empty", "CONDITION", "CEL", "WRITE", "", "") + // 7
			rule("blank", "CONDITION", "CEL", "WRITE", "   ", "") + // 12
			rule("two-on-write", "CONDITION", "CEL", "WRITE", "message.total > 0.0", "    on_failure: NONE,ERROR\n") + // 17
			rule("three", "CONDITION", "CEL", "WRITEREAD", "message.total > 0.0", "    on_failure: NONE,ERROR,DLQ\n") + // 23
			rule("spaced", "CONDITION", "CEL", "WRITEREAD", "message.total > 0.0", "    on_failure: NONE, ERROR\n") + // 29
			rule("dlq", "CONDITION", "CEL", "WRITE", "message.total > 0.0", "    on_failure: DLQ\n") + // 35
			rule("dlq-ok", "CONDITION", "CEL", "WRITE", "message.total > 0.0", "    on_failure: DLQ\n    params: {dlq.topic: bad}\n") + // 41
			rule("bool-transform", "TRANSFORM", "CEL", "WRITE", "message.total > 0.0", "") + // 48
			rule("encrypt", "TRANSFORM", "ENCRYPT", "WRITEREAD", "x", "") + // 53
			rule("jsonata", "TRANSFORM", "JSONATA", "UPGRADE", "$", "") + // 58
			rule("two-ok", "CONDITION", "CEL", "WRITEREAD", "message.total > 0.0", "    on_failure: NONE,ERROR\n") + // 63
			rule("indexed", "CONDITION", "CEL", "WRITE", `message["total"] > 0.0`, "")),
	}
	tree, err := Load(src)
	must(t, err)
	var got []string
	for _, d := range tree.Diagnostics {
		got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Column, d.Message))
	}
	want := []string{
		`11:11 rule "empty" has an empty expr`,
		`16:11 rule "blank" has an empty expr`,
		`22:17 on_failure "NONE,ERROR" gives two actions to a WRITE rule`,
		`28:17 on_failure "NONE,ERROR,DLQ" has 3 actions; a WRITEREAD rule takes one, or two`,
		`34:17 on_failure "NONE, ERROR" is not an action`,
		`40:17 on_failure "DLQ" sends records to a dead-letter topic`,
		`52:12 rule "bool-transform": the CEL TRANSFORM gives a bool, not the record`,
		`55:11 rule type ENCRYPT is not taken here: field-level encryption`,
		`60:11 rule type JSONATA is not taken here`,
		`73:19 rule "indexed" reads a field by index`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d diagnostics, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("diagnostic %d:\n got %s\nwant %s...", i, got[i], want[i])
		}
	}
}
