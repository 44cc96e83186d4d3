package avro

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
)

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat(`{"type":"array","items":`, 10_000) + `"int"` + strings.Repeat("}", 10_000)
	big := `{"type":"record","name":"Big","doc":"` + strings.Repeat("x", 20<<20) + `","fields":[]}`
	tests := []struct {
		name      string
		text      string
		line, col int
		contains  string
	}{
		{"invalid json", "{\n  \"type\": \"record\",\n  \"name\": \"A\"\n  \"fields\": []\n}", 4, 3, "expected ',' or '}'"},
		{"trailing text", `"int" "long"`, 1, 7, "exactly one JSON value"},
		{"unclosed string", "{\"type\": \"record\", \"name\": \"A", 1, 28, "not closed"},
		{"empty file", "", 1, 1, "unexpected end of file"},
		{"duplicate key", "{\"type\": \"int\",\n \"type\": \"long\"}", 2, 2, `duplicate member "type"`},
		{"unknown type", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"a\", \"type\": \"Money\"}\n]}", 2, 25, `unknown type "Money"`},
		{"unknown top-level type", `"integer"`, 1, 1, `unknown type "integer"`},
		{"duplicate field", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"a\", \"type\": \"int\"},\n  {\"name\": \"a\", \"type\": \"long\"}\n]}", 3, 3, `two fields named "a"`},
		{"duplicate type name", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"a\", \"type\": {\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"X\"]}},\n  {\"name\": \"b\", \"type\": {\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"Y\"]}}\n]}", 3, 50, `type "E" is defined twice`},
		{"default of wrong type", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"n\", \"type\": \"int\", \"default\": \"ten\"}\n]}", 2, 43, `default of field "n" does not match its type int`},
		{"null default on a non-null-first union", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"n\", \"type\": [\"int\", \"null\"], \"default\": null}\n]}", 2, 53, `default of field "n"`},
		{"union of unions", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"u\", \"type\": [\"null\", [\"int\", \"long\"]]}\n]}", 2, 34, "union cannot hold another union"},
		{"duplicate union branch", "[\"int\", \"string\", \"int\"]", 1, 19, "same type twice"},
		{"nesting", deep, 1, 1 + 256*24, "deeper than 256 levels"},
		{"too big", big, 1, 1, "limit is 8388608 bytes"},
		{"record without fields", `{"type": "record", "name": "A"}`, 1, 1, `record has no "fields"`},
		{"bad name", `{"type": "record", "name": "9lives", "fields": []}`, 1, 28, `"9lives" is not a valid Avro name`},
		{"bad field name", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"b-c\", \"type\": \"int\"}]}", 2, 12, `field name "b-c"`},
		{"field without type", "{\"type\": \"record\", \"name\": \"A\", \"fields\": [\n  {\"name\": \"a\"}]}", 2, 3, `field "a" has no "type"`},
		{"fields not an array", `{"type": "record", "name": "A", "fields": {}}`, 1, 43, `"fields" must be an array`},
		{"type is a number", `{"type": 5}`, 1, 10, `"type" must be a string`},
		{"fixed size", `{"type": "fixed", "name": "F", "size": "16"}`, 1, 40, `"size" must be a non-negative whole number`},
		{"array without items", "[\"null\",\n {\"type\": \"array\"}]", 2, 2, `array needs "items"`},
		{"enum symbol", `{"type": "enum", "name": "E", "symbols": ["A", "b c"]}`, 1, 48, "enum symbol"},
		{"enum default not a symbol", `{"type": "enum", "name": "E", "symbols": ["A"], "default": "B"}`, 1, 60, `"B"`},
		{"not a type", `true`, 1, 1, "expected a type here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(checker.Input{Path: "bad.avsc", Data: []byte(tt.text)})
			var ie *checker.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want *checker.InputError", err, err)
			}
			if ie.File != "bad.avsc" || ie.Line != tt.line || ie.Column != tt.col {
				t.Errorf("at %s:%d:%d, want bad.avsc:%d:%d (%s)", ie.File, ie.Line, ie.Column, tt.line, tt.col, ie.Message)
			}
			if !strings.Contains(ie.Message, tt.contains) {
				t.Errorf("message %q does not contain %q", ie.Message, tt.contains)
			}
		})
	}
}

