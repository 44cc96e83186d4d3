package contract

import (
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
		`contracts/d/one/contract.yaml:24:27: error: rule "broken": the CEL expression does not compile`,
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
