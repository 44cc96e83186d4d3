package flinksql

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The corpus (testdata/corpus) is realistic Flink SQL written after Flink's
// documentation and cookbook patterns; each NAME.sql has a hand-checked NAME.json with
// the lineage it must yield. CORPUS_SEED=1 writes the current output for scripts that
// have none yet, to be checked by hand before it is committed.

type counts struct{ tp, fp, fn int }

func (c *counts) add(want, got map[string]bool) {
	for k := range got {
		if want[k] {
			c.tp++
		} else {
			c.fp++
		}
	}
	for k := range want {
		if !got[k] {
			c.fn++
		}
	}
}

func (c counts) f1() float64 {
	if c.tp == 0 {
		return 0
	}
	p := float64(c.tp) / float64(c.tp+c.fp)
	r := float64(c.tp) / float64(c.tp+c.fn)
	return 2 * p * r / (p + r)
}

// triples flattens a result into column triples and reads, keyed by statement.
func triples(res Result) (cols, reads map[string]bool) {
	cols, reads = map[string]bool{}, map[string]bool{}
	for _, st := range res.Statements {
		key := fmt.Sprintf("%s:%d:%s", st.File, st.Line, st.Sink)
		for c, srcs := range st.Columns {
			for _, s := range srcs {
				cols[key+"|"+c+"|"+s] = true
			}
		}
		for _, r := range st.Reads {
			reads[key+"|"+r] = true
		}
	}
	return cols, reads
}

func TestCorpusF1(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.sql")
	if len(files) < 30 {
		t.Fatalf("the corpus has %d scripts, want at least 30", len(files))
	}
	var colC, readC counts
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := Analyze([2]string{filepath.Base(f), string(src)})
		for _, e := range got.Errors {
			t.Errorf("%v", e)
		}
		expPath := strings.TrimSuffix(f, ".sql") + ".json"
		b, err := os.ReadFile(expPath)
		if os.IsNotExist(err) && os.Getenv("CORPUS_SEED") != "" {
			out, _ := json.MarshalIndent(got, "", "  ")
			if err := os.WriteFile(expPath, append(out, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s has no expected lineage: %v", f, err)
		}
		var want Result
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", expPath, err)
		}
		wc, wr := triples(want)
		gc, gr := triples(got)
		var c, r counts
		c.add(wc, gc)
		r.add(wr, gr)
		if c.fp+c.fn+r.fp+r.fn > 0 {
			t.Logf("%s: columns %d missing %d extra; reads %d missing %d extra", filepath.Base(f), c.fn, c.fp, r.fn, r.fp)
			for k := range gc {
				if !wc[k] {
					t.Logf("  extra column %s", k)
				}
			}
			for k := range wc {
				if !gc[k] {
					t.Logf("  missing column %s", k)
				}
			}
			for k := range gr {
				if !wr[k] {
					t.Logf("  extra read %s", k)
				}
			}
			for k := range wr {
				if !gr[k] {
					t.Logf("  missing read %s", k)
				}
			}
		}
		colC.tp, colC.fp, colC.fn = colC.tp+c.tp, colC.fp+c.fp, colC.fn+c.fn
		readC.tp, readC.fp, readC.fn = readC.tp+r.tp, readC.fp+r.fp, readC.fn+r.fn
	}
	t.Logf("corpus: %d scripts; column triples F1 %.3f (%d tp, %d fp, %d fn); reads F1 %.3f (%d tp, %d fp, %d fn)",
		len(files), colC.f1(), colC.tp, colC.fp, colC.fn, readC.f1(), readC.tp, readC.fp, readC.fn)
	if colC.f1() < 0.95 || readC.f1() < 0.95 {
		t.Errorf("F1 below 0.95: columns %.3f, reads %.3f", colC.f1(), readC.f1())
	}
}
