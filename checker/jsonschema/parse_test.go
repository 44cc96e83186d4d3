package jsonschema

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
)

func src(path, text string, files map[string]string) checker.ParseInput {
	return checker.ParseInput{
		Input: checker.Input{Path: path, Data: []byte(text)},
		Resolve: func(name string) ([]byte, error) {
			if t, ok := files[name]; ok {
				return []byte(t), nil
			}
			return nil, fmt.Errorf("read %s: %w", name, fs.ErrNotExist)
		},
	}
}

func mustParse(t *testing.T, path, text string) *Schema {
	t.Helper()
	s, err := Parse(src(path, text, nil))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return s
}

// TestBadInput: every kind of unusable schema is a located InputError, quickly.
func TestBadInput(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 10_000) + "{}" + strings.Repeat("}", 10_000)
	cases := []struct {
		name, text string
		line, col  int
		contains   string
	}{
		{"invalid JSON", "{\n  \"type\": \"object\",\n  \"properties\": {,}\n}", 3, 18, "invalid JSON"},
		{"not a schema", `[1, 2]`, 1, 1, "is an object"},
		{"unknown draft", "{\n  \"$schema\": \"http://json-schema.org/draft-99/schema#\"\n}", 2, 14, "unknown JSON Schema draft"},
		{"dangling $ref", "{\n  \"type\": \"object\",\n  \"properties\": {\"a\": {\"$ref\": \"#/$defs/missing\"}}\n}", 3, 32, "names nothing"},
		{"missing anchor", `{"$ref": "#nowhere"}`, 1, 10, "anchor"},
		{"$ref cycle", "{\n  \"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"$ref\": \"#/$defs/a\"}},\n  \"$ref\": \"#/$defs/a\"\n}", 2, 27, "cycle"},
		{"self $ref", `{"$ref": "#"}`, 1, 10, "cycle"},
		{"missing file", `{"$ref": "customer.json"}`, 1, 10, "does not exist"},
		{"remote $ref", `{"$ref": "https://example.com/x.json"}`, 1, 10, "outside the repository"},
		{"$ref past contracts/", `{"$ref": "../../x.json"}`, 1, 10, "outside contracts/"},
		{"10,000-deep nesting", deep, 1, 2305, "deeper than 256"},
		{"meta-schema", "{\n  \"type\": \"object\",\n  \"properties\": {\"a\": {\"type\": \"strng\"}}\n}", 3, 32, "meta-schema"},
		{"bad minLength", "{\"type\": \"string\", \"minLength\": -1}", 1, 33, "meta-schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse(src("bad.json", c.text, nil))
			if time.Since(start) > 20*time.Second { // a hang, not a speed target
				t.Errorf("took %v", time.Since(start))
			}
			var ie *checker.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v, want an InputError", err)
			}
			if ie.File != "bad.json" || ie.Line != c.line || ie.Column != c.col || !strings.Contains(ie.Message, c.contains) {
				t.Errorf("got %s:%d:%d %q, want bad.json:%d:%d containing %q", ie.File, ie.Line, ie.Column, ie.Message, c.line, c.col, c.contains)
			}
		})
	}
}

// TestDrafts: each draft's $schema is read, and its keywords mean what they mean
// there (items as a list in draft 7, prefixItems in 2020-12).
func TestDrafts(t *testing.T) {
	for _, d := range []string{
		"http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	} {
		s := mustParse(t, "d.json", `{"$schema": "`+d+`", "type": "object", "properties": {"a": {"type": "string"}}}`)
		if got := s.FieldPaths(); !slices.Equal(got, []string{"a"}) {
			t.Errorf("%s: field paths %v", d, got)
		}
	}
	old := mustParse(t, "a.json", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "prefixItems": [{"type": "string"}], "items": false}`)
	next := mustParse(t, "b.json", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}`)
	got := diffSet(old, next)
	if !slices.Equal(got, []string{"ITEM_ADDED_TO_CLOSED_CONTENT_MODEL #/items/1"}) {
		t.Errorf("2020-12 prefixItems: differences %v", got)
	}
}

func diffSet(old, next *Schema) []string {
	var out []string
	for _, d := range differences(old.root, next.root) {
		out = append(out, d.typ+" "+d.path)
	}
	slices.Sort(out)
	return out
}

