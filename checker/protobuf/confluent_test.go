package protobuf

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// confluentCase is one entry of Confluent's diff-schema-examples*.json.
type confluentCase struct {
	Description          string `json:"description"`
	OriginalSchema       string `json:"original_schema"`
	UpdateSchema         string `json:"update_schema"`
	OriginalDependencies []struct {
		Name       string `json:"name"`
		Dependency string `json:"dependency"`
	} `json:"original_dependencies"`
	UpdateDependencies []struct {
		Name       string `json:"name"`
		Dependency string `json:"dependency"`
	} `json:"update_dependencies"`
	Changes    []string `json:"changes"`
	Compatible bool     `json:"compatible"`
}

func loadConfluentCases(t testing.TB, name string) []confluentCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "confluent", name))
	if err != nil {
		t.Fatal(err)
	}
	var cases []confluentCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// mapResolver serves files from memory, then from testdata/confluent/refs.
func mapResolver(files map[string]string) Resolver {
	return func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		data, err := os.ReadFile(filepath.Join("testdata", "confluent", "refs", filepath.FromSlash(name)))
		if err != nil {
			return nil, fs.ErrNotExist
		}
		return data, nil
	}
}

func TestConfluentExamples(t *testing.T) {
	cases := loadConfluentCases(t, "diff-schema-examples.json")
	meta := loadConfluentCases(t, "diff-schema-examples-with-meta.json")
	for i := range meta {
		// The schema fields name files under refs/ by their classpath path.
		meta[i].OriginalSchema = "@" + filepath.Base(meta[i].OriginalSchema)
		meta[i].UpdateSchema = "@" + filepath.Base(meta[i].UpdateSchema)
	}
	cases = append(cases, meta...)
	if len(cases) != 55 {
		t.Fatalf("want 55 Confluent cases, got %d", len(cases))
	}
	for i, tc := range cases {
		t.Run(strings.ReplaceAll(tc.Description, " ", "_"), func(t *testing.T) {
			orig := parseConfluentSide(t, tc.OriginalSchema, tc.OriginalDependencies)
			upd := parseConfluentSide(t, tc.UpdateSchema, tc.UpdateDependencies)
			diffs := confluentDiff(orig.file, upd.file)
			got := make([]string, 0, len(diffs))
			compatible := true
			for _, d := range diffs {
				got = append(got, d.String())
				if !compatibleDifferences[d.Kind] {
					compatible = false
				}
			}
			want := append([]string(nil), tc.Changes...)
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("case %d %q: differences\n got: %q\nwant: %q", i, tc.Description, got, want)
			}
			if compatible != tc.Compatible {
				t.Errorf("case %d %q: compatible = %v, want %v", i, tc.Description, compatible, tc.Compatible)
			}
		})
	}
}

func parseConfluentSide(t *testing.T, schema string, deps []struct {
	Name       string `json:"name"`
	Dependency string `json:"dependency"`
}) *Schema {
	t.Helper()
	files := map[string]string{}
	for _, d := range deps {
		if d.Dependency != "" {
			files[d.Name] = d.Dependency
		}
	}
	main := "schema.proto"
	if strings.HasPrefix(schema, "@") {
		main = schema[1:]
	} else {
		files[main] = schema
	}
	s, err := Parse(main, mapResolver(files), "")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}

// TestConfluentExtra pins registry behaviour the corpus does not cover.
func TestConfluentExtra(t *testing.T) {
	tests := []struct {
		name       string
		orig, upd  string
		want       []string
		compatible bool
	}{
		{"whole oneof deleted", "message A {\n  oneof o { int32 a = 1; string b = 2; }\n  int32 c = 3;\n}",
			"message A {\n  int32 c = 3;\n}", []string{"ONEOF_REMOVED #/A/o"}, true},
		{"map value type", "message A {\n  map<string, int32> m = 1;\n}", "message A {\n  map<string, string> m = 1;\n}",
			[]string{"FIELD_SCALAR_KIND_CHANGED #/A/1"}, false},
		{"map value message renamed", "message A {\n  map<string, B> m = 1;\n}\nmessage B {}", "message A {\n  map<string, C> m = 1;\n}\nmessage C {}",
			[]string{"FIELD_NAMED_TYPE_CHANGED #/A/1", "MESSAGE_ADDED #/C", "MESSAGE_REMOVED #/B"}, false},
		{"map to repeated message", "message A {\n  map<string, int32> m = 1;\n}", "message A {\n  repeated B m = 1;\n}\nmessage B {}",
			[]string{"FIELD_KIND_CHANGED #/A/1", "MESSAGE_ADDED #/B"}, false},
		{"proto3 optional added", "message A {\n  int32 a = 1;\n}", "message A {\n  optional int32 a = 1;\n}", nil, true},
		{"recursive message", "message A {\n  A next = 1;\n  int32 v = 2;\n}", "message A {\n  A next = 1;\n  string v = 2;\n}",
			[]string{"FIELD_SCALAR_KIND_CHANGED #/A/2"}, false},
		{"enum to sint32", "message A {\n  E e = 1;\n}\nenum E { E0 = 0; }", "message A {\n  sint32 e = 1;\n}\nenum E { E0 = 0; }",
			[]string{"FIELD_SCALAR_KIND_CHANGED #/A/1"}, false},
		{"nested enum value removed", "message A {\n  enum E { E0 = 0; E1 = 1; }\n  E e = 1;\n}", "message A {\n  enum E { E0 = 0; }\n  E e = 1;\n}",
			[]string{"ENUM_CONST_REMOVED #/A/E/1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := mustParse(t, "syntax = \"proto3\";\n"+tt.orig)
			upd := mustParse(t, "syntax = \"proto3\";\n"+tt.upd)
			var got []string
			compatible := true
			for _, d := range confluentDiff(orig.file, upd.file) {
				got = append(got, d.String())
				compatible = compatible && compatibleDifferences[d.Kind]
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || compatible != tt.compatible {
				t.Errorf("got %q compatible=%v, want %q compatible=%v", got, compatible, tt.want, tt.compatible)
			}
		})
	}
}
