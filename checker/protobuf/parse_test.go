package protobuf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// inputErrors unwraps the *checker.InputError values of a Parse error.
func inputErrorList(t *testing.T, err error) []*checker.InputError {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got none")
	}
	var out []*checker.InputError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			var ie *checker.InputError
			if !errors.As(e, &ie) {
				t.Fatalf("error %v is not a *checker.InputError", e)
			}
			out = append(out, ie)
		}
		return out
	}
	var ie *checker.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %T %v is not a *checker.InputError", err, err)
	}
	return []*checker.InputError{ie}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // file:line:col of each error, and a word of its message
	}{
		{"syntax error", map[string]string{"schema.proto": "syntax = \"proto3\";\nmessage A {\n  int32 a = ;\n}\n"},
			[]string{"schema.proto:3:13 syntax error"}},
		{"two errors", map[string]string{"schema.proto": "syntax = \"proto3\";\nmessage A {\n  Unknown a = 1;\n  Missing b = 2;\n}\n"},
			[]string{"schema.proto:3:3 Unknown", "schema.proto:4:3 Missing"}},
		{"unresolved import", map[string]string{"schema.proto": "syntax = \"proto3\";\nimport \"other/missing.proto\";\nmessage A {}\n"},
			[]string{"schema.proto:2:8 missing.proto"}},
		{"import outside the tree", map[string]string{"schema.proto": "syntax = \"proto3\";\nimport \"../secret.proto\";\nmessage A {}\n"},
			[]string{"schema.proto:2:8 outside"}},
		{"absolute import", map[string]string{"schema.proto": "syntax = \"proto3\";\nimport \"/etc/passwd\";\nmessage A {}\n"},
			[]string{"schema.proto:2:8 relative"}},
		{"import cycle", map[string]string{
			"schema.proto": "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A {}\n",
			"b.proto":      "syntax = \"proto3\";\nimport \"schema.proto\";\nmessage B {}\n"},
			[]string{"b.proto:2:8 cycle"}},
		{"editions", map[string]string{"schema.proto": "edition = \"2023\";\nmessage A {\n  int32 a = 1;\n}\n"},
			[]string{"schema.proto:1:1 editions"}},
		{"no message", map[string]string{"schema.proto": "syntax = \"proto3\";\nenum E { E0 = 0; }\n"},
			[]string{"schema.proto:1:1 no message"}},
		{"duplicate field number", map[string]string{"schema.proto": "syntax = \"proto3\";\nmessage A {\n  int32 a = 1;\n  int32 b = 1;\n}\n"},
			[]string{"schema.proto:4:13 same tag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := tt.files
			resolve := func(name string) ([]byte, error) {
				if s, ok := files[name]; ok {
					return []byte(s), nil
				}
				return nil, fs.ErrNotExist
			}
			_, err := Parse("schema.proto", resolve, "")
			errs := inputErrorList(t, err)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors (%v), want %d", len(errs), err, len(tt.want))
			}
			for i, w := range tt.want {
				loc, word, _ := strings.Cut(w, " ")
				got := errs[i]
				if gotLoc := got.File + ":" + itoa(got.Line) + ":" + itoa(got.Column); gotLoc != loc {
					t.Errorf("error %d at %s, want %s (%v)", i, gotLoc, loc, got)
				}
				if !strings.Contains(got.Message, word) {
					t.Errorf("error %d %q does not mention %q", i, got.Message, word)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestParseTooLarge(t *testing.T) {
	big := "syntax = \"proto3\";\nmessage A {}\n//" + strings.Repeat("x", MaxSchemaBytes)
	_, err := Parse("schema.proto", mapResolver(map[string]string{"schema.proto": big}), "")
	errs := inputErrorList(t, err)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "MaxSchemaBytes") {
		t.Fatalf("want one size error, got %v", err)
	}
	// An import over the limit is reported at the import statement.
	_, err = Parse("schema.proto", mapResolver(map[string]string{
		"schema.proto": "syntax = \"proto3\";\nimport \"big.proto\";\nmessage A {}\n",
		"big.proto":    big,
	}), "")
	errs = inputErrorList(t, err)
	if len(errs) != 1 || errs[0].Line != 2 || errs[0].Column != 8 {
		t.Fatalf("want the size error at 2:8, got %v", err)
	}
}

func TestSchemaAccessors(t *testing.T) {
	files := map[string]string{
		"shop/order.proto": `syntax = "proto3";
package shop;
import "shop/common.proto";
import "google/protobuf/timestamp.proto";
message Order {
  string order_id = 1;
  repeated Item items = 2;
  map<string, Item> by_sku = 3;
  oneof contact {
    string email = 4;
    Address address = 5;
  }
  google.protobuf.Timestamp at = 6;
  Order parent = 7;
}
message Item {
  string sku = 1;
  Order order = 2;
}
`,
		"shop/common.proto": "syntax = \"proto3\";\npackage shop;\nmessage Address { string city = 1; }\n",
	}
	s, err := Parse("shop/order.proto", mapResolver(files), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"address", "address.city", "at", "at.nanos", "at.seconds", "by_sku", "by_sku.order", "by_sku.sku",
		"email", "items", "items.order", "items.sku", "order_id", "parent"}
	if got := s.FieldPaths(); !reflect.DeepEqual(got, want) {
		t.Errorf("FieldPaths:\n got %q\nwant %q", got, want)
	}
	if got := s.Imports(); !reflect.DeepEqual(got, []string{"shop/common.proto"}) {
		t.Errorf("Imports = %q", got)
	}
	for path, want := range map[string][2]int{"order_id": {6, 3}, "items.sku": {17, 3}, "address": {11, 5}, "address.city": {3, 19}} {
		l, c, ok := s.Pos(path)
		if !ok || l != want[0] || c != want[1] {
			t.Errorf("Pos(%q) = %d:%d %v, want %d:%d", path, l, c, ok, want[0], want[1])
		}
	}
	if _, _, ok := s.Pos("nope.x"); ok {
		t.Error("Pos of an unknown path reported ok")
	}
	for _, name := range []string{"Item", "shop.Item", ".shop.Item"} {
		r, err := Parse("shop/order.proto", mapResolver(files), name)
		if err != nil || r.Record().Name() != "Item" {
			t.Errorf("Parse(message %q) = %v, %v", name, r, err)
		}
	}
	if _, err := Parse("shop/order.proto", mapResolver(files), "Nope"); err == nil || !strings.Contains(err.Error(), "shop.Order") {
		t.Errorf("unknown message: %v", err)
	}
}

func TestCompat(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("common/address.proto", "syntax = \"proto3\";\npackage common;\nmessage Address { string city = 1; }\n")
	v1 := write("orders/v1/order.proto", "syntax = \"proto3\";\nimport \"common/address.proto\";\nmessage Order {\n  string id = 1;\n  int32 amount = 2;\n  common.Address ship_to = 3;\n}\n")
	v2 := write("orders/v2/order.proto", "syntax = \"proto3\";\nimport \"common/address.proto\";\nimport \"local.proto\";\nmessage Order {\n  string id = 1;\n  string amount = 2;\n  common.Address ship_to = 3;\n  Local l = 4;\n}\n")
	write("orders/v2/local.proto", "syntax = \"proto3\";\nmessage Local {}\n")

	res, err := Compat([]checker.Input{{Path: v1}}, checker.Input{Path: v2}, checker.Options{Level: checker.Full, Rules: "wire", ImportPaths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Compatible {
		t.Fatal("string amount passed FULL")
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+" "+f.Path+" "+filepath.Base(f.File)+":"+itoa(f.Line)+":"+itoa(f.Column)+" "+string(f.Direction))
	}
	want := []string{
		"FIELD_SCALAR_KIND_CHANGED #/Order/2 order.proto:6:3 backward",
		"FIELD_WIRE_COMPATIBLE_TYPE #/Order/2 order.proto:6:3 backward",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
	if res.Findings[0].File != v2 {
		t.Errorf("finding file %q, want the input path %q", res.Findings[0].File, v2)
	}

	bad := write("orders/v3/order.proto", "syntax = \"proto3\";\nimport \"../v1/order.proto\";\nmessage Order {}\n")
	_, err = Compat([]checker.Input{{Path: v1}}, checker.Input{Path: bad}, checker.Options{Level: checker.Backward, ImportPaths: []string{dir}})
	var ie *checker.InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.File != bad {
		t.Errorf("escaping import: %v", err)
	}
	if _, err := Compat(nil, checker.Input{Path: v1}, checker.Options{Rules: "BOGUS"}); err == nil {
		t.Error("unknown rules accepted")
	}
}

// TestOneErrorPerCycle: the two sides of one import cycle, as the compiler reports it
// when both files reach the closing import at once, are one error; another cycle and
// other errors stay.
func TestOneErrorPerCycle(t *testing.T) {
	errs := []error{
		&checker.InputError{Message: `cycle found in imports: "b.proto" -> "schema.proto" -> "b.proto"`},
		&checker.InputError{Message: `cycle found in imports: "c.proto" -> "d.proto" -> "c.proto"`},
		&checker.InputError{Message: `cycle found in imports: "schema.proto" -> "b.proto" -> "schema.proto"`},
		&checker.InputError{Message: "undefined: Unknown"},
	}
	got := oneErrorPerCycle(errs)
	if len(got) != 3 || !strings.Contains(got[0].Error(), `"b.proto" -> "schema.proto"`) || !strings.Contains(got[1].Error(), "c.proto") {
		t.Errorf("%v", got)
	}
}
