package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func checkLineageGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "lineage", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file missing (go test ./internal/cli -run Lineage -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update if intended):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestLineageSQLGolden(t *testing.T) {
	const script = "../lineage/flinksql/testdata/golden/pipeline.sql"
	out, errOut, code := runCLI(t, "lineage", "sql", script)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkLineageGolden(t, "pipeline.txt", out)
	out, _, code = runCLI(t, "lineage", "sql", "--json", script)
	if code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	checkLineageGolden(t, "pipeline.json", out)
}

func TestLineageSQLErrors(t *testing.T) {
	out, errOut, code := runCLI(t, "lineage", "sql", "../lineage/flinksql/testdata/golden/errors.sql")
	if code != 1 {
		t.Fatalf("a script with broken statements: exit %d, want 1", code)
	}
	if !strings.Contains(errOut, "errors.sql:3:28: expected an expression, found the keyword FROM") {
		t.Errorf("the located error is missing: %q", errOut)
	}
	if !strings.Contains(out, "INSERT INTO sink2") {
		t.Errorf("the statements after the broken one are missing: %q", out)
	}
	_, errOut, code = runCLI(t, "lineage", "sql", "no-such.sql")
	if code != 2 || !strings.Contains(errOut, "read Flink SQL script") {
		t.Errorf("a missing file: exit %d %q", code, errOut)
	}
}
