package impact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

func exampleTree(t *testing.T) *contract.Tree {
	t.Helper()
	tree, err := contract.Load(contract.MemSource(testutil.ExampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Diagnostics) > 0 {
		t.Fatalf("example tree: %v", tree.Diagnostics)
	}
	return tree
}

// summary renders the result compactly: one line a consumer.
func summary(as []Affected) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "%s/%s direct=%v hops=%d %s:", a.Subject, a.Name, a.Direct, a.Hops, a.Effect)
		for _, h := range a.Hits {
			fmt.Fprintf(&b, " [%s via %s]", h.Field, ChainString(h.Chain))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestRemovedFieldReachesThreeHops(t *testing.T) {
	tree := exampleTree(t)
	got := summary(Analyze(tree, "orders.order-created-value", []checker.Change{
		{Kind: checker.FieldRemoved, Path: "amount", Effect: checker.Breaks},
	}))
	want := `orders.order-created-value/dwd-order-detail direct=true hops=0 breaking: [amount via orders.order-created-value.amount]
orders.order-created-value/ods-order-archive direct=true hops=0 breaking: [amount via orders.order-created-value.amount]
dw.order-detail-value/clickhouse-order-detail direct=false hops=1 breaking: [amount_cents via orders.order-created-value.amount -> dwd-order-detail -> dw.order-detail-value.amount_cents]
dw.order-detail-value/dws-gmv-1min direct=false hops=1 breaking: [amount_cents via orders.order-created-value.amount -> dwd-order-detail -> dw.order-detail-value.amount_cents]
dws.gmv-1min-value/doris-gmv-1min direct=false hops=2 breaking: [gmv_cents via orders.order-created-value.amount -> dwd-order-detail -> dw.order-detail-value.amount_cents -> dws-gmv-1min -> dws.gmv-1min-value.gmv_cents]
dws.gmv-1min-value/gmv-dashboard direct=false hops=2 breaking: [gmv_cents via orders.order-created-value.amount -> dwd-order-detail -> dw.order-detail-value.amount_cents -> dws-gmv-1min -> dws.gmv-1min-value.gmv_cents]
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestNestedPathsAndWildcards(t *testing.T) {
	tree := exampleTree(t)
	// A change under product_info reaches readers of the nested field and "*" readers,
	// and through the lineage the derived price column.
	as := Analyze(tree, "orders.order-created-value", []checker.Change{
		{Kind: checker.TypeChanged, Path: "product_info.detail.price", Effect: checker.Breaks},
	})
	names := map[string]bool{}
	for _, a := range as {
		names[a.Name] = true
	}
	for _, want := range []string{"dwd-order-detail", "ods-order-archive", "clickhouse-order-detail"} {
		if !names[want] {
			t.Errorf("%s not reached:\n%s", want, summary(as))
		}
	}
	if names["gmv-dashboard"] {
		t.Errorf("gmv-dashboard does not derive from the price:\n%s", summary(as))
	}
	// A parent removed reaches readers of its children.
	as = Analyze(tree, "orders.order-created-value", []checker.Change{
		{Kind: checker.FieldRemoved, Path: "product_info", Effect: checker.Breaks},
	})
	if len(as) == 0 || as[0].Name != "dwd-order-detail" {
		t.Errorf("removing product_info must reach dwd-order-detail:\n%s", summary(as))
	}
}

func TestRenameBreaksReadersOfTheOldName(t *testing.T) {
	tree := exampleTree(t)
	as := Analyze(tree, "orders.order-created-value", []checker.Change{
		{Kind: checker.FieldRenamed, Path: "buyer_id", OldPath: "user_id", Effect: checker.Breaks},
	})
	if len(as) == 0 || as[0].Hits[0].Field != "user_id" {
		t.Fatalf("rename: %s", summary(as))
	}
}

func TestHarmlessReachesNobody(t *testing.T) {
	tree := exampleTree(t)
	if as := Analyze(tree, "orders.order-created-value", []checker.Change{
		{Kind: checker.FieldAdded, Path: "note", Effect: checker.Harmless},
		{Kind: checker.DocChanged, Path: "amount", Effect: checker.Harmless},
	}); len(as) != 0 {
		t.Errorf("harmless changes reached:\n%s", summary(as))
	}
}

func TestLineageCycleTerminates(t *testing.T) {
	src := contract.MemSource{
		"contracts/teams.yaml":            []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/x/contract.yaml":     []byte("subject: x\nformat: avro\nschema: s.avsc\ncompatibility: NONE\nowner: a\n"),
		"contracts/d/x/s.avsc":            []byte(`{"type":"record","name":"X","fields":[{"name":"f","type":"int"}]}`),
		"contracts/d/x/consumers/xy.yaml": []byte("name: xy\nowner: a\nkind: flink-job\nreads: [f]\nproduces: {y: {f: [f]}}\n"),
		"contracts/d/y/contract.yaml":     []byte("subject: y\nformat: avro\nschema: s.avsc\ncompatibility: NONE\nowner: a\n"),
		"contracts/d/y/s.avsc":            []byte(`{"type":"record","name":"Y","fields":[{"name":"f","type":"int"}]}`),
		"contracts/d/y/consumers/yx.yaml": []byte("name: yx\nowner: a\nkind: flink-job\nreads: [f]\nproduces: {x: {f: [f]}}\n"),
	}
	tree, err := contract.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	as := Analyze(tree, "x", []checker.Change{{Kind: checker.FieldRemoved, Path: "f", Effect: checker.Breaks}})
	if len(as) != 2 || !as[0].Direct || as[0].Name != "xy" || as[1].Name != "yx" {
		t.Errorf("cycle:\n%s", summary(as))
	}
}

func TestReaders(t *testing.T) {
	tree := exampleTree(t)
	as := Readers(tree, "dws.gmv-1min-value", "gmv_cents")
	if len(as) != 2 {
		t.Errorf("readers of gmv_cents:\n%s", summary(as))
	}
	all := Readers(tree, "orders.order-created-value", "")
	if len(all) < 6 {
		t.Errorf("every reader of order-created, directly and downstream:\n%s", summary(all))
	}
}
