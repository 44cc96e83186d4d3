package lineage

import (
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// A job seen reading (or making) a field the subject's schema does not have is not
// told to declare it, which lint would refuse: it is drift of its own kind, saying the
// job's view of the topic differs from the contract.
func TestVerifyFieldsTheSchemaDoesNotHave(t *testing.T) {
	tree, err := contract.Load(contract.NewDirSource("../.."))
	if err != nil {
		t.Fatal(err)
	}
	o := &openlineage.Observed{Namespace: "flink-jobs", Job: "dwd-order-detail",
		Reads: map[string]map[string]bool{"ods_order_events": {"order_id": true, "x0": true}},
		Produces: map[string]map[string]map[string]bool{"dwd_order_detail": {
			"f0":       {"ods_order_events.x0": true},
			"g0":       {"ods_order_events.order_id": true},
			"order_id": {"ods_order_events.order_id": true},
		}}}
	drift, _ := Verify(tree, []*openlineage.Observed{o})
	var got []string
	for _, d := range drift {
		if d.Field == "x0" || d.Field == "f0" || d.Field == "g0" {
			got = append(got, string(d.Kind)+" "+d.Subject+" "+d.Field+": "+d.Text)
		}
	}
	want := []string{
		"not-in-schema dw.order-detail-value g0: contracts/orders/order-created/consumers/dwd-order-detail.yaml: job dwd-order-detail makes g0 of dw.order-detail-value, which dw.order-detail-value's schema does not have: the job's view of topic dwd_order_detail differs from the contract. Find out which schema the job writes the topic with; mapping the field would not pass lint.",
		"not-in-schema orders.order-created-value x0: contracts/orders/order-created/consumers/dwd-order-detail.yaml: job dwd-order-detail reads x0, which orders.order-created-value's schema does not have: the job's view of topic ods_order_events differs from the contract. Find out which schema the job reads the topic with; declaring the field would not pass lint.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift about x0, f0 and g0:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A consumer file named as a job but whose openlineage: key names another job is not
// matched by name, and verify says so rather than asking for a file that exists.
func TestVerifyFileWhoseKeyNamesAnotherJob(t *testing.T) {
	tree, err := contract.Load(contract.NewDirSource("../.."))
	if err != nil {
		t.Fatal(err)
	}
	s := tree.Subject("orders.order-created-value")
	var c *contract.Consumer
	for _, x := range s.Consumers {
		if x.Name == "dwd-order-detail" {
			c = x
		}
	}
	if c == nil {
		t.Fatal("the example tree has no dwd-order-detail consumer")
	}
	c.OpenLineage = &contract.OpenLineageJob{Namespace: "flink-jobs", Job: "order-fraud-rules.collect_limit"}
	o := &openlineage.Observed{Namespace: "flink-jobs", Job: "dwd-order-detail",
		Reads: map[string]map[string]bool{"ods_order_events": {"order_id": true}}}
	drift, _ := Verify(tree, []*openlineage.Observed{o})
	var got string
	for _, d := range drift {
		if d.Kind == NoConsumerFile && d.Job == "dwd-order-detail" {
			got = d.Text
		}
	}
	if !strings.Contains(got, "has its name but its openlineage: key names job order-fraud-rules.collect_limit") || strings.Contains(got, "does not exist") {
		t.Errorf("drift for the job: %q", got)
	}
}
