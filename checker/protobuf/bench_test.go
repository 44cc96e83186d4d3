package protobuf

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
)

// The benchmark set: root.proto imports benchParts files; together they hold 300
// messages and 5,000 fields. The edited version applies 50 edits spread over them.
const (
	benchParts    = 10
	benchMessages = 300
	benchFields   = 5000
	benchEdits    = 50
)

var benchTypes = []string{"string", "int32", "int64", "uint32", "bool", "double", "bytes", "sint64", "fixed32", "float"}

// benchSet returns the files of the benchmark set, edited or not, by name.
func benchSet(edited bool) map[string]string {
	perPart := benchMessages / benchParts
	files := map[string]string{}
	fieldsLeft := benchFields
	msgsLeft := benchMessages
	var root strings.Builder
	root.WriteString("syntax = \"proto3\";\npackage bench;\n\n")
	edit := 0
	for p := 0; p < benchParts; p++ {
		fmt.Fprintf(&root, "import \"part_%02d.proto\";\n", p)
		f := &pFile{syntax: "proto3", pkg: "bench"}
		for m := 0; m < perPart; m++ {
			n := fieldsLeft / msgsLeft
			fieldsLeft -= n
			msgsLeft--
			msg := &pMsg{name: fmt.Sprintf("M%02d_%02d", p, m)}
			for i := 0; i < n; i++ {
				fd := &pField{typ: benchTypes[(p+m+i)%len(benchTypes)], name: fmt.Sprintf("f_%d", i+1), num: i + 1}
				if i == n-1 && m > 0 {
					fd.typ = fmt.Sprintf("M%02d_%02d", p, m-1)
				}
				if i == 1 && m%5 == 0 {
					fd.typ = fmt.Sprintf("E%02d", p)
				}
				msg.fields = append(msg.fields, fd)
			}
			f.msgs = append(f.msgs, msg)
		}
		f.enums = []*pEnum{{name: fmt.Sprintf("E%02d", p), values: []pValue{{fmt.Sprintf("E%02d_ZERO", p), 0}, {fmt.Sprintf("E%02d_ONE", p), 1}, {fmt.Sprintf("E%02d_TWO", p), 2}}}}
		if edited {
			for k := 0; k < benchEdits/benchParts; k++ {
				applyBenchEdit(f, edit)
				edit++
			}
		}
		files[fmt.Sprintf("part_%02d.proto", p)] = f.render()
	}
	root.WriteString("\nmessage Root {\n")
	for p := 0; p < benchParts; p++ {
		fmt.Fprintf(&root, "  M%02d_%02d part_%02d = %d;\n", p, perPart-1, p, p+1)
	}
	root.WriteString("}\n")
	files["root.proto"] = root.String()
	return files
}

// applyBenchEdit makes the k-th edit of the set: renames, type changes, deletions,
// additions, json names and enum values, in turn.
func applyBenchEdit(f *pFile, k int) {
	m := f.msgs[(k*7)%len(f.msgs)]
	fd := m.fields[(k*3)%(len(m.fields)-2)+2]
	switch k % 5 {
	case 0:
		fd.name += "_renamed"
	case 1:
		fd.typ = "sfixed64"
	case 2:
		m.fields = append(m.fields[:2], m.fields[3:]...)
	case 3:
		m.fields = append(m.fields, &pField{typ: "string", name: "added", num: 900})
	case 4:
		fd.jsonName = "jsonRenamed"
		f.enums[0].values = f.enums[0].values[:2]
	}
}

