package lineage

import (
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
)

const consumerFile = `# yaml-language-server: $schema=../../../../docs/schemas/consumer.schema.json
name: dwd-order-detail
owner: data-warehouse
kind: flink-job   # reviewed by the platform team
reads:
  - order_id
  - amount
# lineage below is checked by CI
produces:
  dw.order-detail-value:
    amount_cents: [amount]   # cents already
    order_id: [order_id]
description: kept last on purpose
`

func declared() *Declared {
	return &Declared{
		Subject:    "orders.order-created-value",
		File:       "contracts/orders/order-created/consumers/dwd-order-detail.yaml",
		Existing:   &contract.Consumer{Name: "dwd-order-detail", Reads: []string{"order_id", "amount"}, Produces: map[string]map[string][]string{"dw.order-detail-value": {"amount_cents": {"amount"}, "order_id": {"order_id"}}}},
		Read:       true,
		Reads:      []string{"amount", "order_id"},
		Produces:   map[string]map[string][]string{"dw.order-detail-value": {"amount_cents": {"amount"}, "order_id": {"order_id"}}},
		FieldOrder: map[string][]string{"dw.order-detail-value": {"order_id", "amount_cents"}},
	}
}

func TestRenderUnchangedIsByteForByte(t *testing.T) {
	got, err := Render([]byte(consumerFile), declared(), "x", "flink-job")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != consumerFile {
		t.Errorf("a file that agrees with the SQL changed:\n%s", got)
	}
	if d := Diff(declared()); len(d) != 0 {
		t.Errorf("Diff of an agreeing file: %v", d)
	}
}

func TestRenderKeepsStyleOrderAndComments(t *testing.T) {
	d := declared()
	d.Reads = []string{"amount", "currency", "order_id"}
	d.Produces["dw.order-detail-value"]["currency"] = []string{"currency"}
	d.FieldOrder["dw.order-detail-value"] = append(d.FieldOrder["dw.order-detail-value"], "currency")
	got, err := Render([]byte(consumerFile), d, "x", "flink-job")
	if err != nil {
		t.Fatal(err)
	}
	want := `# yaml-language-server: $schema=../../../../docs/schemas/consumer.schema.json
name: dwd-order-detail
owner: data-warehouse
kind: flink-job   # reviewed by the platform team
reads:
  - amount
  - currency
  - order_id
# lineage below is checked by CI
produces:
  dw.order-detail-value:
    amount_cents: [amount]
    order_id: [order_id]
    currency: [currency]
description: kept last on purpose
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	diffs := strings.Join(Diff(d), "\n")
	for _, s := range []string{"the SQL also reads currency", "dw.order-detail-value.currency is made from [currency]"} {
		if !strings.Contains(diffs, s) {
			t.Errorf("Diff lacks %q:\n%s", s, diffs)
		}
	}
}

func TestDiffSaysWhatTheFileHasThatTheSQLDoesNot(t *testing.T) {
	d := declared()
	d.Reads = []string{"order_id"}
	delete(d.Produces["dw.order-detail-value"], "amount_cents")
	diffs := strings.Join(Diff(d), "\n")
	for _, s := range []string{"declares reading amount, which the SQL does not read", "maps dw.order-detail-value.amount_cents from [amount]; the SQL does not make it"} {
		if !strings.Contains(diffs, s) {
			t.Errorf("Diff lacks %q:\n%s", s, diffs)
		}
	}
	d.Read = false
	if got := Diff(d); len(got) != 1 || !strings.Contains(got[0], "does not read its topic") {
		t.Errorf("a file for a subject the SQL does not read: %v", got)
	}
}
