package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

func TestLineageIsLayeredBothWays(t *testing.T) {
	tree, err := contract.Load(contract.MemSource(testutil.ExampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	s := newSnapshot(tree, [20]byte{}, nil)
	g := s.lineage(tree.Subject("dws.gmv-1min-value"))
	cols := map[int][]string{}
	for _, n := range g.Nodes {
		cols[n.Col] = append(cols[n.Col], n.Kind+":"+n.Label)
	}
	got := fmt.Sprint(cols)
	// Two hops upstream (orders.order-created -> dwd-order-detail and the JSON
	// orders.order-snapshot -> dwd-order-snapshot, both -> dw -> dws-gmv-1min -> dws),
	// the subject, then its two consumers.
	want := "map[0:[subject:orders.order-created-value subject:orders.order-snapshot-value] 1:[consumer:dwd-order-detail consumer:dwd-order-snapshot] 2:[subject:dw.order-detail-value] 3:[consumer:dws-gmv-1min] 4:[self:dws.gmv-1min-value] 5:[consumer:doris-gmv-1min consumer:gmv-dashboard]]"
	if got != want {
		t.Errorf("columns:\n got %s\nwant %s", got, want)
	}
	if len(g.Edges) != 8 {
		t.Errorf("%d edges, want 8", len(g.Edges))
	}
	for _, n := range g.Nodes {
		if !strings.HasPrefix(n.Href, "/subjects/") {
			t.Errorf("node %s links to %q", n.Label, n.Href)
		}
	}
	if again := fmt.Sprint(s.lineage(tree.Subject("dws.gmv-1min-value"))); again != fmt.Sprint(g) {
		t.Error("the layout differs between two runs")
	}
}
