package contract

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestJSONSchemaSubjects: format json loads through the formats table: field paths
// for consumers' reads, a $ref to another subject's file (a schema reference) listed
// as a dependency (change.WithImporters follows it), and a broken schema or a dangling
// $ref reported at its file:line:column.
func TestJSONSchemaSubjects(t *testing.T) {
	files := testutil.ExampleFiles(t)
	files["contracts/shop/customer/contract.yaml"] = []byte("subject: shop.customer-value\nformat: json\nschema: customer.json\ncompatibility: BACKWARD\nowner: orders\n")
	files["contracts/shop/customer/customer.json"] = []byte(`{
  "$defs": {"Customer": {"type": "object", "properties": {"id": {"type": "string"}, "tier": {"enum": ["gold", "silver"]}}}},
  "$ref": "#/$defs/Customer"
}
`)
	files["contracts/shop/order/contract.yaml"] = []byte("subject: shop.order-value\nformat: json\nschema: order.json\ncompatibility: BACKWARD\nowner: orders\n")
	files["contracts/shop/order/order.json"] = []byte(`{
  "type": "object",
  "properties": {
    "order_id": {"type": "string"},
    "customer": {"$ref": "shop/customer/customer.json#/$defs/Customer"}
  }
}
`)
	files["contracts/shop/order/consumers/reader.yaml"] = []byte("name: reader\nowner: analytics\nkind: service\nreads: [order_id, customer.tier]\n")
	tree, err := Load(MemSource(files))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tree.Diagnostics {
		if d.Code == CodeMissingDoc && d.Severity == Warning {
			continue // standard subjects without docs: not what this test is about
		}
		t.Errorf("unexpected diagnostic %s:%d:%d %s %s", d.File, d.Line, d.Column, d.Code, d.Message)
	}
	order := tree.Subject("shop.order-value")
	if order == nil {
		t.Fatal("shop.order-value not loaded")
	}
	if got := order.FieldPaths(); !slices.Equal(got, []string{"customer", "customer.id", "customer.tier", "order_id"}) {
		t.Errorf("field paths %v", got)
	}

	broken := maps.Clone(files)
	broken["contracts/shop/order/order.json"] = []byte("{\n  \"type\": \"object\",\n  \"properties\": {\"customer\": {\"$ref\": \"shop/customer/customer.json#/$defs/Nobody\"}}\n}\n")
	broken["contracts/shop/customer/customer.json"] = []byte("{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"strin\"}}}\n")
	delete(broken, "contracts/shop/order/consumers/reader.yaml")
	tree, err = Load(MemSource(broken))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range tree.Diagnostics {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", d.File, d.Line, d.Column, d.Code))
	}
	slices.Sort(got)
	want := []string{
		"contracts/shop/customer/customer.json:1:50 " + CodeSchemaInvalid,
		"contracts/shop/order/order.json:3:39 " + CodeSchemaInvalid,
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
}
