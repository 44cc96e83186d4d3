package registry

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestJSONSchemaReferences: a JSON Schema version that refers to another subject's
// file is served with schemaType JSON and a reference of that name, pinned to the
// referenced subject's version when it appeared, as the registry's own references.
func TestJSONSchemaReferences(t *testing.T) {
	r := testutil.ExampleRepo(t)
	r.Write("contracts/shop/customer/contract.yaml", "subject: shop.customer-value\nformat: json\nschema: customer.json\ncompatibility: BACKWARD\nowner: orders\n")
	r.Write("contracts/shop/customer/customer.json", `{"$defs": {"Customer": {"type": "object", "properties": {"id": {"type": "string"}}}}}`+"\n")
	r.Write("contracts/shop/order/contract.yaml", "subject: shop.order-value\nformat: json\nschema: order.json\ncompatibility: BACKWARD\nowner: orders\n")
	r.Write("contracts/shop/order/order.json", `{"type": "object", "properties": {"customer": {"$ref": "shop/customer/customer.json#/$defs/Customer"}}}`+"\n")
	r.Commit("two JSON subjects, one referring to the other")
	srv, err := NewServer(Source{Repo: r.Git})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, _ := NewClient(ts.URL)
	s, err := c.GetVersion(context.Background(), "shop.order-value", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := Reference{Name: "shop/customer/customer.json", Subject: "shop.customer-value", Version: 1}
	if s.SchemaType != JSON || len(s.References) != 1 || s.References[0] != want {
		t.Errorf("type %q references %+v, want JSON with %+v", s.SchemaType, s.References, want)
	}
}
