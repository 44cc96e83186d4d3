package jsonschema

import (
	"errors"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// FuzzParseCheck feeds two texts through Parse, Check at FULL_TRANSITIVE (both
// directions), Diff, FieldPaths and Pos. Bad input must come back as an InputError with
// a position; nothing may panic or hang. The seeds (the registry's corpus and the
// cases above) run in every `go test`.
func FuzzParseCheck(f *testing.F) {
	for _, file := range []string{"diff-schema-examples.json", "diff-combined-schema-examples.json"} {
		for i, ex := range loadCorpus(f, file) {
			if i%4 == 0 {
				f.Add([]byte(ex.Original), []byte(ex.Update))
			}
		}
	}
	f.Add([]byte(v1), []byte(v1))
	f.Add([]byte(`{"$defs": {"n": {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}`), []byte(`{"$ref": "#"}`))
	f.Add([]byte(`{"type": ["string", "null"], "enum": ["a", null]}`), []byte(`{"anyOf": [{"type": "string"}, {"not": {"const": 1}}]}`))
	f.Add([]byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [true], "items": {"$ref": "#/$defs/x"}, "$defs": {"x": false}}`), []byte(`[[[[`))
	f.Add([]byte(`{"patternProperties": {"^a(": {}}, "additionalProperties": false}`), []byte(`{"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}`))

	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, errOld := Parse(checker.ParseInput{Input: checker.Input{Path: "old.json", Data: a}})
		next, errNew := Parse(checker.ParseInput{Input: checker.Input{Path: "new.json", Data: b}})
		for _, err := range []error{errOld, errNew} {
			if err == nil {
				continue
			}
			var ie *checker.InputError
			if !errors.As(err, &ie) || ie.Line < 1 || ie.Column < 1 || ie.Message == "" {
				t.Fatalf("bad input error without a position: %#v", err)
			}
		}
		if errOld != nil || errNew != nil {
			return
		}
		res := Check([]*Schema{old, next}, next, checker.FullTransitive)
		for _, fd := range res.Findings {
			if fd.Line < 1 || fd.Column < 1 || fd.Rule == "" || fd.Message == "" || fd.Against < 1 {
				t.Fatalf("finding without place or text: %+v", fd)
			}
		}
		if res.Compatible != (len(res.Findings) == 0) {
			t.Fatalf("Compatible=%v with %d findings", res.Compatible, len(res.Findings))
		}
		for _, c := range Diff(old, next) {
			if c.Kind == "" || c.Effect == "" || c.Line < 1 {
				t.Fatalf("change without kind, effect or place: %+v", c)
			}
		}
		for _, s := range []*Schema{old, next} {
			for _, p := range s.FieldPaths() {
				if _, _, ok := s.Pos(p); !ok {
					t.Fatalf("no position for field path %q", p)
				}
			}
		}
	})
}
