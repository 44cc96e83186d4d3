package versions

import (
	"reflect"
	"strings"
	"testing"
)

// A version is a new canonical form, not a new text: re-indenting, reordering the
// attributes Avro reads and changing Protobuf comments make no version; a layout
// change of an earlier form is that earlier version; text that does not parse is
// identified by its bytes.
func TestLayoutOnlyChangesAreNoVersion(t *testing.T) {
	r := newTestRepo(t)
	const subj = "orders.created-value"
	v1 := avsc("a")
	c1 := r.commit(subjectFiles(nil, "orders/created", subj, v1))
	relaid := "{\n  \"fields\": [ {\"type\": \"string\", \"name\": \"a\"} ],\n  \"name\": \"R\",\n  \"type\": \"record\"\n}\n"
	c2 := r.commit(subjectFiles(nil, "orders/created", subj, relaid), c1)
	ix := build(t, r, c2)
	if got := versionNums(ix.Versions(subj)); !reflect.DeepEqual(got, [][2]int{{1, 1}}) {
		t.Fatalf("after a layout-only change: %v, want one version", got)
	}
	if v, _ := ix.Current(subj); v.Commit != c1.String() {
		t.Fatalf("version 1 must keep the text of its first commit, got commit %s", v.Commit)
	}
	c3 := r.commit(subjectFiles(nil, "orders/created", subj, avsc("a", "b")), c2)
	back := "{\"type\":\"record\",\n\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"string\"}}]}"
	c4 := r.commit(subjectFiles(nil, "orders/created", subj, back), c3) // version 1's form, another layout
	ix = build(t, r, c4)
	if got := versionNums(ix.Versions(subj)); !reflect.DeepEqual(got, [][2]int{{1, 1}, {2, 2}}) {
		t.Fatalf("after returning to version 1's form: %v", got)
	}
	if cur, _ := ix.Current(subj); cur.Version != 1 {
		t.Fatalf("current = %d, want 1 (the earlier form)", cur.Version)
	}
	broken := `{"type":"record",`
	c5 := r.commit(subjectFiles(nil, "orders/created", subj, broken), c4)
	c6 := r.commit(subjectFiles(nil, "orders/created", subj, broken+" "), c5)
	ix = build(t, r, c6)
	vs := ix.Versions(subj)
	if len(vs) != 4 || vs[2].Canonical != "blob:"+vs[2].Blob || vs[3].Canonical != "blob:"+vs[3].Blob {
		t.Fatalf("texts that do not parse must be versions by their bytes: %+v", vs)
	}
}

func TestProtobufCommentsAreNoVersion(t *testing.T) {
	r := newTestRepo(t)
	files := func(proto string) map[string]string {
		return map[string]string{
			"contracts/pay/auth/contract.yaml": contractText("pay.auth-value", "auth.proto"),
			"contracts/pay/auth/auth.proto":    proto,
		}
	}
	c1 := r.commit(files("syntax = \"proto3\";\npackage p;\n// An authorisation.\nmessage A { string id = 1; }\n"))
	c2 := r.commit(files("syntax = \"proto3\";\n\npackage p;\n\n// An authorisation of a payment.\nmessage A {\n  // The id.\n  string id = 1;\n}\n"), c1)
	ix := build(t, r, c2)
	if n := len(ix.Versions("pay.auth-value")); n != 1 {
		t.Fatalf("comment and layout changes made %d versions, want 1", n)
	}
	c3 := r.commit(files("syntax = \"proto3\";\npackage p;\nmessage A { string id = 1; string note = 2; }\n"), c2)
	ix = build(t, r, c3)
	if n := len(ix.Versions("pay.auth-value")); n != 2 {
		t.Fatalf("a new field made %d versions, want 2", n)
	}
}

// Two subjects whose texts differ only in layout share one id, as in a Confluent
// registry.
func TestSameCanonicalFormSharesID(t *testing.T) {
	r := newTestRepo(t)
	m := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
	m = subjectFiles(m, "b/two", "b.two-value", "{ \"name\": \"R\", \"type\": \"record\", \"fields\": [{\"name\": \"x\", \"type\": \"string\"}] }")
	ix := build(t, r, r.commit(m))
	a, _ := ix.Current("a.one-value")
	b, _ := ix.Current("b.two-value")
	if a.ID != 1 || b.ID != 1 || len(ix.Schemas) != 1 {
		t.Fatalf("ids %d and %d, %d schemas; want one shared id", a.ID, b.ID, len(ix.Schemas))
	}
}

// A change of the data contract alone (contract.yaml's owner, tier, topic, pii fields
// or rules, with the same schema) is a new version with an id of its own, as a
// Confluent registry makes a new version, and a new id, when a schema is registered
// again with other metadata or rules; a change of anything else in contract.yaml (doc,
// level) is not. Removing the latest version's rules is a new version even when the
// pair returns to an earlier one (publish registers an empty ruleSet there); returning
// to an earlier pair otherwise is the earlier version.
func TestDataContractChangeIsAVersion(t *testing.T) {
	r := newTestRepo(t)
	const subj, cy = "a.one-value", "contracts/a/one/contract.yaml"
	files := func(edit func(string) string) map[string]string {
		m := subjectFiles(nil, "a/one", subj, avsc("a"))
		m[cy] = edit(m[cy])
		return m
	}
	same := func(s string) string { return s }
	billing := func(s string) string { return strings.Replace(s, "owner: orders", "owner: billing", 1) }
	rule := func(s string) string {
		return billing(s) + "rules:\n  - {name: r, kind: CONDITION, type: CEL, mode: WRITE, expr: \"message.a != ''\"}\n"
	}
	c1 := r.commit(files(same))
	c2 := r.commit(files(func(s string) string { return s + "description: the orders\n" }), c1)
	c3 := r.commit(files(billing), c2)
	c4 := r.commit(files(rule), c3)
	c5 := r.commit(files(same), c4)
	ix := build(t, r, c5)
	vs := ix.Versions(subj)
	if got := versionNums(vs); !reflect.DeepEqual(got, [][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}}) {
		t.Fatalf("versions %v, want 4 versions with ids 1 to 4", got)
	}
	if vs[1].Commit != c3.String() || vs[2].Commit != c4.String() || vs[3].Commit != c5.String() {
		t.Errorf("versions 2 to 4 appeared at %s, %s and %s, want the owner's, the rule's and its removal's commits", vs[1].Commit, vs[2].Commit, vs[3].Commit)
	}
	if !vs[2].Rules || vs[3].Rules || !strings.HasSuffix(vs[3].DataContract, EmptiedRuleSet) || vs[0].DataContract+EmptiedRuleSet != vs[3].DataContract {
		t.Errorf("version 4 (the rule removed) is not version 1's data contract with an emptied ruleSet: %+v", vs[3])
	}
	if cur, _ := ix.Current(subj); cur.Version != 4 {
		t.Errorf("current %d after the rule's removal, want 4", cur.Version)
	}
	// The rule back: the pair is version 3's again, and no version is made.
	c6 := r.commit(files(rule), c5)
	ix = build(t, r, c6)
	if n := len(ix.Versions(subj)); n != 4 {
		t.Errorf("the rule back made %d versions, want 4", n)
	}
	if cur, _ := ix.Current(subj); cur.Version != 3 {
		t.Errorf("current %d with the rule back, want 3", cur.Version)
	}
	if extended := build(t, r, c2); len(extended.Versions(subj)) != 1 {
		t.Errorf("a description alone made a version")
	}
}
