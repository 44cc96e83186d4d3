package avro

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// TestMain makes every Parse of the package's tests (tables, fixtures, fuzz seeds)
// compare the schema buildHamba built with hamba/avro's own parse of the text.
func TestMain(m *testing.M) {
	checkBuild = func(data []byte, built avro.Schema) {
		if err := sameAsHamba(data, built); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// sameAsHamba reports how built differs from hamba's parse of data.
func sameAsHamba(data []byte, built avro.Schema) error {
	want, err := parseHamba(data)
	if err != nil {
		return fmt.Errorf("buildHamba accepted a schema hamba refuses (%w):\n%s", err, data)
	}
	if !reflect.DeepEqual(built, want) {
		return fmt.Errorf("buildHamba and hamba disagree:\nbuilt %s\nhamba %s\ntext %s", built, want, data)
	}
	return nil
}

// TestBuildMatchesHamba parses every .avsc file of the repository's test data and
// schemas that take hamba's less common paths (aliases of enums and fixed types,
// logical types, properties, error records, namespaces), then a few that buildHamba
// leaves to hamba; Parse must give the same schema or the same error either way.
func TestBuildMatchesHamba(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".avsc") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d .avsc files under the repository; expected the test data", len(files))
	}
	built := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if compareBuild(t, f, data) {
			built++
		}
	}
	for i, s := range buildCases {
		if compareBuild(t, fmt.Sprintf("case %d", i), []byte(s)) {
			built++
		}
	}
	if built < len(buildCases) {
		t.Errorf("buildHamba built only %d of %d schemas; the rest went to hamba's parser", built, len(files)+len(buildCases))
	}
	for i, s := range slowCases {
		text, err := parseJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := buildHamba(text); !errors.Is(err, errSlowPath) {
			t.Errorf("slow case %d: buildHamba gave %v, want errSlowPath", i, err)
		}
		// Parse's own checks may refuse the text first; what it accepts is hamba's.
		if got, err := Parse(checker.Input{Path: "x.avsc", Data: []byte(s)}); err == nil {
			if err := sameAsHamba([]byte(s), got.root); err != nil {
				t.Errorf("slow case %d: %v", i, err)
			}
		}
	}
}

// compareBuild checks one text and reports whether buildHamba built it.
func compareBuild(t *testing.T, name string, data []byte) bool {
	t.Helper()
	text, err := parseJSON(data)
	if err != nil {
		return false
	}
	built, err := buildHamba(text)
	if err != nil {
		if !errors.Is(err, errSlowPath) {
			t.Errorf("%s: buildHamba: %v", name, err)
		}
		return false
	}
	if err := sameAsHamba(data, built); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	return true
}

var buildCases = []string{
	`"string"`,
	`["null", "int", {"type": "string", "logicalType": "uuid"}]`,
	`{"type": "record", "name": "A", "namespace": "x.y", "doc": "d", "aliases": ["B"], "custom": {"k": [1, 2.5, true, null, "s"]},
	  "fields": [
	    {"name": "e", "type": {"type": "enum", "name": "E", "aliases": ["F"], "symbols": ["P", "Q"], "default": "Q", "doc": "e"}, "default": "P"},
	    {"name": "e2", "type": "F"},
	    {"name": "f", "type": {"type": "fixed", "name": "G", "size": 12, "logicalType": "duration", "aliases": ["H"]}},
	    {"name": "f2", "type": ["null", "H"], "default": null, "order": "descending"},
	    {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2, "x": 1}},
	    {"name": "fd", "type": {"type": "fixed", "name": "D", "namespace": "other", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 3}},
	    {"name": "bad_decimal", "type": {"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 5}},
	    {"name": "unknown_logical", "type": {"type": "int", "logicalType": "celsius"}},
	    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}, "default": 0},
	    {"name": "m", "type": {"type": "map", "values": {"type": "array", "items": "x.y.A"}, "p": "q"}, "default": {}},
	    {"name": "self", "type": ["null", "A"], "default": null, "aliases": ["me"], "doc": "recursive", "namespace": "kept.as.prop"},
	    {"name": "n", "type": {"type": "null", "note": 1}},
	    {"name": "u", "type": {"type": ["int", "string"]}, "default": 3},
	    {"name": "r", "type": {"type": "record", "name": "R", "fields": [{"name": "z", "type": "double", "default": 1e3}]}, "default": {"z": 2}},
	    {"name": "r2", "type": "R"},
	    {"name": "err", "type": {"type": "error", "name": "Oops", "fields": []}}
	  ]}`,
}

// slowCases are texts buildHamba leaves to hamba: errors, and members hamba's
// mapstructure decoding treats in its own way.
var slowCases = []string{
	`{"type": "record", "Name": "A", "fields": []}`,
	`{"type": "record", "name": "A", "doc": 5, "fields": []}`,
	`{"type": "record", "name": "A", "fields": [{"name": "a", "type": "int"}, {"name": "a", "type": "int"}]}`,
	`{"type": "record", "name": "A", "fields": [{"name": "a", "type": "Nope"}]}`,
	`{"type": "record", "name": "A", "fields": [{"name": "a", "type": "int", "default": "x"}]}`,
	`{"type": "record", "name": "A", "fields": [{"name": "a", "type": {"type": "bytes", "logicalType": "decimal", "precision": "4"}}]}`,
	`{"type": "record", "name": "A", "fields": [{"name": "a", "type": "int", "order": "up"}]}`,
	`["int", "int"]`,
}
