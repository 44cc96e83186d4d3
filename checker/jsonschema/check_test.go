package jsonschema

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
)

const (
	v1 = `{
  "type": "object",
  "properties": {
    "userid": {"type": "string", "description": "the user, from the accounts service"},
    "event": {"type": "string", "enum": ["view", "click", "buy"]},
    "product_info": {
      "type": "object",
      "properties": {
        "detail": {"type": "object", "properties": {"price": {"type": "integer", "description": "price in cents"}}}
      }
    },
    "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}
  },
  "required": ["userid", "event"],
  "additionalProperties": false
}`
)

func findingsOf(r *checker.Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s %s %s v%d %d:%d", f.Rule, f.Path, f.Direction, f.Against, f.Line, f.Column))
	}
	return out
}

// TestLevels: the shared level loop runs the registry's comparison in the directions
// and against the versions each level names.
func TestLevels(t *testing.T) {
	open := mustParse(t, "v1.json", `{"type": "object", "properties": {"a": {"type": "string"}}}`)
	added := mustParse(t, "v2.json", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}`)
	narrowed := mustParse(t, "v3.json", `{"type": "object", "properties": {"a": {"type": "string", "maxLength": 5}, "b": {"type": "string"}}}`)
	cases := []struct {
		level checker.Level
		prev  []*Schema
		next  *Schema
		want  []string
	}{
		{checker.Backward, []*Schema{open}, added, []string{"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b backward v1 1:60"}},
		{checker.Forward, []*Schema{open}, added, nil},
		{checker.Full, []*Schema{open}, added, []string{"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b backward v1 1:60"}},
		{checker.Backward, []*Schema{open, added}, narrowed, []string{"MAX_LENGTH_ADDED #/properties/a/maxLength backward v2 1:59"}},
		{checker.BackwardTransitive, []*Schema{open, added}, narrowed, []string{
			"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b backward v1 1:76",
			"MAX_LENGTH_ADDED #/properties/a/maxLength backward v1 1:59", "MAX_LENGTH_ADDED #/properties/a/maxLength backward v2 1:59"}},
		{checker.Forward, []*Schema{open, added}, narrowed, nil},
		// Forward, the new schema is the original: b is missing there, so the finding
		// stands at the properties of the object that lacks it.
		{checker.ForwardTransitive, []*Schema{narrowed}, open, []string{
			"MAX_LENGTH_ADDED #/properties/a/maxLength forward v1 1:35", "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b forward v1 1:20"}},
		{checker.None, []*Schema{open}, narrowed, nil},
	}
	for _, c := range cases {
		got := findingsOf(Check(c.prev, c.next, c.level))
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: findings\n %q\nwant\n %q", c.level, got, want)
		}
	}
}

// TestFieldDiff: renames, nested paths through objects and arrays, enum values,
// units in descriptions.
func TestFieldDiff(t *testing.T) {
	old := mustParse(t, "v1.json", v1)
	cases := []struct {
		name, from, to string
		want           []string
	}{
		// The rename keeps `required: ["userid"]`, so userId is also no longer required.
		{"rename", `"userid": {"type": "string"`, `"userId": {"type": "string"`, []string{"nullability_changed userId meaning", "renamed userId<-userid breaking"}},
		{"enum narrowed", `["view", "click", "buy"]`, `["view", "click"]`, []string{"enum_symbols_removed event breaking"}},
		{"enum extended", `["view", "click", "buy"]`, `["view", "click", "buy", "share"]`, []string{"enum_symbols_added event meaning"}},
		{"nested type", `"price": {"type": "integer"`, `"price": {"type": "string"`, []string{"type_changed product_info.detail.price breaking"}},
		{"unit", `price in cents`, `price in dollars`, []string{"unit_changed product_info.detail.price meaning"}},
		{"array item", `"sku": {"type": "string"}`, `"sku": {"type": "integer"}`, []string{"type_changed items.sku breaking"}},
		{"moved", `"detail": {"type": "object", "properties": {"price": {"type": "integer", "description": "price in cents"}}}`,
			`"detail": {"type": "object"}, "price": {"type": "integer", "description": "price in cents"}`,
			[]string{"moved product_info.price<-product_info.detail.price breaking"}},
		{"promoted", `"price": {"type": "integer"`, `"price": {"type": "number"`, []string{"promoted product_info.detail.price meaning"}},
		{"nullable", `"sku": {"type": "string"}`, `"sku": {"type": ["string", "null"]}`, []string{"nullability_changed items.sku meaning"}},
		{"range", `"sku": {"type": "string"}`, `"sku": {"type": "string", "maxLength": 12}`, []string{"range_changed items.sku meaning"}},
	}
	for _, c := range cases {
		text := replaceOnce(t, v1, c.from, c.to)
		next := mustParse(t, "v2.json", text)
		var got []string
		for _, ch := range Diff(old, next) {
			s := fmt.Sprintf("%s %s %s", ch.Kind, ch.Path, ch.Effect)
			if ch.OldPath != "" {
				s = fmt.Sprintf("%s %s<-%s %s", ch.Kind, ch.Path, ch.OldPath, ch.Effect)
			}
			if ch.Line < 1 || ch.File != "v2.json" && ch.Kind != checker.FieldRemoved {
				t.Errorf("%s: change %+v without a place in the new file", c.name, ch)
			}
			got = append(got, s)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: changes %q, want %q", c.name, got, c.want)
		}
	}
}

func replaceOnce(t *testing.T, s, from, to string) string {
	t.Helper()
	i := indexOf(s, from)
	if i < 0 {
		t.Fatalf("%q not in the schema", from)
	}
	return s[:i] + to + s[i+len(from):]
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// TestRuleTable: every difference type the comparison emits is in the table, and the
// table's compatible set is the registry's.
func TestRuleTable(t *testing.T) {
	if len(rules) != 132 {
		t.Errorf("%d rules, want the registry's 132 difference types", len(rules))
	}
	compatible := 0
	for _, r := range rules {
		if r.compatible {
			compatible++
		}
		if r.purpose == "" || r.purpose[len(r.purpose)-1] != '.' {
			t.Errorf("%s: purpose %q is not a sentence", r.id, r.purpose)
		}
	}
	if compatible != 65 {
		t.Errorf("%d compatible difference types, want the registry's 65 (STRICT)", compatible)
	}
}

// TestComparisonBudget: oneOf lists of 400 distinct objects on both sides make 160,000
// subschema pairs of 20 properties each; the comparison stops at MaxCompareSteps with
// a finding, quickly.
func TestComparisonBudget(t *testing.T) {
	build := func(tag string) string {
		var sb strings.Builder
		sb.WriteString(`{"oneOf": [`)
		for i := range 400 {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString(`{"type": "object", "properties": {`)
			for j := range 20 {
				if j > 0 {
					sb.WriteString(",")
				}
				fmt.Fprintf(&sb, `"p%d": {"const": "%s%d"}`, j, tag, i)
			}
			sb.WriteString(`}}`)
		}
		sb.WriteString(`]}`)
		return sb.String()
	}
	old, next := mustParse(t, "a.json", build("a")), mustParse(t, "b.json", build("b"))
	start := time.Now()
	res := Check([]*Schema{old}, next, checker.Backward)
	if d := time.Since(start); d > 30*time.Second { // a hang, not a speed target
		t.Errorf("took %v", d)
	}
	if !slices.ContainsFunc(res.Findings, func(f checker.Finding) bool { return f.Rule == ComparisonBudgetExceeded && f.Line == 1 }) {
		t.Errorf("no %s finding among %d", ComparisonBudgetExceeded, len(res.Findings))
	}
}
