package verdict

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/testutil"
)

const paymentProto = "contracts/payments/payment-authorized/payment_authorized.proto"

// Protobuf findings and changes name their file by its path in the repository, as
// annotations need, not by its import path.
func TestProtobufAnnotationsNameRepositoryPaths(t *testing.T) {
	r := newScenarioRepo(t)
	r.replace(paymentProto, "int64 user_id = 3;", "string user_id = 3;")
	r.commit("retype user_id")
	rep := Assess(r.input())
	s := subjectOf(t, rep, "payments.payment-authorized-value")
	if len(s.Findings) == 0 || len(s.Changes) == 0 {
		t.Fatalf("no findings or changes: %+v", s)
	}
	for _, f := range s.Findings {
		equal(t, "finding file", f.File, paymentProto)
	}
	for _, c := range s.Changes {
		equal(t, "change file", c.File, paymentProto)
	}
	for _, a := range Annotations(rep) {
		if !strings.HasPrefix(a.Path, "contracts/") && !strings.HasPrefix(a.Path, "calendar/") {
			t.Errorf("annotation path %q is not a repository path", a.Path)
		}
	}
}

// A subject whose messages reuse each other 22 levels deep has its leaf retyped: the
// evaluation lists at most checker.MaxChanges changes, counts the rest, and still
// reaches the consumer reading a path through the reused messages, within a bounded
// allocation.
func TestDeepReuseEvaluationIsBounded(t *testing.T) {
	r := newScenarioRepo(t)
	dir := "contracts/hostile/deep"
	r.write(dir+"/contract.yaml", "subject: hostile.deep-value\nformat: protobuf\nschema: deep.proto\ncompatibility: BACKWARD\nowner: payments\ntier: standard\n")
	r.write(dir+"/deep.proto", synth.DeepProto(22, "int32"))
	deep := strings.Repeat("b.a.", 11) + "x"
	r.write(dir+"/consumers/reader.yaml", "name: reader\nowner: risk\nkind: service\nreads: ["+deep+"]\n")
	r.commit("a deep subject")
	r.write(dir+"/deep.proto", synth.DeepProto(22, "string"))
	r.commit("retype its leaf")
	in := r.input()
	var rep *Report
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep = Assess(in)
	out := GitHubActions(rep)
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 200 {
		t.Errorf("the evaluation and its rendering allocated %d MB, over 200 MB", mb)
	}
	s := subjectOf(t, rep, "hostile.deep-value")
	if len(s.Changes) != checker.MaxChanges+1 || s.Changes[0].Kind != checker.ChangesCut {
		t.Fatalf("%d changes, the first %s; want %d with the cut first", len(s.Changes), s.Changes[0].Kind, checker.MaxChanges+1)
	}
	equal(t, "class", rep.Class, Breaking)
	if len(s.Affected) != 1 || s.Affected[0].Name != "reader" || s.Affected[0].Effect != checker.Breaks {
		t.Errorf("affected: %+v", s.Affected)
	}
	if n := strings.Count(out, "\n"); n > MaxActionsLines {
		t.Errorf("%d lines of annotations", n)
	}
	// What a person reads: the cut change, the first 50 changes, the consumer's
	// fields capped at ten.
	golden(t, "deep-reuse.txt", []byte(Text(rep)))
	golden(t, "deep-reuse.md", []byte(Markdown(rep, goldenOptions)))
}

// wideInput is an evaluation of a Protobuf subject of n fields all retyped from int32
// to string, read whole by one consumer ("*") and field by field by another, with
// one lineage hop: the cost of every stage per change.
func wideInput(t testing.TB, n int) Input {
	files := testutil.ExampleFiles(t)
	dir := "contracts/hostile/wide"
	files[dir+"/contract.yaml"] = []byte("subject: hostile.wide-value\nformat: protobuf\nschema: wide.proto\ncompatibility: BACKWARD\nowner: payments\ntier: core\n")
	files[dir+"/consumers/all.yaml"] = []byte("name: all\nowner: risk\nkind: service\nreads: [\"*\"]\n")
	files[dir+"/consumers/some.yaml"] = []byte("name: some\nowner: data-warehouse\nkind: flink-job\nreads: [f1, f2, f3]\nproduces:\n  dw.payment-detail-value:\n    payment_id: [f1]\n")
	files[dir+"/wide.proto"] = []byte(synth.WideProto(n, "int32"))
	base, err := contract.Load(contract.MemSource(files))
	must2(t, err)
	files[dir+"/wide.proto"] = []byte(synth.WideProto(n, "string"))
	head, err := contract.Load(contract.MemSource(files))
	must2(t, err)
	return Input{Base: base, Head: head, Author: "olivia", OpenedAt: openedAt, Now: now}
}

