package jsonschema

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/avro"
)

// benchJSON writes an object of 20 nested objects of 100 integer properties each
// (2,000 leaf properties). With changed set, 20 properties differ from the base
// version, one in the middle of each nested object, alternating between a compatible
// change (integer widened to number) and an incompatible one (integer to string):
// the JSON Schema twin of benchAvro.
func benchJSON(changed bool) []byte {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {` + "\n")
	for r := range 20 {
		if r > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `"part%d": {"type": "object", "properties": {`, r)
		for f := range 100 {
			if f > 0 {
				b.WriteString(",")
			}
			typ := "integer"
			if changed && f == 50 {
				typ = "number"
				if r%2 == 1 {
					typ = "string"
				}
			}
			fmt.Fprintf(&b, "\n  \"f%d\": {\"type\": \"%s\"}", f, typ)
		}
		b.WriteString("}}")
	}
	b.WriteString("}}\n")
	return []byte(b.String())
}

// benchAvro is the Avro pair: a record of 20 nested records of 100 int fields, 20 of
// them changed (int to long, int to string), as checker/avro's own benchmark.
func benchAvro(changed bool) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Big","namespace":"bench","fields":[` + "\n")
	for r := range 20 {
		if r > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name":"part%d","type":{"type":"record","name":"Part%d","fields":[`, r, r)
		for f := range 100 {
			if f > 0 {
				b.WriteString(",")
			}
			typ := "int"
			if changed && f == 50 {
				typ = "long"
				if r%2 == 1 {
					typ = "string"
				}
			}
			fmt.Fprintf(&b, "\n  {\"name\":\"f%d\",\"type\":\"%s\"}", f, typ)
		}
		b.WriteString("]}}")
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// BenchmarkCompatVsAvro checks the new 2,000-property version against the old one at
// BACKWARD with this engine and the Avro engine on the equivalent pair (every finding
// located, both), and logs the ratio. Run:
// go test ./checker/jsonschema -run '^$' -bench CompatVsAvro -benchmem -count 5 -v
func BenchmarkCompatVsAvro(b *testing.B) {
	jOld, err := Parse(checker.ParseInput{Input: checker.Input{Path: "old.json", Data: benchJSON(false)}})
	if err != nil {
		b.Fatal(err)
	}
	jNew, err := Parse(checker.ParseInput{Input: checker.Input{Path: "new.json", Data: benchJSON(true)}})
	if err != nil {
		b.Fatal(err)
	}
	aOld, err := avro.Parse(checker.Input{Path: "old.avsc", Data: benchAvro(false)})
	if err != nil {
		b.Fatal(err)
	}
	aNew, err := avro.Parse(checker.Input{Path: "new.avsc", Data: benchAvro(true)})
	if err != nil {
		b.Fatal(err)
	}
	ns := map[string]float64{}
	b.Run("jsonschema", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res := Check([]*Schema{jOld}, jNew, checker.Backward)
			if len(res.Findings) != 10 || res.Findings[0].Line < 1 {
				b.Fatalf("%d findings, want 10 located", len(res.Findings))
			}
		}
		ns["json"] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("avro", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res := avro.Check([]*avro.Schema{aOld}, aNew, checker.Backward)
			if len(res.Findings) != 10 || res.Findings[0].Line < 1 {
				b.Fatalf("%d findings, want 10 located", len(res.Findings))
			}
		}
		ns["avro"] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	if ns["avro"] > 0 {
		b.Logf("jsonschema %.0f ns/op, avro %.0f ns/op, ratio jsonschema/avro = %.2f", ns["json"], ns["avro"], ns["json"]/ns["avro"])
	}
}

// BenchmarkParse2000 parses the 2,000-property schema (positions, meta-schema
// validation, model, field paths).
func BenchmarkParse2000(b *testing.B) {
	data := benchJSON(true)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(checker.ParseInput{Input: checker.Input{Path: "new.json", Data: data}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompatRatio times both engines alternately in one loop (each iteration one
// check of each), so both see the same machine load, and reports the ratio.
func BenchmarkCompatRatio(b *testing.B) {
	jOld, _ := Parse(checker.ParseInput{Input: checker.Input{Path: "old.json", Data: benchJSON(false)}})
	jNew, _ := Parse(checker.ParseInput{Input: checker.Input{Path: "new.json", Data: benchJSON(true)}})
	aOld, _ := avro.Parse(checker.Input{Path: "old.avsc", Data: benchAvro(false)})
	aNew, _ := avro.Parse(checker.Input{Path: "new.avsc", Data: benchAvro(true)})
	var tj, ta time.Duration
	for b.Loop() {
		t0 := time.Now()
		rj := Check([]*Schema{jOld}, jNew, checker.Backward)
		t1 := time.Now()
		ra := avro.Check([]*avro.Schema{aOld}, aNew, checker.Backward)
		t2 := time.Now()
		if len(rj.Findings) != 10 || len(ra.Findings) != 10 {
			b.Fatalf("findings %d and %d, want 10 each", len(rj.Findings), len(ra.Findings))
		}
		tj += t1.Sub(t0)
		ta += t2.Sub(t1)
	}
	b.ReportMetric(float64(tj)/float64(ta), "json/avro")
}
