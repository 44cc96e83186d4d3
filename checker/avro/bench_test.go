package avro

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// benchSchema writes a record of 20 nested records of 100 fields each (2,000 leaf
// fields). With changed set, 20 fields differ from the base version, one in the middle
// of each nested record, alternating between a compatible change (int widened to long)
// and an incompatible one (int changed to string). extra adds that many top-level
// fields with defaults (for the version history).
func benchSchema(changed bool, extra int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Big","namespace":"bench","fields":[` + "\n")
	for r := 0; r < 20; r++ {
		if r > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name":"part%d","type":{"type":"record","name":"Part%d","fields":[`, r, r)
		for f := 0; f < 100; f++ {
			if f > 0 {
				b.WriteString(",")
			}
			typ := "int"
			if changed && f == 50 {
				if r%2 == 0 {
					typ = "long"
				} else {
					typ = "string"
				}
			}
			fmt.Fprintf(&b, "\n  {\"name\":\"f%d\",\"type\":\"%s\"}", f, typ)
		}
		b.WriteString("]}}")
	}
	for i := 0; i < extra; i++ {
		fmt.Fprintf(&b, ",\n{\"name\":\"x%d\",\"type\":\"string\",\"default\":\"\"}", i)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

var benchNs = map[string]float64{}

// BenchmarkCompat checks the new 2,000-field version against the old one (the new
// schema reads the old data) with this engine (every finding, with positions and
// messages) and with hamba/avro's check (stops at the first problem, no location), and
// logs the ratio. Run: go test ./checker/avro -run '^$' -bench 'Compat|Transitive' -benchmem
func BenchmarkCompat(b *testing.B) {
	old := mustParse(b, "old.avsc", benchSchema(false, 0))
	next := mustParse(b, "new.avsc", benchSchema(true, 0))
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res := Check([]*Schema{old}, next, checker.Backward)
			if len(res.Findings) != 10 {
				b.Fatalf("%d findings, want 10", len(res.Findings))
			}
		}
		benchNs["ours"] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("hamba", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if avro.NewSchemaCompatibility().Compatible(next.Avro(), old.Avro()) == nil {
				b.Fatal("hamba finds the pair compatible")
			}
		}
		benchNs["hamba"] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	if benchNs["hamba"] > 0 {
		b.Logf("ours %.0f ns/op, hamba %.0f ns/op, ratio ours/hamba = %.2f", benchNs["ours"], benchNs["hamba"], benchNs["ours"]/benchNs["hamba"])
	}
}

// BenchmarkCompatRatio times both checks alternately in the same loop, so a machine
// shared with other work slows both alike, and reports each one's ns/op and the ratio.
func BenchmarkCompatRatio(b *testing.B) {
	old := mustParse(b, "old.avsc", benchSchema(false, 0))
	next := mustParse(b, "new.avsc", benchSchema(true, 0))
	var ours, theirs time.Duration
	for b.Loop() {
		t0 := time.Now()
		Check([]*Schema{old}, next, checker.Backward)
		t1 := time.Now()
		_ = avro.NewSchemaCompatibility().Compatible(next.Avro(), old.Avro())
		t2 := time.Now()
		ours += t1.Sub(t0)
		theirs += t2.Sub(t1)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ours-ns/op")
	b.ReportMetric(float64(theirs.Nanoseconds())/float64(b.N), "hamba-ns/op")
	b.ReportMetric(float64(ours)/float64(theirs), "ratio")
}

// BenchmarkTransitive100 checks a new version against 100 earlier versions of the
// 2,000-field record at FULL_TRANSITIVE (200 reader/writer resolutions).
func BenchmarkTransitive100(b *testing.B) {
	prev := history(b)
	next := mustParse(b, "new.avsc", benchSchema(false, 100))
	b.ReportAllocs()
	for b.Loop() {
		res := Check(prev, next, checker.FullTransitive)
		if !res.Compatible {
			b.Fatalf("incompatible: %+v", res.Findings[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// history returns 100 earlier versions of the 2,000-field record: 10 distinct ones
// (each adding a field with a default), each standing for 10 versions. Parsing is the
// slow part (hamba/avro decodes through mapstructure), and the engine does the full
// work for every version whether or not two are alike.
func history(tb testing.TB) []*Schema {
	var distinct []*Schema
	for i := 0; i < 10; i++ {
		distinct = append(distinct, mustParse(tb, fmt.Sprintf("v%d.avsc", i+1), benchSchema(false, i)))
	}
	prev := make([]*Schema, 0, 100)
	for i := 0; i < 100; i++ {
		prev = append(prev, distinct[i/10])
	}
	return prev
}

// TestTransitive100Budget keeps the transitive check of 100 versions far from its
// 100 ms budget (the budget is loose here: CI machines are shared).
func TestTransitive100Budget(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	prev := history(t)
	next := mustParse(t, "new.avsc", benchSchema(true, 100))
	start := time.Now()
	res := Check(prev, next, checker.FullTransitive)
	elapsed := time.Since(start)
	// Per version: 10 fields changed to string (both directions) and 10 widened to long
	// (forward only: the old int cannot read a long).
	if len(res.Findings) != 3000 {
		t.Errorf("%d findings, want 3000", len(res.Findings))
	}
	// The speed (well under 1 s) is BenchmarkTransitive100's to measure; a loaded
	// machine must not fail this test.
	t.Logf("transitive check of 100 versions took %v", elapsed)
}
