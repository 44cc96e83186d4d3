package contract

import (
	"strings"
	"testing"
)

// Two consumer files of one subject whose openlineage: keys name the same job (a key
// without a namespace names it in every namespace) are a located error on the second.
func TestDuplicateOpenLineageKey(t *testing.T) {
	consumer := func(name, key string) []byte {
		return []byte("name: " + name + "\nowner: a\nkind: flink-job\nreads: [total]\nopenlineage: " + key + "\n")
	}
	src := MemSource{
		"contracts/teams.yaml":                 []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/s/order.avsc":             []byte(`{"type":"record","name":"Order","fields":[{"name":"total","type":"double"}]}`),
		"contracts/d/s/contract.yaml":          []byte("subject: d.s-value\nformat: avro\nschema: order.avsc\ncompatibility: NONE\nowner: a\n"),
		"contracts/d/s/consumers/one.yaml":     consumer("one", "{namespace: flink, job: etl.orders}"),
		"contracts/d/s/consumers/two.yaml":     consumer("two", "{job: etl.orders}"),
		"contracts/d/s/consumers/three.yaml":   consumer("three", "{namespace: spark, job: etl.other}"),
		"contracts/d/s/consumers/four-ok.yaml": consumer("four-ok", "{namespace: spark, job: etl.same}"),
		"contracts/d/s/consumers/five-ok.yaml": consumer("five-ok", "{namespace: flink, job: etl.same}"),
	}
	tree, err := Load(src)
	must(t, err)
	var got []string
	for _, d := range tree.Diagnostics {
		if d.Code == CodeDuplicateName {
			got = append(got, d.File+": "+d.Message)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "contracts/d/s/consumers/two.yaml: openlineage: job \"etl.orders\" is already claimed by contracts/d/s/consumers/one.yaml") {
		t.Errorf("duplicate-name errors %q: want one, on two.yaml", got)
	}
}
