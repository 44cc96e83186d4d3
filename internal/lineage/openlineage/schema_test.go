package openlineage

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validEvent is a RunEvent that follows the schema: the adapted Flink COMPLETE event.
func validEvent(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("testdata/adapted/flink-dwd-order-detail-complete.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// at walks a decoded event by keys and indexes ("outputs", 0, "facets").
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func TestSchemaRefusesBadEvents(t *testing.T) {
	colLin := []any{"outputs", 0, "facets", "columnLineage"}
	for _, tc := range []struct {
		name    string
		change  func(ev map[string]any)
		pointer string
		reason  string
	}{
		{"no run (a JobEvent)", func(ev map[string]any) { delete(ev, "run") }, "", "missing property 'run'"},
		{"no schemaURL", func(ev map[string]any) { delete(ev, "schemaURL") }, "", "missing property 'schemaURL'"},
		{"runId not a UUID", func(ev map[string]any) { at(ev, "run").(map[string]any)["runId"] = "r1" }, "/run/runId", "is not valid uuid"},
		{"eventTime not a date-time", func(ev map[string]any) { ev["eventTime"] = "yesterday" }, "/eventTime", "is not valid date-time"},
		{"producer not a URI", func(ev map[string]any) { ev["producer"] = "flink" }, "/producer", "is not valid uri"},
		{"unknown eventType", func(ev map[string]any) { ev["eventType"] = "DONE" }, "/eventType", "value must be one of"},
		{"job without a name", func(ev map[string]any) { delete(at(ev, "job").(map[string]any), "name") }, "/job", "missing property 'name'"},
		{"dataset without a namespace", func(ev map[string]any) { delete(at(ev, "inputs", 0).(map[string]any), "namespace") }, "/inputs/0", "missing property 'namespace'"},
		{"inputs not an array", func(ev map[string]any) { ev["inputs"] = map[string]any{} }, "/inputs", "got object, want array"},
		{"a run facet without _producer", func(ev map[string]any) {
			delete(at(ev, "run", "facets", "processing_engine").(map[string]any), "_producer")
		}, "/run/facets/processing_engine", "missing property '_producer'"},
		{"columnLineage without fields", func(ev map[string]any) { delete(at(ev, colLin...).(map[string]any), "fields") },
			"/outputs/0/facets/columnLineage", "missing property 'fields'"},
		{"columnLineage input field without its field", func(ev map[string]any) {
			delete(at(ev, append(colLin, "fields", "order_id", "inputFields", 0)...).(map[string]any), "field")
		}, "/outputs/0/facets/columnLineage/fields/order_id/inputFields/0", "missing property 'field'"},
		{"columnLineage transformation without type", func(ev map[string]any) {
			delete(at(ev, append(colLin, "dataset", 1, "transformations", 0)...).(map[string]any), "type")
		}, "/outputs/0/facets/columnLineage/dataset/1/transformations/0", "missing property 'type'"},
		{"columnLineage dataset entry without its field", func(ev map[string]any) {
			delete(at(ev, append(colLin, "dataset", 1)...).(map[string]any), "field")
		}, "/outputs/0/facets/columnLineage/dataset/1", "missing property 'field'"},
		{"columnLineage dataset not an array", func(ev map[string]any) { at(ev, colLin...).(map[string]any)["dataset"] = "event_time" },
			"/outputs/0/facets/columnLineage/dataset", "got string, want array"},
		{"another facet without _schemaURL", func(ev map[string]any) {
			delete(at(ev, "inputs", 0, "facets", "schema").(map[string]any), "_schemaURL")
		}, "/inputs/0/facets/schema", "missing property '_schemaURL'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := validEvent(t)
			tc.change(ev)
			data, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			err = CheckSchema(data)
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a schema error at %q", err, tc.pointer)
			}
			if p := se.Problems[0]; p.Pointer != tc.pointer || !strings.Contains(p.Reason, tc.reason) {
				t.Errorf("first problem %+v, want at %q: %q\n%v", p, tc.pointer, tc.reason, err)
			}
			if _, err := Parse(data); !errors.As(err, &se) {
				t.Errorf("Parse: %v, want the schema error", err)
			}
		})
	}
}

