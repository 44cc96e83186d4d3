package protobuf

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// What Confluent's ProtobufSchema.canonicalString prints for a file with every kind
// of element: comments gone, messages before enums, a message's parts in the
// registry's order, default and json_name after other options.
func TestCanonicalMatchesConfluent(t *testing.T) {
	in := `// leading comment
syntax = "proto2";
package shop.v1; // trailing
import public "b.proto";
import "a.proto";
option java_package = "com.shop";
option (my.file_opt) = { name: "x" tags: "a" tags: "b" nested { n: 1 } };

enum Top { option allow_alias = true; A = 0; B = 1 [deprecated = true]; C = 1; }

/* block comment */
message Order {
  enum Kind { K0 = 0; }
  message Line { optional int32 qty = 1; }
  optional string id = 1 [default = "a\"b", json_name = "ID", deprecated = true];
  repeated Line lines = 2;
  map<string,  .shop.v1.Line> by_sku = 3;
  oneof pay { string card = 4; int64 cash = 5; }
  reserved 8, 10 to 12, 20 to max;
  reserved "old";
  option deprecated = true;
  extensions 100 to 199;
  optional Kind kind = 6 [default = K0];
}

service Shop {
  rpc Place (Order) returns (stream Order);
  rpc Get (Order) returns (Order) { option idempotency_level = NO_SIDE_EFFECTS; }
}
`
	want := `syntax = "proto2";
package shop.v1;

import "a.proto";
import public "b.proto";

option java_package = "com.shop";
option (my.file_opt) = {
  name: "x",
  tags: [
    "a",
    "b"
  ],
  nested: {
    n: 1
  }
};

message Order {
  reserved 8, 10 to 12, 20 to 536870911;
  reserved "old";

  option deprecated = true;

  optional string id = 1 [
    deprecated = true,
    default = "a\"b",
    json_name = "ID"
  ];
  repeated Line lines = 2;
  map<string, .shop.v1.Line> by_sku = 3;
  optional Kind kind = 6 [default = K0];

  oneof pay {
    string card = 4;
    int64 cash = 5;
  }

  extensions 100 to 199;

  message Line {
    optional int32 qty = 1;
  }
  enum Kind {
    K0 = 0;
  }
}
enum Top {
  option allow_alias = true;
  A = 0;
  B = 1 [deprecated = true];
  C = 1;
}

service Shop {
  rpc Place (Order) returns (stream Order);
  rpc Get (Order) returns (Order) {
    option idempotency_level = NO_SIDE_EFFECTS;
  };
}
`
	got, err := Engine{}.Canonical([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("canonical form:\n%s\nwant:\n%s", got, want)
	}
}

func TestCanonicalRefusesWhatDoesNotParse(t *testing.T) {
	if got, err := (Engine{}).Canonical([]byte("syntax = \"proto3\";\nmessage A { int32 x = ; }\n")); err == nil {
		t.Errorf("Canonical of a broken file = %q, want an error", got)
	}
}

var commentRE = regexp.MustCompile(`(?m)//.*$`)

// The example tree's .proto files: golden canonical forms, unchanged by dropping
// comments and re-indenting, and canonical forms are fixed points.
func TestCanonicalOfExampleSchemas(t *testing.T) {
	files, _ := filepath.Glob("../../contracts/*/*/*.proto")
	if len(files) == 0 {
		t.Fatal("no example schemas found")
	}
	var golden strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Engine{}.Canonical(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		golden.WriteString("== " + filepath.Base(f) + "\n" + string(got))
		relaid := commentRE.ReplaceAllString(string(data), "")
		relaid = strings.ReplaceAll(relaid, "\n  ", "\n\t\t")
		relaid = strings.ReplaceAll(relaid, ";\n", " ;\r\n\n")
		again, err := Engine{}.Canonical([]byte(relaid))
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(got) {
			t.Errorf("%s: a layout change changed the canonical form:\n%s\n%s", f, got, again)
		}
		if fixed, err := (Engine{}).Canonical(got); err != nil || string(fixed) != string(got) {
			t.Errorf("%s: the canonical form of the canonical form differs (%v):\n%s", f, err, fixed)
		}
	}
	checkCanonicalGolden(t, "testdata/canonical/examples.golden", golden.String())
}

func checkCanonicalGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}
