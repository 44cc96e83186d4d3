package impact

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// fanOutTree is the example tree plus a subject "src" of n fields under one parent
// (p.f1 ... p.fn) whose consumer maps the parent p to every one of m output fields of
// subject "dst", which one consumer reads whole: each change to a field under p
// reaches m outputs, so listing every (change, output) pair costs n x m hits.
func fanOutTree(t testing.TB, n, m int) *contract.Tree {
	files := testutil.ExampleFiles(t)
	var src, dst strings.Builder
	src.WriteString(`{"type": "record", "name": "Src", "fields": [{"name": "p", "type": {"type": "record", "name": "P", "fields": [`)
	for i := range n {
		if i > 0 {
			src.WriteString(", ")
		}
		fmt.Fprintf(&src, `{"name": "f%d", "type": "int"}`, i)
	}
	src.WriteString("]}}]}\n")
	dst.WriteString(`{"type": "record", "name": "Dst", "fields": [`)
	var mapping strings.Builder
	for j := range m {
		if j > 0 {
			dst.WriteString(", ")
		}
		fmt.Fprintf(&dst, `{"name": "o%d", "type": "int"}`, j)
		fmt.Fprintf(&mapping, "    o%d: [p]\n", j)
	}
	dst.WriteString("]}\n")
	files["contracts/fan/src/contract.yaml"] = []byte("subject: fan.src-value\nformat: avro\nschema: s.avsc\ncompatibility: NONE\nowner: payments\ntier: standard\n")
	files["contracts/fan/src/s.avsc"] = []byte(src.String())
	files["contracts/fan/src/consumers/job.yaml"] = []byte("name: job\nowner: risk\nkind: flink-job\nreads: [p]\nproduces:\n  fan.dst-value:\n" + mapping.String())
	files["contracts/fan/dst/contract.yaml"] = []byte("subject: fan.dst-value\nformat: avro\nschema: d.avsc\ncompatibility: NONE\nowner: payments\ntier: standard\n")
	files["contracts/fan/dst/d.avsc"] = []byte(dst.String())
	files["contracts/fan/dst/consumers/all.yaml"] = []byte("name: all\nowner: data-warehouse\nkind: sink\nreads: [\"*\"]\n")
	tree, err := contract.Load(contract.MemSource(files))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// A change of n fields carried by lineage to m outputs each costs at most MaxHits
// hits; past that the whole subject is followed once, at the worst effect, so no
// consumer the changes reach is missed.
func TestLineageFanOutIsBounded(t *testing.T) {
	const n, m = 2000, 500
	tree := fanOutTree(t, n, m)
	changes := make([]checker.Change, n)
	for i := range changes {
		changes[i] = checker.Change{Kind: checker.TypeChanged, Path: fmt.Sprintf("p.f%d", i), Effect: checker.Breaks}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	as := Analyze(tree, "fan.src-value", changes)
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 256 {
		t.Errorf("Analyze allocated %d MB for %d changes x %d outputs", mb, n, m)
	}
	hits := 0
	names := map[string]checker.Effect{}
	for _, a := range as {
		hits += len(a.Hits)
		names[a.Name] = a.Effect
	}
	if hits > MaxHits+len(as)*m {
		t.Errorf("%d hits", hits)
	}
	if names["job"] != checker.Breaks || names["all"] != checker.Breaks {
		t.Errorf("affected: %v", names)
	}
}
