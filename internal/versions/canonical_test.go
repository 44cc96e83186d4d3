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
// or rules, with the same schema) is a new version with the schema's id, as a
// Confluent registry makes a new version when a schema is registered again with other
// metadata or rules; a change of anything else in contract.yaml (doc, level) is not;
// returning to an earlier pair is the earlier version.
func TestDataContractChangeIsAVersion(t *testing.T) {
	r := newTestRepo(t)
	const subj, cy = "a.one-value", "contracts/a/one/contract.yaml"
	files := func(edit func(string) string) map[string]string {
		m := subjectFiles(nil, "a/one", subj, avsc("a"))
		m[cy] = edit(m[cy])
		return m
	}
	same := func(s string) string { return s }
	c1 := r.commit(files(same))
	c2 := r.commit(files(func(s string) string { return s + "description: the orders\n" }), c1)
	c3 := r.commit(files(func(s string) string { return strings.Replace(s, "owner: orders", "owner: billing", 1) }), c2)
	c4 := r.commit(files(func(s string) string {
		return strings.Replace(s, "owner: orders", "owner: billing", 1) + "rules:\n  - {name: r, kind: CONDITION, type: CEL, mode: WRITE, expr: \"message.a != ''\"}\n"
	}), c3)
	c5 := r.commit(files(same), c4)
	ix := build(t, r, c5)
	vs := ix.Versions(subj)
	if got := versionNums(vs); !reflect.DeepEqual(got, [][2]int{{1, 1}, {2, 1}, {3, 1}}) {
		t.Fatalf("versions %v, want 3 versions of id 1", got)
	}
	if vs[1].Commit != c3.String() || vs[2].Commit != c4.String() {
		t.Errorf("versions 2 and 3 appeared at %s and %s, want the owner's and the rule's commits", vs[1].Commit, vs[2].Commit)
	}
	if cur, _ := ix.Current(subj); cur.Version != 1 {
		t.Errorf("current %d after returning to the first data contract, want 1", cur.Version)
	}
	if uses := ix.Schemas[0].Uses; len(uses) != 3 {
		t.Errorf("id 1 is used by %v, want the 3 versions", uses)
	}
	if extended := build(t, r, c2); len(extended.Versions(subj)) != 1 {
		t.Errorf("a description alone made a version")
	}
}
