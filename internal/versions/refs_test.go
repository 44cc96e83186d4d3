package versions

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// Two subjects with the same Protobuf text, one added before the shared subject's
// version 2 and one after, import different versions: two ids, each version with its
// own references. A subject added in the same commit as a version of the subject it
// imports (and sorted before it) pins that version; a later subject with the same
// text and the same references shares its id. Extending one commit at a time, with the
// index encoded and decoded between commits (as a cache restores it), equals Build.
func TestReferencesArePartOfTheID(t *testing.T) {
	r := newTestRepo(t)
	importer := "syntax = \"proto3\";\npackage qa.v1;\nimport \"common/money/money.proto\";\nmessage Q { common.money.v1.Money amount = 1; }\n"
	money := func(fields string) string {
		return "syntax = \"proto3\";\npackage common.money.v1;\nmessage Money { string currency = 1; int64 units = 2;" + fields + " }\n"
	}
	m := map[string]string{
		"contracts/common/money/contract.yaml": contractText("common.money-value", "money.proto"),
		"contracts/common/money/money.proto":   money(""),
		"contracts/qa/a/contract.yaml":         contractText("qa.a-value", "q.proto"),
		"contracts/qa/a/q.proto":               importer,
	}
	var heads []plumbing.Hash
	var c plumbing.Hash
	commit := func() {
		if c.IsZero() {
			c = r.commit(m)
		} else {
			c = r.commit(m, c)
		}
		heads = append(heads, c)
	}
	add := func(folder, subject string) {
		m["contracts/"+folder+"/contract.yaml"] = contractText(subject, "q.proto")
		m["contracts/"+folder+"/q.proto"] = importer
	}
	commit()
	m["contracts/common/money/money.proto"] = money(" string note = 4;")
	commit()
	add("qa/b", "qa.b-value")
	commit()
	add("a/z", "a.z-value")
	m["contracts/common/money/money.proto"] = money(" string note = 4; string memo = 5;")
	commit()
	add("qa/d", "qa.d-value")
	commit()

	ix := build(t, r, c)
	ref := func(v int) []Reference {
		return []Reference{{Name: "common/money/money.proto", Subject: "common.money-value", Version: v}}
	}
	for _, tc := range []struct {
		subject string
		id      int
		refs    []Reference
	}{
		{"common.money-value", 6, nil}, // version 3, after a.z in its commit
		{"qa.a-value", 2, ref(1)},
		{"qa.b-value", 4, ref(2)}, // money version 2 has id 3
		{"a.z-value", 5, ref(3)},  // same commit as money version 3, sorted before it
		{"qa.d-value", 5, ref(3)}, // same text, same references: a.z's id
	} {
		v, ok := ix.Latest(tc.subject)
		if !ok || v.ID != tc.id || !reflect.DeepEqual(v.References, tc.refs) {
			t.Errorf("%s: id %d references %+v, want id %d references %+v", tc.subject, v.ID, v.References, tc.id, tc.refs)
		}
	}
	if a, _ := ix.Latest("qa.a-value"); ix.Schemas[a.ID-1].Canonical != ix.Schemas[3].Canonical {
		t.Error("qa.a and qa.b do not have the same canonical form")
	}
	if got := len(ix.Schemas); got != 6 {
		t.Errorf("%d ids, want 6 (money 1-3, qa.a, qa.b, a.z and qa.d)", got)
	}
	if err := ix.check(); err != nil {
		t.Fatal(err)
	}

	step := New()
	for _, h := range heads {
		if err := step.Extend(r.repo, h); err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(step)
		if err != nil {
			t.Fatal(err)
		}
		step = New()
		if err := json.Unmarshal(data, step); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := indexJSON(t, step), indexJSON(t, ix); got != want {
		t.Errorf("extended one commit at a time:\n%s\nbuilt:\n%s", got, want)
	}
}
