package change

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// withImportersFull is WithImporters as it was before the import index: every subject
// folder listed and every schema that can import read, whatever the source.
func withImportersFull(src contract.Source, dirs []string) ([]string, error) {
	if !anyImportable(src, dirs) {
		return dirs, nil
	}
	all, err := contract.SubjectDirs(src)
	if err != nil {
		return nil, err
	}
	imports := map[string][]string{}
	for _, dir := range all {
		entries, err := src.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			eng := contract.ImporterOf(e.Name)
			if e.Dir || e.Symlink || eng == nil {
				continue
			}
			data, err := src.ReadFile(dir+"/"+e.Name, contract.MaxSchemaBytes)
			if err != nil {
				continue
			}
			for _, p := range eng.Imports(data) {
				if contract.CheckPath(p) != nil {
					continue
				}
				if i := strings.LastIndexByte(p, '/'); i > 0 {
					imports[dir] = append(imports[dir], contract.ContractsDir+"/"+p[:i])
				}
			}
		}
	}
	return withImportersOf(dirs, imports), nil
}

// protoFile is a Protobuf schema importing the files of imports (paths under contracts/).
func protoFile(name string, imports []string, note string) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage gen;\n")
	for _, p := range imports {
		fmt.Fprintf(&b, "import %q;\n", p)
	}
	fmt.Fprintf(&b, "// %s\nmessage %s { string id = 1; }\n", note, strings.ReplaceAll(name, "-", "_"))
	return b.String()
}

// The import index gives WithImporters the folders the full read gives, on generated
// revisions: imports across domains, chains of imports, imports of missing files, a
// changed imported file, a deleted imported folder, two domains of the same tree;
// each revision asked cold (its changed domains never read) and warm.
func TestWithImportersIndexAgrees(t *testing.T) {
	r := testutil.NewRepo(t)
	rng := rand.New(rand.NewPCG(1, 2))
	domains := []string{"alpha", "beta", "gamma", "delta", "eps"}
	var subjects []string // domain/subject
	for _, d := range domains {
		for i := range 8 {
			subjects = append(subjects, fmt.Sprintf("%s/s%d", d, i))
		}
	}
	file := func(s string) string { return s + "/" + strings.ReplaceAll(s, "/", "_") + ".proto" }
	write := func(s string, imports []string, note string) {
		r.Write("contracts/"+s+"/contract.yaml", "subject: "+strings.ReplaceAll(s, "/", ".")+"-value\nformat: protobuf\n")
		r.Write("contracts/"+file(s), protoFile(strings.ReplaceAll(s, "/", "_"), imports, note))
	}
	for i, s := range subjects {
		if i%7 == 3 { // an Avro subject: nothing to import
			r.Write("contracts/"+s+"/contract.yaml", "subject: x\nformat: avro\n")
			r.Write("contracts/"+s+"/schema.avsc", `{"type": "record", "name": "r", "fields": []}`)
			continue
		}
		var imports []string
		for range rng.IntN(3) {
			if j := rng.IntN(len(subjects)); j < i { // earlier subjects only: chains, no cycles
				imports = append(imports, file(subjects[j]))
			}
		}
		if i%11 == 5 {
			imports = append(imports, "ghost/none/missing.proto")
		}
		write(s, imports, "v1")
	}
	// The same tree in two domains: the index keeps what a domain imports by tree.
	for _, d := range []string{"twin1", "twin2"} {
		r.Write("contracts/"+d+"/x/contract.yaml", "subject: twin\n")
		r.Write("contracts/"+d+"/x/x.proto", protoFile("x", []string{file(subjects[0])}, "twin"))
	}
	r.Commit("c1")
	write(subjects[0], nil, "v2") // a changed imported file
	r.Commit("c2")
	write(subjects[len(subjects)-1], []string{file(subjects[len(subjects)-2]), "ghost/none/missing.proto"}, "v3") // a new chain
	write("ghost/none", nil, "now there")                                                                         // the missing file appears
	r.Commit("c3")
	must(t, os.RemoveAll(filepath.Join(r.Dir, "contracts", subjects[1]))) // an imported folder deleted
	r.Commit("c4")

	var asks [][]string
	for _, s := range append(slices.Clone(subjects), "ghost/none", "twin1/x") {
		asks = append(asks, []string{"contracts/" + s})
	}
	asks = append(asks, []string{"contracts/" + subjects[0], "contracts/" + subjects[9]})
	widest := 0
	for pass := range 2 {
		for _, rev := range []string{"HEAD~3", "HEAD~2", "HEAD~1", "HEAD"} {
			src := revision(t, r, rev)
			for _, dirs := range asks {
				want, err := withImportersFull(src, dirs)
				must(t, err)
				got, err := WithImporters(src, dirs)
				must(t, err)
				widest = max(widest, len(want)-len(dirs))
				if !slices.Equal(got, want) {
					t.Errorf("pass %d, %s, %v: got %v, want %v", pass, rev, dirs, got, want)
				}
			}
		}
	}
	if widest < 3 {
		t.Errorf("no change reached more than %d importers: the generated imports are too thin", widest)
	}
	// A working tree whose contracts/ changed is read whole, and agrees too.
	write(subjects[2], []string{file(subjects[0])}, "edited")
	wt := workTree(t, r)
	for _, dirs := range asks {
		want, err := withImportersFull(wt, dirs)
		must(t, err)
		got, err := WithImporters(wt, dirs)
		must(t, err)
		if !slices.Equal(got, want) {
			t.Errorf("working tree, %v: got %v, want %v", dirs, got, want)
		}
	}
}
