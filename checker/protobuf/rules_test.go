package protobuf

import (
	"reflect"
	"sort"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// buf v1.75.0's v2 configuration: the rules of the WIRE and WIRE_JSON categories
// (private/bufpkg/bufcheck/bufcheckserver/bufcheckserver.go, V2Spec).
var (
	bufWire = []string{
		"ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED", "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED",
		"FIELD_SAME_DEFAULT", "FIELD_SAME_ONEOF", "FIELD_WIRE_COMPATIBLE_CARDINALITY", "FIELD_WIRE_COMPATIBLE_TYPE",
		"FILE_SAME_PACKAGE", "MESSAGE_SAME_REQUIRED_FIELDS", "RESERVED_ENUM_NO_DELETE", "RESERVED_MESSAGE_NO_DELETE",
		"RPC_SAME_CLIENT_STREAMING", "RPC_SAME_IDEMPOTENCY_LEVEL", "RPC_SAME_REQUEST_TYPE", "RPC_SAME_RESPONSE_TYPE",
		"RPC_SAME_SERVER_STREAMING",
	}
	bufWireJSON = []string{
		"ENUM_SAME_JSON_FORMAT", "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED", "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED",
		"ENUM_VALUE_SAME_NAME", "FIELD_NO_DELETE_UNLESS_NAME_RESERVED", "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED",
		"FIELD_SAME_DEFAULT", "FIELD_SAME_JSON_NAME", "FIELD_SAME_NAME", "FIELD_SAME_ONEOF",
		"FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY", "FIELD_WIRE_JSON_COMPATIBLE_TYPE", "FILE_SAME_PACKAGE",
		"MESSAGE_SAME_JSON_FORMAT", "MESSAGE_SAME_REQUIRED_FIELDS", "RESERVED_ENUM_NO_DELETE", "RESERVED_MESSAGE_NO_DELETE",
		"RPC_SAME_CLIENT_STREAMING", "RPC_SAME_IDEMPOTENCY_LEVEL", "RPC_SAME_REQUEST_TYPE", "RPC_SAME_RESPONSE_TYPE",
		"RPC_SAME_SERVER_STREAMING",
	}
)

func TestRuleCategoriesMatchBuf(t *testing.T) {
	for cat, want := range map[string][]string{RulesWire: bufWire, RulesWireJSON: bufWireJSON} {
		w := append([]string(nil), want...)
		sort.Strings(w)
		if got := RuleIDs(cat); !reflect.DeepEqual(got, w) {
			t.Errorf("%s rules:\n got %q\nwant %q", cat, got, w)
		}
	}
	for _, c := range breakingRules() {
		if c.rule.purpose == "" || RulePurpose(c.rule.id) != c.rule.purpose {
			t.Errorf("rule %s has no purpose", c.rule.id)
		}
	}
}

// TestEveryRuleFires makes sure the generated edits exercise every rule, so the
// differential test against buf covers them all.
func TestEveryRuleFires(t *testing.T) {
	fired := map[string]bool{}
	for _, tc := range generatedEdits() {
		prev, err := Parse("schema.proto", mapResolver(tc.files(false)), "")
		if err != nil {
			t.Fatal(err)
		}
		next, err := Parse("schema.proto", mapResolver(tc.files(true)), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, cat := range []string{RulesWire, RulesWireJSON} {
			for _, f := range runRules(cat, prev, next) {
				fired[f.Rule] = true
				if f.Line == 0 || f.File == "" || f.Path == "" || f.Message == "" {
					t.Errorf("%s: %s has no location: %+v", tc.name, f.Rule, f)
				}
			}
		}
	}
	for _, id := range append(RuleIDs(RulesWire), RuleIDs(RulesWireJSON)...) {
		if !fired[id] {
			t.Errorf("no generated edit triggers %s", id)
		}
	}
}

// TestCheckLevels pins the directions and versions a level compares.
func TestCheckLevels(t *testing.T) {
	v1 := mustParse(t, "syntax = \"proto3\";\nmessage A {\n  string a = 1;\n}\n")
	v2 := mustParse(t, "syntax = \"proto3\";\nmessage A {\n  string a = 1;\n  int32 b = 2;\n}\n")
	v3 := mustParse(t, "syntax = \"proto3\";\nmessage A {\n  string a = 1;\n  string b = 2;\n  message N {}\n}\n")
	tests := []struct {
		level checker.Level
		prev  []*Schema
		want  []string
	}{
		{checker.None, []*Schema{v1, v2}, nil},
		{checker.Backward, []*Schema{v1, v2}, []string{"FIELD_SCALAR_KIND_CHANGED #/A/2 2 backward"}},
		{checker.Backward, []*Schema{v1}, nil},
		{checker.BackwardTransitive, []*Schema{v1, v2}, []string{"FIELD_SCALAR_KIND_CHANGED #/A/2 2 backward"}},
		{checker.Forward, []*Schema{v1}, []string{"MESSAGE_REMOVED #/A/N 1 forward"}},
		{checker.Full, []*Schema{v1, v2}, []string{"FIELD_SCALAR_KIND_CHANGED #/A/2 2 backward", "MESSAGE_REMOVED #/A/N 2 forward"}},
		{checker.FullTransitive, []*Schema{v1, v2}, []string{"FIELD_SCALAR_KIND_CHANGED #/A/2 2 backward", "MESSAGE_REMOVED #/A/N 1 forward", "MESSAGE_REMOVED #/A/N 2 forward"}},
	}
	for _, tt := range tests {
		res := Check(tt.prev, v3, tt.level, "")
		var got []string
		for _, f := range res.Findings {
			got = append(got, f.Rule+" "+f.Path+" "+itoa(f.Against)+" "+string(f.Direction))
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, tt.want) || res.Compatible != (len(tt.want) == 0) {
			t.Errorf("%s against %d versions: got %q (compatible %v), want %q", tt.level, len(tt.prev), got, res.Compatible, tt.want)
		}
	}
}