func must2(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// renderAll evaluates and renders in every format, as check and the bot do.
func renderAll(t testing.TB, in Input) *Report {
	r := Assess(in)
	_ = Markdown(r, goldenOptions)
	_ = Text(r)
	_ = GitHubActions(r)
	_ = CheckRunOutput(r)
	if _, err := JSON(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// The cost of an evaluation grows with the number of changes, not faster: ten times
// the fields allocate less than fifteen times as much (a budget on bytes, not on
// time, so it does not flake on a loaded machine).
func TestWideChangeCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 2 x 4,000-field schemas")
	}
	cost := func(n int) uint64 {
		in := wideInput(t, n)
		for _, s := range []*contract.Subject{in.Base.Subject("hostile.wide-value"), in.Head.Subject("hostile.wide-value")} {
			_, _ = s.Schema() // parse outside the measure
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := renderAll(t, in)
		runtime.ReadMemStats(&after)
		if s := subjectOf(t, r, "hostile.wide-value"); len(s.Changes) != n || len(s.Affected) != 3 {
			t.Fatalf("%d fields: %d changes, %d affected", n, len(s.Changes), len(s.Affected))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := cost(400), cost(4000)
	t.Logf("allocated %d KB for 400 fields, %d KB for 4,000", small>>10, large>>10)
	if large > 15*small {
		t.Errorf("10x the fields allocated %.1fx the bytes", float64(large)/float64(small))
	}
}

// BenchmarkWideChange times an evaluation and its renderings per size, the schemas
// parsed (a 29,000-field change lists 10,000 changes and counts the rest):
//
//	go test ./internal/verdict -run '^$' -bench WideChange -benchtime 3x
func BenchmarkWideChange(b *testing.B) {
	for _, n := range []int{1000, 10000, 29000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			in := wideInput(b, n)
			renderAll(b, in) // parses both schemas (kept by the subjects)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				renderAll(b, in)
			}
		})
	}
}

// A _TRANSITIVE check reads at most MaxHistoryBytes of earlier versions, newest
// first; the versions past it make the check fail with a finding that names them (the
// registry compares with all of them), and a version that no longer parses is noted,
// never dropped in silence.
func TestTransitiveHistoryBudget(t *testing.T) {
	r := newScenarioRepo(t)
	dir := "contracts/hostile/long-history"
	version := func(n int, size int) []byte {
		doc := strings.Repeat(fmt.Sprintf("v%d ", n), size/3)
		return []byte(fmt.Sprintf(`{"type": "record", "name": "Big", "fields": [{"name": "a", "type": "string", "doc": "%s"}]}`, doc))
	}
	const size = 1300 << 10 // versions 5, 4, 3 and the small 2 fit in 4 MiB, version 1 does not
	r.write(dir+"/contract.yaml", "subject: hostile.long-history-value\nformat: avro\nschema: big.avsc\ncompatibility: BACKWARD_TRANSITIVE\nowner: payments\ntier: standard\n")
	base := version(6, 10)
	r.write(dir+"/big.avsc", string(base))
	r.commit("a subject with a long history")
	r.write(dir+"/big.avsc", `{"type": "record", "name": "Big", "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "int", "default": 0}]}`)
	r.commit("add a field")
	in := r.input()
	history := []checker.Input{
		{Path: "big.avsc", Data: version(1, size)},
		{Path: "big.avsc", Data: []byte(`{"type": "record", "name": "Big", "fields": [{"name": "a", "type": "strng"}]}`)},
		{Path: "big.avsc", Data: version(3, size)},
		{Path: "big.avsc", Data: version(4, size)},
		{Path: "big.avsc", Data: version(5, size)},
		{Path: "big.avsc", Data: base},
	}
	in.History = func(subject string) []contract.Earlier {
		if subject == "hostile.long-history-value" {
			out := make([]contract.Earlier, len(history))
			for i, h := range history {
				out[i] = contract.Earlier{Input: h}
			}
			return out
		}
		return nil
	}
	s := subjectOf(t, Assess(in), "hostile.long-history-value")
	var over []checker.Finding
	for _, f := range s.Findings {
		if f.Rule == "HISTORY_OVER_BUDGET" {
			over = append(over, f)
		}
	}
	if s.Compatible || len(over) != 1 || !strings.Contains(over[0].Message, "big.avsc could not be compared with version 1:") || over[0].File != dir+"/big.avsc" {
		t.Fatalf("compatible %v, findings %+v: want one HISTORY_OVER_BUDGET naming version 1", s.Compatible, s.Findings)
	}
	if len(s.Findings) != 1 {
		t.Errorf("findings %+v: versions 3 to 6 accept the added field with a default", s.Findings)
	}
	if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.HasPrefix(n, "version 2 was not compared: it does not parse") }) {
		t.Errorf("notes %q: want version 2 noted as not compared", s.Notes)
	}
	// Within the budget, the same change passes.
	history = history[2:]
	if s = subjectOf(t, Assess(in), "hostile.long-history-value"); !s.Compatible || len(s.Findings) != 0 {
		t.Errorf("versions 3 to 6 only: compatible %v, findings %+v", s.Compatible, s.Findings)
	}
	equal(t, "version range", versionRange([]int{1, 3, 4}), "versions 1, 3 and 4")
	equal(t, "version range", versionRange([]int{2, 3, 4}), "versions 2 to 4")
}
