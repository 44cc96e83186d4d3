package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs contractbot with args and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := New()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	code := 0
	if err := cmd.Execute(); err != nil {
		var exit *ExitError
		if errors.As(err, &exit) {
			code = exit.Code
		} else {
			fmt.Fprintln(&errOut, "contractbot:", err)
			code = 2
		}
	}
	return out.String(), errOut.String(), code
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "compat", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file missing (run go test ./internal/cli/ -run Compat -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update if intended):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestCompatGolden(t *testing.T) {
	const d = "testdata/compat/"
	tests := []struct {
		name   string
		args   []string
		code   int
		golden string
	}{
		{"backward compatible", []string{"compat", d + "orders.v1.avsc", d + "orders.v2.avsc"}, 0, "compatible.txt"},
		{"backward incompatible", []string{"compat", d + "orders.v2.avsc", d + "orders.v3.avsc"}, 1, "backward.txt"},
		{"full transitive json", []string{"compat", "--level", "full_transitive", "--json", d + "orders.v1.avsc", d + "orders.v2.avsc", d + "orders.v3.avsc"}, 1, "full-transitive.json"},
		{"explicit format", []string{"compat", "--format", "avro", "--level", "FORWARD", d + "orders.v2.avsc", d + "orders.v3.avsc"}, 1, "forward.txt"},
		{"none still lists changes", []string{"compat", "--level", "NONE", d + "orders.v2.avsc", d + "orders.v3.avsc"}, 0, "none.txt"},
		{"invalid json", []string{"compat", d + "orders.v1.avsc", d + "broken.avsc"}, 2, "broken.stderr"},
		{"unknown type", []string{"compat", d + "unknown-type.avsc", d + "orders.v1.avsc"}, 2, "unknown-type.stderr"},
		{"missing file", []string{"compat", d + "orders.v1.avsc", d + "nope.avsc"}, 2, "missing.stderr"},
		{"unknown extension", []string{"compat", d + "orders.v1.avsc", d + "compatible.txt"}, 2, "no-format.stderr"},
		{"bad level", []string{"compat", "--level", "SIDEWAYS", d + "orders.v1.avsc", d + "orders.v2.avsc"}, 2, "bad-level.stderr"},
		{"rules with avro", []string{"compat", "--rules", "WIRE", d + "orders.v1.avsc", d + "orders.v2.avsc"}, 2, "rules-avro.stderr"},
		{"list rules", []string{"compat", "--list-rules"}, 0, "list-rules.txt"},
		{"list rules of one format as json", []string{"compat", "--list-rules", "--format", "protobuf", "--json"}, 0, "list-rules-protobuf.json"},
		{"list rules of an unknown format", []string{"compat", "--list-rules", "--format", "cobol"}, 2, "list-rules-unknown.stderr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			got := stdout
			if strings.HasSuffix(tt.golden, ".stderr") {
				got = stderr
				if stdout != "" {
					t.Errorf("unusable input printed to stdout: %q", stdout)
				}
			} else if stderr != "" {
				t.Errorf("unexpected stderr: %q", stderr)
			}
			checkGolden(t, tt.golden, got)
		})
	}
}

func TestCompatProtobuf(t *testing.T) {
	const d = "testdata/compat/"
	stdout, stderr, code := runCLI(t, "compat", d+"order.v1.proto", d+"order.v2.proto")
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (field type changed)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "order.v2.proto:") {
		t.Errorf("finding does not name the new file:\n%s", stdout)
	}
	stdout, stderr, code = runCLI(t, "compat", "--format", "protobuf", "--json", d+"order.v1.proto", d+"order.v1.proto")
	if code != 0 || !strings.Contains(stdout, `"compatible": true`) {
		t.Errorf("identical protobuf files: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestMain keeps the tests out of GitHub Actions mode when they themselves run in a
// workflow (GITHUB_ACTIONS=true would make check read the workflow's event); the
// Actions tests set the environment they need.
func TestMain(m *testing.M) {
	os.Unsetenv("GITHUB_ACTIONS")
	os.Exit(m.Run())
}
