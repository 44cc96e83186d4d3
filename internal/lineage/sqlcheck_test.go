package lineage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/flinksql"
)

func exampleTree(t *testing.T) *contract.Tree {
	t.Helper()
	tree, err := contract.Load(contract.NewDirSource("../.."))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// checkOf runs lineage check over one script and returns its findings as
// "line:column rule" (and the message, for the failure output).
func checkOf(t *testing.T, tree *contract.Tree, src string) (got []string, all string) {
	t.Helper()
	a := &flinksql.Analyzer{}
	a.Add(flinksql.Parse("job.sql", src))
	res := CheckSQL(a, tree, "")
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%d:%d %s", f.Line, f.Column, f.Rule))
		all += fmt.Sprintf("%d:%d %s %s\n", f.Line, f.Column, f.Rule, f.Message)
	}
	return got, all + strings.Join(res.Notes, "\n")
}

// The json format against a JSON Schema contract (engagement.app-event-value) and the
// protobuf format against a Protobuf one (payments.payment-authorized-value), after
// Flink's type mapping tables of each format.
func TestCheckSQLFormats(t *testing.T) {
	tree := exampleTree(t)
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"json agrees", `CREATE TABLE app_events (
  event_id STRING, userid STRING, event_type STRING, ts BIGINT,
  page ROW<url STRING, referrer STRING>,
  product_info ROW<detail ROW<sku STRING, price DOUBLE>>,
  PRIMARY KEY (event_id) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'ods_app_events', 'key.format' = 'json', 'value.format' = 'json');`, nil},
		{"json disagrees", `CREATE TABLE app_events (
  event_id STRING, ts STRING,
  page ROW<url STRING, referrer STRING NOT NULL>,
  product_info ROW<detail ROW<sku STRING, price INT>>
) WITH ('connector' = 'kafka', 'topic' = 'ods_app_events', 'format' = 'debezium-json');`,
			[]string{"2:23 column-type", "3:33 not-null-over-optional"}}, // a number is not told from any value
		{"json read as avro", `CREATE TABLE app_events (event_id STRING)
WITH ('connector' = 'kafka', 'topic' = 'ods_app_events', 'value.format' = 'avro-confluent');`,
			[]string{"1:1 value-format"}},
		{"protobuf agrees", `CREATE TABLE payments (
  payment_id STRING, order_id STRING, user_id BIGINT, method STRING,
  card ROW<network STRING, last4 STRING, three_ds_authenticated BOOLEAN>,
  authorized_at ROW<seconds BIGINT, nanos INT>
) WITH ('connector' = 'kafka', 'topic' = 'ods_payment_authorized', 'format' = 'protobuf',
  'protobuf.message-class-name' = 'acme.payments.v1.PaymentAuthorized');`, nil},
		{"protobuf disagrees", `CREATE TABLE payments (
  payment_id STRING, user_id INT,
  card ROW<network STRING, three_ds_authenticated STRING>,
  provider_ref STRING
) WITH ('connector' = 'kafka', 'topic' = 'ods_payment_authorized', 'format' = 'protobuf',
  'key.fields' = 'order_id', 'key.format' = 'raw');`,
			[]string{"1:1 key-fields", "2:30 narrower-type", "3:51 column-type", "4:3 column-not-in-schema"}},
	} {
		got, all := checkOf(t, tree, tc.src)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: got %v, want %v\n%s", tc.name, got, tc.want, all)
		}
	}
}
