package openlineage

import (
	"strings"
	"testing"
)

func TestObserveKeepsKafkaFieldsOnly(t *testing.T) {
	src := `{"eventType":"COMPLETE","eventTime":"2026-11-30T10:00:00Z","producer":"https://example.com/p","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{"runId":"01937a6e-0000-7000-8000-000000000001"},"job":{"namespace":"n","name":"j"},
 "inputs":[{"namespace":"kafka://k:9092","name":"a"},{"namespace":"postgres://db:5432","name":"dim.users"}],
 "outputs":[{"namespace":"kafka://k:9092","name":"b","facets":{"columnLineage":{"_producer":"https://example.com/p","_schemaURL":"https://openlineage.io/spec/facets/1-1-0/ColumnLineageDatasetFacet.json",
   "fields":{"x":{"inputFields":[{"namespace":"kafka://k:9092","name":"a","field":"f.g"},{"namespace":"postgres://db:5432","name":"dim.users","field":"name"}]}},
   "dataset":[{"namespace":"kafka://k:9092","name":"a","field":"flag"}]}}}]}
{"eventType":"START","eventTime":"2026-11-30T11:00:00Z","producer":"https://example.com/p","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{"runId":"01937a6e-0000-7000-8000-000000000002"},"job":{"namespace":"n","name":"j"},"inputs":[{"namespace":"kafka://k:9092","name":"c"}]}`
	// the first event is wrapped here for reading; a JSON-lines file has it on one line
	src = strings.NewReplacer("\n ", "", "\n   ", "").Replace(src)
	evs, err := ReadLines("e.jsonl", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	obs := Observe(evs)
	if len(obs) != 1 {
		t.Fatalf("%d jobs, want 1", len(obs))
	}
	o := obs[0]
	if len(o.Reads) != 2 || !o.Reads["a"]["f.g"] || !o.Reads["a"]["flag"] || len(o.Reads["c"]) != 0 {
		t.Errorf("reads %v", o.Reads)
	}
	if got := o.Produces["b"]["x"]; len(got) != 1 || !got["a.f.g"] {
		t.Errorf("produces %v", o.Produces)
	}
}