func TestFieldPathsAndPos(t *testing.T) {
	text := `{
  "type": "record", "name": "Order",
  "fields": [
    {"name": "id", "type": "string"},
    {"name": "items", "type": {"type": "array", "items": {
      "type": "record", "name": "Item", "fields": [
        {"name": "sku", "type": "string"},
        {"name": "tags", "type": {"type": "map", "values": ["null", "Item"]}}
      ]}}},
    {"name": "product_info", "type": ["null", {
      "type": "record", "name": "ProductInfo", "fields": [
        {"name": "detail", "type": {"type": "record", "name": "Detail", "fields": [
          {"name": "price", "type": "double"}]}}]}], "default": null},
    {"name": "first_item", "type": "Item"},
    {"name": "next", "type": ["null", "Order"], "default": null}
  ]
}`
	s := mustParse(t, "order.avsc", []byte(text))
	want := []string{
		"first_item", "first_item.sku", "first_item.tags",
		"id", "items", "items.sku", "items.tags",
		"next",
		"product_info", "product_info.detail", "product_info.detail.price",
	}
	if got := s.FieldPaths(); !slices.Equal(got, want) {
		t.Errorf("FieldPaths:\n got %q\nwant %q", got, want)
	}
	for _, tt := range []struct {
		path      string
		line, col int
	}{
		{"id", 4, 5},
		{"items.sku", 7, 9},
		{"product_info.detail.price", 13, 11},
		{"first_item.sku", 7, 9}, // defined once, in the Item definition
		{"next", 15, 5},
	} {
		line, col, ok := s.Pos(tt.path)
		if !ok || line != tt.line || col != tt.col {
			t.Errorf("Pos(%q) = %d:%d %v, want %d:%d", tt.path, line, col, ok, tt.line, tt.col)
		}
	}
	if _, _, ok := s.Pos("nope"); ok {
		t.Error("Pos of an unknown path reports ok")
	}
}

// Subjects never see each other's names: each Parse has its own cache.
func TestParseIsolated(t *testing.T) {
	mustParse(t, "a.avsc", []byte(`{"type": "fixed", "name": "Shared", "size": 4}`))
	if _, err := Parse(checker.Input{Path: "b.avsc", Data: []byte(`{"type": "array", "items": "Shared"}`)}); err == nil {
		t.Fatal("a name defined in another schema resolved")
	}
}

func TestCompatReportsEveryBadInput(t *testing.T) {
	_, err := Compat([]checker.Input{{Path: "v1.avsc", Data: []byte(`{`)}}, checker.Input{Path: "v2.avsc", Data: []byte(`"nope"`)}, checker.Options{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "v1.avsc:1:2:") || !strings.Contains(msg, "v2.avsc:1:1:") {
		t.Errorf("error does not name both files with positions:\n%s", msg)
	}
}

// dagSchema defines T0 with one field of type leaf, and Tk with two fields of type
// T(k-1): 2^depth paths and uses of T0 from the top.
func dagSchema(depth int, leaf string) []byte {
	// Built from the inside out: each Tk is defined once, inline in its first use.
	inner := `{"type":"record","name":"T0","fields":[{"name":"a","type":"` + leaf + `"}]}`
	for k := 1; k <= depth; k++ {
		inner = `{"type":"record","name":"T` + strconv.Itoa(k) + `","fields":[{"name":"x","type":` + inner + `},{"name":"y","type":"T` + strconv.Itoa(k-1) + `"}]}`
	}
	return []byte(inner)
}

// A named type reused along a deep tree multiplies paths and findings exponentially;
// both are bounded and the check stays fast.
func TestExponentialReuseIsBounded(t *testing.T) {
	old := mustParse(t, "old.avsc", dagSchema(24, "int"))
	next := mustParse(t, "new.avsc", dagSchema(24, "string"))
	start := time.Now()
	res := Check([]*Schema{old}, next, checker.Full)
	if n := len(res.Findings); n == 0 || n > 2*maxIssues+2 {
		t.Errorf("%d findings, want between 1 and %d", n, 2*maxIssues+2)
	}
	if res.Findings[0].Rule != RuleFindingsCut || res.Findings[0].Line < 1 {
		t.Errorf("the cut comparison is not said first, with a place: %+v", res.Findings[0])
	}
	if got := len(next.FieldPaths()); got > checker.MaxFieldPaths {
		t.Errorf("%d field paths, over the bound %d", got, checker.MaxFieldPaths)
	}
	if cut := next.FieldPathsCut(); cut == nil || cut.Line < 1 || cut.File != "new.avsc" {
		t.Errorf("the cut listing is not explained with a location: %+v", cut)
	}
	// A path past the listing still resolves through the records.
	deep := strings.Repeat("y.", 24) + "a"
	if !next.FieldGraph().Has(deep) || next.FieldGraph().Has(strings.Repeat("y.", 23)+"a") {
		t.Errorf("FieldGraph().Has(%s) is wrong", deep)
	}
	changes := Diff(old, next)
	if len(changes) == 0 || changes[0].Kind != checker.ChangesCut || changes[0].Effect != checker.Breaks {
		t.Errorf("the diff of cut listings does not say so first: %+v", changes[:min(1, len(changes))])
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	t.Logf("%d findings, %d paths, %d changes in %v", len(res.Findings), len(next.FieldPaths()), len(changes), time.Since(start))
}
