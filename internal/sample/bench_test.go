package sample

import (
	"bytes"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	sv "github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/contractbot/contractbot/checker/protobuf"
)

// benchCase is one format's conforming message and its judge.
type benchCase struct {
	name  string
	judge *Judge
	value []byte
	bare  func(b *testing.B, value []byte)
}

func benchCases(b *testing.B) []benchCase {
	f := newFixture(b)
	byTopic := map[string]*Judge{}
	for _, j := range f.judges(b, Options{}) {
		byTopic[j.Topic] = j
	}
	var avroRec, protoRec []byte
	for _, r := range f.producedTB(b) {
		switch {
		case r.Topic == "ods_order_events" && avroRec == nil:
			avroRec = r.Value
		case r.Topic == "ods_shipment_dispatched" && protoRec == nil:
			protoRec = r.Value
		}
	}
	_, avroText := f.idTB(b, "orders.order-created-value", 2)
	avroSchema := avro.MustParse(avroText)
	sch, err := f.tree.Subject("logistics.shipment-dispatched-value").Schema()
	if err != nil {
		b.Fatal(err)
	}
	md := sch.(*protobuf.Schema).Record()
	snap := f.tree.Subject("orders.order-snapshot-value")
	validator, err := compileJSONSchema(snap.SchemaText, f.tree.ReadImport)
	if err != nil {
		b.Fatal(err)
	}
	return []benchCase{
		{"avro", byTopic["ods_order_events"], avroRec, func(b *testing.B, v []byte) {
			var out any
			if err := avro.Unmarshal(avroSchema, v[5:], &out); err != nil {
				b.Fatal(err)
			}
		}},
		{"protobuf", byTopic["ods_shipment_dispatched"], protoRec, func(b *testing.B, v []byte) {
			_, rest, err := confluent.DecodeIndex(v[5:], 64)
			if err != nil {
				b.Fatal(err)
			}
			if err := proto.Unmarshal(rest, dynamicpb.NewMessage(md)); err != nil {
				b.Fatal(err)
			}
		}},
		{"json", byTopic["ods_order_snapshot"], []byte(snapshot(nil)), func(b *testing.B, v []byte) {
			doc, err := sv.UnmarshalJSON(bytes.NewReader(v))
			if err != nil {
				b.Fatal(err)
			}
			if err := validator.Validate(doc); err != nil {
				b.Fatal(err)
			}
		}},
	}
}

// BenchmarkJudge measures messages judged per second on one core, per format, next to
// a bare decode of the same message with the same library (BenchmarkBareDecode): the
// judge's target is at least half the bare decode's rate (docs/performance.md).
func BenchmarkJudge(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			if probs := c.judge.Judge(Record{Value: c.value}); len(probs) > 0 {
				b.Fatalf("the benchmark's message does not conform: %+v", probs)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(c.value)))
			for b.Loop() {
				c.judge.Judge(Record{Value: c.value})
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkBareDecode decodes the messages of BenchmarkJudge with the libraries alone:
// hamba/avro into any, dynamicpb after the message indexes, JSON parsed and validated
// by santhosh-tekuri/jsonschema.
func BenchmarkBareDecode(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.value)))
			for b.Loop() {
				c.bare(b, c.value)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkJudgeVsBare alternates judging and bare decoding of the same message in
// each iteration and times each apart, so that a machine loaded by others slows both
// alike: it reports each rate and their ratio (judge/bare; the target is >= 0.5).
func BenchmarkJudgeVsBare(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			var judge, bare time.Duration
			for b.Loop() {
				t0 := time.Now()
				c.judge.Judge(Record{Value: c.value})
				t1 := time.Now()
				c.bare(b, c.value)
				bare += time.Since(t1)
				judge += t1.Sub(t0)
			}
			b.ReportMetric(float64(b.N)/judge.Seconds(), "judged/s")
			b.ReportMetric(float64(b.N)/bare.Seconds(), "bare/s")
			b.ReportMetric(bare.Seconds()/judge.Seconds(), "ratio")
		})
	}
}
