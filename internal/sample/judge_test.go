package sample

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// TestJudgeJSONMappings judges unframed JSON against an Avro schema's and a Protobuf
// schema's JSON mapping: kinds and fields, not the sentences.
func TestJudgeJSONMappings(t *testing.T) {
	f := newFixture(t)
	js := f.judges(t, Options{}, "ods_order_events", "ods_shipment_dispatched")
	events, shipments := js[0], js[1]
	order := `{"order_id": "O-1", "user_id": 42, "channel": "APP", "amount": 1999, "product_info": {"product_id": "P", "category": "c",
	  "detail": {"sku": "S", "title": "T", "price": "\u0007\u00cf"}}, "items": [], "created_at": 1, "event_time": 2}`
	for _, c := range []struct {
		name  string
		judge *Judge
		value string
		want  []string // kind field
	}{
		{"avro conforms", events, order, nil},
		{"avro union as its branch", events, strings.Replace(order, `"amount"`, `"coupon_code": {"string": "C-1"}, "amount"`, 1), nil},
		{"avro case change", events, strings.Replace(order, `"user_id"`, `"userId"`, 1), []string{"missing-field user_id", "undeclared-field userId"}},
		{"avro enum", events, strings.Replace(order, `"APP"`, `"KIOSK"`, 1), []string{"invalid-value channel"}},
		{"avro long as string", events, strings.Replace(order, `"amount": 1999`, `"amount": "1999"`, 1), []string{"type-mismatch amount"}},
		{"avro moved", events, strings.Replace(order, `"category": "c"`, `"category": "c", "price": 3`, 1), []string{"undeclared-field product_info.price"}},
		{"proto conforms", shipments, `{"shipmentId": "S-1", "parcels": [{"weight_grams": 3}], "dispatchedAt": "2026-01-01T00:00:00Z"}`, nil},
		{"proto new field", shipments, `{"shipment_id": "S-1", "courier": "dhl"}`, []string{"undeclared-field courier"}},
		{"proto int64 as string", shipments, `{"insuredValueCents": "12"}`, nil},
		{"proto type", shipments, `{"carrier": 5}`, []string{"type-mismatch carrier"}},
		{"not json", events, "plain text", []string{"decode-error "}},
		{"trailing text", events, order + " x", []string{"decode-error "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, p := range c.judge.Judge(Record{Value: []byte(c.value)}) {
				got = append(got, string(p.Kind)+" "+p.Field)
			}
			if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestJudgeKey judges the key when a <topic>-key subject declares it.
func TestJudgeKey(t *testing.T) {
	f := newFixture(t)
	f.repo.Write("contracts/orders/order-snapshot-key/contract.yaml", "subject: orders.order-snapshot-key\nformat: avro\nschema: key.avsc\ncompatibility: BACKWARD\nowner: orders\ntopic: ods_order_snapshot\nkeys: {business: [order_id], event_time: order_id, update_time: order_id}\n")
	f.repo.Write("contracts/orders/order-snapshot-key/key.avsc", `{"type": "record", "name": "OrderKey", "fields": [{"name": "order_id", "type": "string", "doc": "Order number."}]}`)
	f = reload(t, f)
	j := f.judges(t, Options{}, "ods_order_snapshot")[0]
	if j.Key == nil || j.Key.Subject.Subject != "orders.order-snapshot-key" {
		t.Fatalf("key side %+v", j.Key)
	}
	id := f.ix.BySubject["orders.order-snapshot-key"].Versions[0].ID
	value := []byte(snapshot(nil))
	framed := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
	for _, c := range []struct {
		key  []byte
		want string
	}{
		{append(framed[:5:5], 6, 'O', '-', '1'), ""},
		{[]byte(`{"order_id": "O-1"}`), ""},
		{[]byte(`{"orderId": "O-1"}`), "missing-field order_id; undeclared-field orderId"},
		{nil, "missing-field "},
		{append(framed[:5:5], 9), "decode-error "},
	} {
		var got []string
		for _, p := range j.Judge(Record{Key: c.key, Value: value}) {
			if !p.Key {
				t.Errorf("a problem of the key is not marked so: %+v", p)
			}
			got = append(got, string(p.Kind)+" "+p.Field)
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("key %q: got %q, want %q", c.key, got, c.want)
		}
	}
}

// FuzzJudge: whatever the bytes, the judge answers (a problem or none) and never
// panics, for framed and unframed payloads of every format, keys included.
func FuzzJudge(f *testing.F) {
	fx := newFixture(f)
	judges := fx.judges(f, Options{MaxBytes: 4096})
	for _, seed := range []string{
		snapshot(nil), `{"a": [1, 2, {"b": null}]}`, "\x00\x00\x00\x00\x0e\x02", "\x00\x00\x00\x00\x01\x00\x0a\x03S-1",
		"\x00\x00\x00\x00\x01\x02\x02\x04", "[[[[[[", `{"amount": 1e400}`, "\x00\xff\xff\xff\xff",
	} {
		f.Add([]byte(seed), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		j := judges[int(which)%len(judges)]
		probs := j.Judge(Record{Topic: j.Topic, Key: b, Value: b})
		if len(probs) > 2*maxProblems {
			t.Fatalf("%d problems for one record", len(probs))
		}
	})
}

// TestSamplerConcurrent judges records from several goroutines at once (serve's
// sampler shares the judges): the counts are those of one goroutine times four, and
// -race finds no race in the schemas parsed on first use.
func TestSamplerConcurrent(t *testing.T) {
	f := newFixture(t)
	recs := f.produced(t)
	s := NewSampler(f.judges(t, Options{MaxBytes: 64 << 10}), nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, r := range recs {
				s.Add(Record{Topic: r.Topic, Offset: int64(i), Key: r.Key, Value: r.Value})
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, tr := range s.Result(true).Topics {
		total += tr.Messages
	}
	if total != 4*len(recs) {
		t.Errorf("counted %d records, want %d", total, 4*len(recs))
	}
}

// TestReadKafkaSASL reads a cluster that requires SASL (kfake) with PLAIN and
// SCRAM-SHA-256 credentials; a wrong password is unusable input.
func TestReadKafkaSASL(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "sampler", "secret"), kfake.Superuser("SCRAM-SHA-256", "sampler", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256"} {
		k := Kafka{Brokers: c.ListenAddrs(), MaxMessages: 1, SASLMechanism: mech, SASLUser: "sampler", SASLPassword: "secret", DialTimeout: 2 * time.Second}
		if _, err := ReadKafka(ctx, k, []string{"t"}, false, func(Record) {}); err != nil {
			t.Errorf("%s: %v", mech, err)
		}
		k.SASLPassword = "wrong"
		var ue *UnusableError
		if _, err := ReadKafka(ctx, k, []string{"t"}, false, func(Record) {}); !errors.As(err, &ue) {
			t.Errorf("%s with a wrong password: %v, want an UnusableError", mech, err)
		}
	}
	if err := (Kafka{Brokers: []string{"x:1"}, SASLMechanism: "GSSAPI"}).Validate(); err == nil || !strings.Contains(err.Error(), "unknown SASL mechanism") {
		t.Errorf("GSSAPI: %v", err)
	}
}