func TestSchemaRefusesWhatIsNotAnEvent(t *testing.T) {
	for in, want := range map[string]string{
		`{"eventType":`: "not an OpenLineage event: ",
		`[]`:            `at "" (the event itself): got array, want object`,
		`{} {}`:         "not an OpenLineage event: ",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// The events adapted from OpenLineage's Flink and Spark integration tests follow the
// schema and say what the test data says they do.
func TestAdaptedEvents(t *testing.T) {
	var evs []RunEvent
	for _, name := range []string{"flink-dwd-order-detail-start", "flink-dwd-order-detail-complete", "spark-order-fraud-rules-complete"} {
		data, err := os.ReadFile(filepath.Join("testdata/adapted", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		e, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		evs = append(evs, e)
	}
	obs := Observe(evs)
	if len(obs) != 2 || obs[0].Job != "dwd-order-detail" || obs[1].Job != "order-fraud-rules" {
		t.Fatalf("jobs %+v", obs)
	}
	r := obs[0].Reads["ods_order_events"]
	if !r["event_time"] || !r["product_info.detail.sku"] || r["coupon_code"] || len(r) != 9 {
		t.Errorf("dwd-order-detail reads %v", r)
	}
	if got := obs[0].Produces["dwd_order_detail"]["amount_cents"]; len(got) != 1 || !got["ods_order_events.amount"] {
		t.Errorf("amount_cents from %v", got)
	}
	if r := obs[1].Reads; len(r) != 1 || r["ods_order_events"] == nil || len(r["ods_order_events"]) != 0 {
		t.Errorf("order-fraud-rules reads %v", r)
	}
}

// The examples of OpenLineage's documentation lack schemaURL, which the schema
// requires; with it they pass.
func TestPublishedDocExamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/published/docs-*.json")
	if len(files) != 3 {
		t.Fatalf("%d documentation examples", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var se *SchemaError
		if err := CheckSchema(data); !errors.As(err, &se) || len(se.Problems) != 1 || se.Problems[0] != (Problem{"", "missing property 'schemaURL'"}) {
			t.Errorf("%s as published: %v, want only the missing schemaURL", f, err)
		}
		var ev map[string]any
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		ev["schemaURL"] = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
		fixed, _ := json.Marshal(ev)
		if _, err := Parse(fixed); err != nil {
			t.Errorf("%s with schemaURL: %v", f, err)
		}
	}
}

// The facet example OpenLineage's own pre-commit check validates passes against the
// embedded facet schema, and a broken copy does not.
func TestPublishedFacetExamples(t *testing.T) {
	for file, url := range map[string]string{
		"facet-ColumnLineageDatasetFacet-1.json": ColumnLineageURL,
	} {
		sch, err := compileSpec(url)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join("testdata/published", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(sch, data); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		broken := strings.Replace(string(data), `"_producer"`, `"producer"`, 1)
		if err := validate(sch, []byte(broken)); err == nil || !strings.Contains(err.Error(), "missing property '_producer'") {
			t.Errorf("%s without _producer: %v", file, err)
		}
	}
}

// Nothing is fetched: a $ref outside the embedded files does not compile.
func TestSchemaIsOffline(t *testing.T) {
	if _, err := compileSpec("https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"); err == nil || !strings.Contains(err.Error(), "never fetched") {
		t.Errorf("compiling a schema that is not embedded: %v", err)
	}
}

// The schema allows empty strings; a job or dataset whose name is empty or blank names
// nothing and is refused by Validate.
func TestBlankNamesAreRefused(t *testing.T) {
	for name, change := range map[string]func(ev map[string]any){
		"empty job name":          func(ev map[string]any) { at(ev, "job").(map[string]any)["name"] = "" },
		"blank job name":          func(ev map[string]any) { at(ev, "job").(map[string]any)["name"] = "  " },
		"blank dataset namespace": func(ev map[string]any) { at(ev, "inputs", 0).(map[string]any)["namespace"] = "\t" },
	} {
		ev := validEvent(t)
		change(ev)
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(data); err == nil || !strings.Contains(err.Error(), "which an OpenLineage RunEvent requires") {
			t.Errorf("%s: %v, want it refused", name, err)
		}
	}
}
