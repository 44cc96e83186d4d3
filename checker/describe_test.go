package checker_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/avro"
	"github.com/contractbot/contractbot/checker/jsonschema"
	"github.com/contractbot/contractbot/checker/protobuf"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// TestDescribeFields pins the fields table of an Avro, a Protobuf and a JSON Schema of the
// example tree (testdata/describe-*.json), and checks that every path described is a
// field path of the schema, in the order the schema declares them.
func TestDescribeFields(t *testing.T) {
	root := filepath.Join("..", "contracts")
	for _, c := range []struct{ name, file string }{
		{"avro", "orders/order-created/order_created.avsc"},
		{"protobuf", "payments/payment-authorized/payment_authorized.proto"},
		{"jsonschema", "engagement/app-event/app_event.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(root, c.file))
			if err != nil {
				t.Fatal(err)
			}
			src := checker.ParseInput{Input: checker.Input{Path: c.file, Data: text}, Name: c.file, Resolve: func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(root, p)) }}
			var s checker.Schema
			switch c.name {
			case "avro":
				s, err = avro.Engine{}.Parse(src)
			case "protobuf":
				s, err = protobuf.Engine{}.Parse(src)
			default:
				s, err = jsonschema.Engine{}.Parse(src)
			}
			if err != nil {
				t.Fatal(err)
			}
			fields := s.(checker.FieldDescriber).DescribeFields()
			paths := map[string]bool{}
			for _, p := range s.FieldPaths() {
				paths[p] = true
			}
			if len(fields) != len(paths) {
				t.Errorf("%d fields described, %d paths", len(fields), len(paths))
			}
			for _, f := range fields {
				if !paths[f.Path] || f.Type == "" || f.Depth != strings.Count(f.Path, ".") {
					t.Errorf("field %+v: not a path of the schema, or no type, or the wrong depth", f)
				}
			}
			got, _ := json.MarshalIndent(fields, "", "  ")
			golden := filepath.Join("testdata", "describe-"+c.name+".json")
			if *update {
				os.MkdirAll("testdata", 0o755)
				os.WriteFile(golden, got, 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil || string(want) != string(got) {
				t.Errorf("%s differs (go test ./checker -update rewrites it):\n%s", golden, got)
			}
		})
	}
}
