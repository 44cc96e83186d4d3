package protobuf

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// moduleCases is how many generated module edits the tests compare.
const moduleCases = 320

// TestModuleEditsCover checks, without buf, that the generated module edits compile
// with our compiler and cover what the differential test is for: modules of 2, 3 and
// 4 files, two packages importing each other in different modules, and every edit
// kind.
func TestModuleEditsCover(t *testing.T) {
	cases := generatedModuleEdits(moduleCases)
	sizes := map[int]int{}
	edges := map[[2]string]bool{}
	edits := map[string]int{}
	for _, tc := range cases {
		for _, files := range []map[string]string{tc.prev, tc.next} {
			if _, err := Parse(tc.root, mapResolver(files), ""); err != nil {
				t.Fatalf("%s does not compile: %v\n%s", tc.name, err, files)
			}
		}
		sizes[len(tc.prev)]++
		for _, e := range tc.edges {
			edges[e] = true
		}
		_, names, _ := strings.Cut(tc.name, "/")
		for _, n := range strings.Split(names, "+") {
			edits[n]++
		}
	}
	for n := 2; n <= 4; n++ {
		if sizes[n] == 0 {
			t.Errorf("no module of %d files", n)
		}
	}
	both := 0
	for e := range edges {
		if edges[[2]string{e[1], e[0]}] {
			both++
		}
	}
	if both == 0 {
		t.Errorf("no two packages import each other in different modules")
	}
	for _, e := range moduleEdits {
		if edits[e.name] == 0 {
			t.Errorf("edit %s never applied", e.name)
		}
	}
	t.Logf("%d cases; modules by file count %v; %d package pairs imported both ways", len(cases), sizes, both/2)
}

// TestBufDifferentialModules runs buf breaking and our rules on every generated
// module edit, with WIRE and WIRE_JSON together: the rule ids, files and positions
// must be the same.
func TestBufDifferentialModules(t *testing.T) {
	bin := bufBinary(t)
	const cats = RulesWire + "," + RulesWireJSON
	var findings, disagree int
	fired := map[string]int{}
	for _, tc := range generatedModuleEdits(moduleCases) {
		var theirs, ours []string
		for _, a := range bufBreaking(t, bin, cats, tc.prev, tc.next) {
			file := strings.TrimPrefix(strings.TrimPrefix(a.Path, "next/"), "prev/")
			theirs = append(theirs, fmt.Sprintf("%s %s:%d:%d", a.Type, file, a.StartLine, a.StartColumn))
			fired[a.Type]++
		}
		for _, f := range ourFindings(t, cats, tc.root, tc.prev, tc.next) {
			ours = append(ours, fmt.Sprintf("%s %s:%d:%d", f.Rule, f.File, f.Line, f.Column))
		}
		sort.Strings(theirs)
		sort.Strings(ours)
		findings += len(theirs)
		if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
			disagree++
			t.Errorf("%s: findings differ\n ours: %q\n  buf: %q\n--- previous:\n%s--- next:\n%s", tc.name, ours, theirs, renderModule(tc.prev), renderModule(tc.next))
		}
	}
	t.Logf("%d module edits compared, %d buf findings, %d disagreements; findings by rule: %v", moduleCases, findings, disagree, fired)
}

// renderModule prints a module's files in path order, for failure messages.
func renderModule(files map[string]string) string {
	var b strings.Builder
	for _, p := range sortedKeys(files) {
		fmt.Fprintf(&b, "// %s\n%s", p, files[p])
	}
	return b.String()
}
