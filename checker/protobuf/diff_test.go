package protobuf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

func mustParse(t testing.TB, text string) *Schema {
	t.Helper()
	s, err := Parse("schema.proto", mapResolver(map[string]string{"schema.proto": text}), "")
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	return s
}

func renderChanges(cs []checker.Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %s", c.Kind, c.Effect, c.Path)
		if c.OldPath != "" {
			fmt.Fprintf(&b, " (from %s)", c.OldPath)
		}
		fmt.Fprintf(&b, " %d:%d\n", c.Line, c.Column)
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	const old = `syntax = "proto3";
package shop;
message Order {
  string order_id = 1;
  int32 amount = 2;
  repeated Item items = 3;
  Status status = 4;
  string note = 5;
  map<string, Item> by_sku = 6;
  string email = 7;
  // the buyer
  int64 user_id = 8;
  string gone = 9;
  uint32 code = 10;
}
message Item {
  string sku = 1;
  int32 qty = 2;
  Order parent = 3;
}
enum Status {
  STATUS_UNSPECIFIED = 0;
  OPEN = 1;
  PAID = 2;
}
`
	const next = `syntax = "proto3";
package shop;
message Order {
  string order_id = 1;
  int64 amount = 2;
  repeated Item items = 3;
  Status status = 4;
  string remark = 5;
  map<string, Item> by_sku = 6;
  oneof contact {
    string email = 7;
  }
  // the buyer's account
  int64 user_id = 8;
  sint32 code = 10;
  bool flag = 11;
}
message Item {
  string sku = 20;
  bytes qty = 2;
  Order parent = 3;
}
enum Status {
  STATUS_UNSPECIFIED = 0;
  OPENED = 1;
  REFUNDED = 3;
}
`
	got := renderChanges(Diff(mustParse(t, old), mustParse(t, next)))
	want := `type_changed breaking by_sku.qty 20:3
renumbered breaking by_sku.sku (from by_sku.sku) 19:3
type_changed breaking code 15:3
oneof_changed meaning email 11:5
added harmless flag 16:3
removed breaking gone 13:3
type_changed breaking items.qty 20:3
renumbered breaking items.sku (from items.sku) 19:3
promoted meaning amount 5:3
renamed breaking remark (from note) 8:3
enum_symbols_added meaning status 7:3
enum_symbols_removed breaking status 7:3
enum_value_renamed meaning status 7:3
doc_changed harmless user_id 14:3
`
	if normalize(got) != normalize(want) {
		t.Errorf("Diff:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// normalize sorts lines so the test pins content, not the order of equal paths.
func normalize(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	sortStrings(lines)
	return strings.Join(lines, "\n")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
