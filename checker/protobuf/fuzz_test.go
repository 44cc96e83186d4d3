package protobuf

import (
	"errors"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// FuzzParseCheck feeds pairs of schema texts through Parse, Check (every rule) and
// Diff: bad input must come back as *checker.InputError, never as a panic.
func FuzzParseCheck(f *testing.F) {
	for _, c := range loadConfluentCases(f, "diff-schema-examples.json") {
		f.Add(c.OriginalSchema, c.UpdateSchema)
	}
	for _, base := range baseFiles() {
		f.Add(base.render(), base.render())
	}
	f.Add("syntax = \"proto3\";\nmessage A { int32 a = ; }", "")
	f.Add("edition = \"2023\";\nmessage A {}", "syntax = \"proto2\";\nmessage A { required A a = 1; }")
	f.Add("syntax = \"proto3\";\nimport \"../x.proto\";\nmessage A {}", "syntax = \"proto3\";\nimport \"schema.proto\";\nmessage A {}")
	f.Fuzz(func(t *testing.T, prevText, nextText string) {
		parse := func(text string) *Schema {
			s, err := Parse("schema.proto", func(name string) ([]byte, error) {
				if name == "schema.proto" {
					return []byte(text), nil
				}
				if err := CheckImportPath(name); err != nil {
					return nil, err
				}
				return nil, errNotFound
			}, "")
			if err != nil {
				var ie *checker.InputError
				if !errors.As(err, &ie) {
					t.Fatalf("error %T is not an InputError: %v", err, err)
				}
				return nil
			}
			return s
		}
		prev, next := parse(prevText), parse(nextText)
		if prev == nil || next == nil {
			return
		}
		for _, rules := range []string{RulesWire, RulesWireJSON} {
			Check([]*Schema{prev, next}, next, checker.FullTransitive, rules)
		}
		Diff(prev, next)
		for _, p := range next.FieldPaths() {
			if _, _, ok := next.Pos(p); !ok {
				t.Errorf("no position for field path %q", p)
			}
		}
	})
}

var errNotFound = errors.New("not found: file does not exist")