func parseBenchSet(tb testing.TB, files map[string]string) *Schema {
	s, err := Parse("root.proto", mapResolver(files), "Root")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestBenchSetShape keeps the benchmark honest about its size.
func TestBenchSetShape(t *testing.T) {
	prev := parseBenchSet(t, benchSet(false))
	next := parseBenchSet(t, benchSet(true))
	var msgs, fields int
	for _, f := range moduleFiles(prev) {
		walkMessages(f.Messages(), func(md protoreflect.MessageDescriptor) {
			msgs++
			fields += md.Fields().Len()
		})
	}
	msgs-- // Root
	fields -= benchParts
	if msgs != benchMessages || fields != benchFields {
		t.Fatalf("benchmark set has %d messages and %d fields, want %d and %d", msgs, fields, benchMessages, benchFields)
	}
	res := Check([]*Schema{prev}, next, checker.Backward, RulesWireJSON)
	if res.Compatible || len(res.Findings) < benchEdits {
		t.Fatalf("the %d edits gave only %d findings", benchEdits, len(res.Findings))
	}
}

// BenchmarkCheckWireJSON is our side of the comparison with buf: parse both versions
// of the benchmark set and run the registry level and the WIRE_JSON rules.
func BenchmarkCheckWireJSON(b *testing.B) {
	prevFiles, nextFiles := benchSet(false), benchSet(true)
	for b.Loop() {
		prev := parseBenchSet(b, prevFiles)
		next := parseBenchSet(b, nextFiles)
		Check([]*Schema{prev}, next, checker.Backward, RulesWireJSON)
	}
}

// writeBenchModules writes the set as two buf modules, prev/ and next/, using
// WIRE_JSON.
func writeBenchModules(t testing.TB, root string) {
	writeBufModule(t, filepath.Join(root, "prev"), RulesWireJSON, benchSet(false))
	writeBufModule(t, filepath.Join(root, "next"), RulesWireJSON, benchSet(true))
}

// TestBenchVsBuf times, in one run, whole processes of `buf breaking` and (when
// CONTRACTBOT_BIN names a built contractbot) `contractbot compat` on the benchmark
// set, plus our in-process Parse+Check, and logs the ratio. It needs CONTRACTBOT_BUF.
func TestBenchVsBuf(t *testing.T) {
	bin := bufBinary(t)
	root := t.TempDir()
	if dir := os.Getenv("CONTRACTBOT_BENCH_DIR"); dir != "" {
		root = dir
	}
	writeBenchModules(t, root)
	const runs = 10
	timeIt := func(name string, cmd func() *exec.Cmd) time.Duration {
		var best, total time.Duration
		for i := 0; i < runs; i++ {
			c := cmd()
			c.Dir = root
			start := time.Now()
			out, err := c.CombinedOutput()
			d := time.Since(start)
			var ee *exec.ExitError
			if ok := errors.As(err, &ee); err != nil && (!ok || ee.ExitCode() > 100 || ee.ExitCode() == 2) {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			total += d
			if best == 0 || d < best {
				best = d
			}
		}
		t.Logf("%-40s mean %8.1f ms  best %8.1f ms  (%d runs)", name, float64(total.Microseconds())/runs/1000, float64(best.Microseconds())/1000, runs)
		return total / runs
	}
	bufMean := timeIt("buf breaking (WIRE_JSON)", func() *exec.Cmd {
		return exec.Command(bin, "breaking", "next", "--against", "prev", "--error-format", "json")
	})
	if cb := os.Getenv("CONTRACTBOT_BIN"); cb != "" {
		ourMean := timeIt("contractbot compat --rules WIRE_JSON", func() *exec.Cmd {
			return exec.Command(cb, "compat", "--format", "protobuf", "--rules", "WIRE_JSON", "prev/root.proto", "next/root.proto")
		})
		t.Logf("whole process: buf/contractbot = %.2f", float64(bufMean)/float64(ourMean))
	}
	prevFiles, nextFiles := benchSet(false), benchSet(true)
	// The same findings as buf, by rule id and position.
	theirs := runBufBreaking(t, bin, RulesWireJSON, prevFiles, nextFiles)
	var ours []string
	for _, f := range runRules(RulesWireJSON, parseBenchSet(t, prevFiles), parseBenchSet(t, nextFiles)) {
		ours = append(ours, fmt.Sprintf("%s %d:%d", f.Rule, f.Line, f.Column))
	}
	sort.Strings(ours)
	if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("benchmark set: our WIRE_JSON findings differ from buf's\n ours: %q\n  buf: %q", ours, theirs)
	}
	t.Logf("benchmark set: %d WIRE_JSON findings, the same as buf's", len(ours))
	start := time.Now()
	for i := 0; i < runs; i++ {
		Check([]*Schema{parseBenchSet(t, prevFiles)}, parseBenchSet(t, nextFiles), checker.Backward, RulesWireJSON)
	}
	inProc := time.Since(start) / runs
	t.Logf("%-40s mean %8.1f ms", "in-process Parse+Check (WIRE_JSON)", float64(inProc.Microseconds())/1000)
	t.Logf("in-process: buf/ours = %.2f", float64(bufMean)/float64(inProc))
}
