package registry

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/contractbot/contractbot/internal/testutil"
)

// qaImporter is a Protobuf schema importing common.money-value's schema file.
const qaImporter = `syntax = "proto3";
package acme.qa.v1;
import "common/money/money.proto";
message Payment { acme.common.v1.Money amount = 1; }
`

// QA finding F9: qa.a-value imports money.proto before common.money-value's version
// 2, qa.b-value has the same text and is added after it. They have two ids, each
// served with its own references (by version and by id), referencedby lists each
// under its money version, and the look-up tells them apart by their references.
func TestSameTextOtherReferencesHasItsOwnID(t *testing.T) {
	r := testutil.ExampleRepo(t)
	addQA := func(name string) {
		r.Write("contracts/qa/"+name+"/contract.yaml", "subject: qa."+name+"-value\nformat: protobuf\nschema: payment.proto\ncompatibility: BACKWARD\nowner: payments\ntier: core\n")
		r.Write("contracts/qa/"+name+"/payment.proto", qaImporter)
	}
	addQA("a")
	r.Commit("qa.a imports money")
	r.Edit("contracts/common/money/money.proto", "  int32 nanos = 3;\n", "  int32 nanos = 3;\n  string note = 4;\n")
	r.Commit("money: note")
	addQA("b")
	r.Commit("qa.b, the same text, imports money version 2")

	cl := franzClient(t, r.Git)
	ctx := context.Background()
	money := func(v int) []sr.SchemaReference {
		return []sr.SchemaReference{{Name: "common/money/money.proto", Subject: "common.money-value", Version: v}}
	}
	ids := map[string]int{}
	for name, want := range map[string]int{"qa.a-value": 1, "qa.b-value": 2} {
		ss, err := cl.SchemaByVersion(ctx, name, 1)
		if err != nil {
			t.Fatal(err)
		}
		if ss.Schema.Schema != qaImporter || !slices.Equal(ss.References, money(want)) {
			t.Errorf("%s version 1: references %+v, want money version %d", name, ss.References, want)
		}
		byID, err := cl.SchemaByID(ctx, ss.ID)
		if err != nil || byID.Schema != qaImporter || !slices.Equal(byID.References, money(want)) {
			t.Errorf("schema id %d (%s): references %+v (%v), want money version %d", ss.ID, name, byID.References, err, want)
		}
		// A deserializer resolves the import through the id's references: qa.b's
		// Money has the note, qa.a's does not.
		ref, err := cl.SchemaByVersion(ctx, byID.References[0].Subject, byID.References[0].Version)
		if err != nil || strings.Contains(ref.Schema.Schema, "note") != (want == 2) {
			t.Errorf("%s resolves Money as %q (%v)", name, ref.Schema.Schema, err)
		}
		ids[name] = ss.ID
	}
	if ids["qa.a-value"] == ids["qa.b-value"] {
		t.Fatalf("qa.a and qa.b share id %d", ids["qa.a-value"])
	}
	for v, want := range map[int]string{1: "qa.a-value", 2: "qa.b-value"} {
		users, err := cl.SchemaReferences(ctx, "common.money-value", v)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range users {
			if strings.HasPrefix(u.Subject, "qa.") {
				got = append(got, u.Subject)
				if u.ID != ids[u.Subject] {
					t.Errorf("referencedby money %d: %s with id %d, want %d", v, u.Subject, u.ID, ids[u.Subject])
				}
			}
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("schemas referencing money version %d: %v, want [%s]", v, got, want)
		}
	}
	// The look-up compares references when the request has some.
	for _, tc := range []struct {
		subject string
		refs    []sr.SchemaReference
		found   bool
	}{
		{"qa.b-value", money(2), true},
		{"qa.b-value", money(-1), true}, // Confluent's "latest"
		{"qa.b-value", money(1), false},
		{"qa.a-value", money(1), true},
		{"qa.a-value", money(2), false},
		{"qa.a-value", nil, true}, // no references: the form alone decides
	} {
		found, err := cl.LookupSchema(ctx, tc.subject, sr.Schema{Schema: qaImporter, Type: sr.TypeProtobuf, References: tc.refs})
		if tc.found != (err == nil) || (err == nil && found.ID != ids[tc.subject]) {
			t.Errorf("look-up of %s with references %+v: id %d, err %v; want found=%v", tc.subject, tc.refs, found.ID, err, tc.found)
		}
	}
}