// TestReferencesToOtherFiles: a $ref to another subject's file is read through
// Resolve (by its name from contracts/), listed in Dependencies and Imports, and a
// change inside it is a change of the schema.
func TestReferencesToOtherFiles(t *testing.T) {
	const main = `{
  "type": "object",
  "properties": {
    "order_id": {"type": "string"},
    "customer": {"$ref": "shop/customer/customer.json#/$defs/Customer"}
  },
  "required": ["order_id"]
}`
	files := map[string]string{"shop/customer/customer.json": `{"$defs": {"Customer": {"type": "object", "properties": {"id": {"type": "string"}}}}}`}
	s1 := checker.ParseInput{Input: checker.Input{Path: "contracts/shop/order/order.json", Data: []byte(main)}, Name: "shop/order/order.json", Resolve: src("", "", files).Resolve}
	old, err := Parse(s1)
	if err != nil {
		t.Fatal(err)
	}
	if got := old.Dependencies(); !slices.Equal(got, []string{"shop/customer/customer.json"}) {
		t.Errorf("dependencies %v", got)
	}
	if got := (Engine{}).Imports([]byte(main)); !slices.Equal(got, []string{"shop/customer/customer.json"}) {
		t.Errorf("imports %v", got)
	}
	if got := old.FieldPaths(); !slices.Equal(got, []string{"customer", "customer.id", "order_id"}) {
		t.Errorf("field paths %v", got)
	}
	files["shop/customer/customer.json"] = `{"$defs": {"Customer": {"type": "object", "properties": {"id": {"type": "integer"}}}}}`
	next, err := Parse(s1)
	if err != nil {
		t.Fatal(err)
	}
	res := Check([]*Schema{old}, next, checker.Backward)
	if res.Compatible || len(res.Findings) != 1 {
		t.Fatalf("findings %+v, want one TYPE_CHANGED", res.Findings)
	}
	f := res.Findings[0]
	if f.Rule != TypeChanged || f.Path != "#/properties/customer/properties/id" || f.File != "shop/customer/customer.json" || f.Line != 1 || f.Column != 58 {
		t.Errorf("finding %+v, want TYPE_CHANGED in customer.json at 1:58", f)
	}
	files["shop/customer/customer.json"] = "{\"$defs\": {\"Customer\": {\"type\": \"objekt\"}}}"
	_, err = Parse(s1)
	var ie *checker.InputError
	if !errors.As(err, &ie) || ie.File != "shop/customer/customer.json" || ie.Line != 1 || ie.Column != 33 || !strings.Contains(ie.Message, "meta-schema") {
		t.Errorf("a referenced file the meta-schema refuses: %v, want shop/customer/customer.json:1:33", err)
	}
	delete(files, "shop/customer/customer.json")
	_, err = Parse(s1)
	if !errors.As(err, &ie) || ie.File != "shop/order/order.json" || ie.Line != 5 || ie.Column != 26 {
		t.Errorf("a missing referenced file: %v, want shop/order/order.json:5:26", err)
	}
}

// TestRecursiveSchema: a tree that refers to itself compares and flattens without
// looping.
func TestRecursiveSchema(t *testing.T) {
	const tree = `{"$defs": {"node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}`
	a := mustParse(t, "a.json", tree)
	b := mustParse(t, "b.json", strings.Replace(tree, `"name": {"type": "string"}`, `"name": {"type": "string", "maxLength": 10}`, 1))
	if got := a.FieldPaths(); !slices.Equal(got, []string{"children", "name"}) {
		t.Errorf("field paths %v", got)
	}
	// As the registry's fixpoint does, the change is also reported where the recursion
	// meets the tree again (the pair is known incompatible from the first pass).
	if got := diffSet(a, b); !slices.Equal(got, []string{"MAX_LENGTH_ADDED #/properties/children/items/properties/name/maxLength", "MAX_LENGTH_ADDED #/properties/name/maxLength"}) {
		t.Errorf("differences %v", got)
	}
}

// TestFieldPathBudget: a definition reused by two properties at each of 20 levels has
// a million paths; the listing stops at checker.MaxFieldPaths with a located reason,
// quickly, and the graph still resolves the deepest path.
func TestFieldPathBudget(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"$defs": {`)
	for i := range 20 {
		fmt.Fprintf(&sb, `"l%d": {"type": "object", "properties": {"a": {"$ref": "#/$defs/l%d"}, "b": {"$ref": "#/$defs/l%d"}}},`, i, i+1, i+1)
	}
	sb.WriteString(`"l20": {"type": "string"}}, "$ref": "#/$defs/l0"}`)
	start := time.Now()
	s := mustParse(t, "wide.json", sb.String())
	if d := time.Since(start); d > 20*time.Second { // a hang, not a speed target
		t.Errorf("parse took %v", d)
	}
	if n := len(s.FieldPaths()); n != checker.MaxFieldPaths {
		t.Errorf("%d field paths listed, want the budget %d", n, checker.MaxFieldPaths)
	}
	cut := s.FieldPathsCut()
	if cut == nil || cut.Line != 1 || !strings.Contains(cut.Message, "more than") {
		t.Errorf("cut %v, want a located reason", cut)
	}
	if !s.FieldGraph().Has(strings.Repeat("b.", 19) + "b") {
		t.Error("the graph does not resolve the deepest path")
	}
	if cs := Diff(s, s); len(cs) != 1 || cs[0].Kind != checker.ChangesCut {
		t.Errorf("diff of a cut schema with itself: %v, want one %s", cs, checker.ChangesCut)
	}
}
