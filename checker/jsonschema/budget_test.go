package jsonschema

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// deepJSON is issue 13's shape in JSON Schema: definitions reusing each other levels
// deep (D_i has properties a and b, both $ref D_(i-1)), 2^levels paths to the leaf.
func deepJSON(levels int, leaf string) []byte {
	defs := []string{fmt.Sprintf(`"D0": {"type": "object", "properties": {"x": {"type": %q}}}`, leaf)}
	for i := 1; i <= levels; i++ {
		defs = append(defs, fmt.Sprintf(`"D%d": {"type": "object", "properties": {"a": {"$ref": "#/$defs/D%d"}, "b": {"$ref": "#/$defs/D%d"}}}`, i, i-1, i-1))
	}
	return []byte(fmt.Sprintf(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/D%d", "$defs": {%s}}`, levels, strings.Join(defs, ", ")))
}

// The registry comparison of a schema reused under every property of a deep tree
// keeps at most checker.MaxFindings differences per context, and still finds the
// incompatible one: bounded bytes, not 2^22 differences.
func TestDeepReuseComparisonIsBounded(t *testing.T) {
	e := Engine{}
	old, err := e.Parse(checker.ParseInput{Input: checker.Input{Path: "old.json", Data: deepJSON(22, "integer")}})
	if err != nil {
		t.Fatal(err)
	}
	next, err := e.Parse(checker.ParseInput{Input: checker.Input{Path: "new.json", Data: deepJSON(22, "string")}})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := e.Check([]checker.Version{{Schema: old}}, next, checker.Full, "")
	changes := e.Diff(old, next)
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 256 {
		t.Errorf("Check and Diff allocated %d MB, over 256 MB", mb)
	}
	if res.Compatible || len(res.Findings) == 0 || len(res.Findings) > checker.MaxFindings+1 {
		t.Errorf("compatible %v with %d findings", res.Compatible, len(res.Findings))
	}
	if len(changes) == 0 || len(changes) > checker.MaxChanges+1 {
		t.Errorf("%d changes", len(changes))
	}
	// A difference past the cap that is incompatible is still kept.
	c := &cmpCtx{}
	for range maxDifferences + 5 {
		c.keep(difference{typ: compatibleOne(t)})
	}
	if !c.compatible() || len(c.diffs) != maxDifferences {
		t.Fatalf("%d differences kept", len(c.diffs))
	}
	c.keep(difference{typ: incompatibleOne(t)})
	if c.compatible() || len(c.diffs) != maxDifferences {
		t.Errorf("an incompatible difference past the cap was dropped")
	}
}

// compatibleOne and incompatibleOne are difference types of each class.
func compatibleOne(t *testing.T) string {
	for _, typ := range []string{MaxLengthIncreased, SchemaAdded} {
		if compatibleChange(typ) {
			return typ
		}
	}
	t.Fatal("no compatible difference type")
	return ""
}

func incompatibleOne(t *testing.T) string {
	for _, typ := range []string{TypeChanged, SchemaRemoved} {
		if !compatibleChange(typ) {
			return typ
		}
	}
	t.Fatal("no incompatible difference type")
	return ""
}
