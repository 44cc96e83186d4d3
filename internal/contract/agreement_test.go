package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// refines maps the loader's more precise codes to the one a JSON Schema can give.
var refines = map[string]string{
	CodeBadTime:      CodeInvalidValue,
	CodeFormatOption: CodeInvalidValue,
	CodePathEscape:   CodeInvalidValue,
	CodeUnknownField: CodeInvalidValue,
}

// TestLoaderAgreesWithJSONSchemas puts each bad file of docs/schemas/testdata/bad in
// its place in the example tree and checks that the loader reports the code the file
// names (the JSON Schema half of the agreement is docs/schemas/schemas_test.go).
func TestLoaderAgreesWithJSONSchemas(t *testing.T) {
	badRoot := filepath.Join(testutil.RepoRoot(t), "docs", "schemas", "testdata", "bad")
	places := map[string]func(name string) string{
		"teams":          func(string) string { return TeamsFile },
		"contract":       func(string) string { return "contracts/orders/order-created/contract.yaml" },
		"consumer":       func(n string) string { return "contracts/orders/order-created/consumers/" + n },
		"calendar-entry": func(n string) string { return "calendar/" + n },
		"freezes":        func(string) string { return FreezesFile },
	}
	n := 0
	for kind, place := range places {
		files, err := filepath.Glob(filepath.Join(badRoot, kind, "*.yaml"))
		must(t, err)
		for _, p := range files {
			n++
			data, err := os.ReadFile(p)
			must(t, err)
			first, _, _ := strings.Cut(string(data), "\n")
			want := strings.TrimSpace(strings.TrimPrefix(first, "# expect:"))
			target := place(filepath.Base(p))
			t.Run(kind+"/"+filepath.Base(p), func(t *testing.T) {
				src := MemSource(testutil.ExampleFiles(t))
				src[target] = data
				tree, err := Load(src)
				must(t, err)
				got := tree.Diagnostics.ForFile(target)
				for _, d := range got {
					if d.Code == want || refines[d.Code] == want {
						return
					}
				}
				t.Errorf("%s as %s: want a %s diagnostic, got:\n%s", filepath.Base(p), target, want, formatDiagnostics(got))
			})
		}
	}
	if n < 15 {
		t.Errorf("only %d bad files found under %s", n, badRoot)
	}
}
