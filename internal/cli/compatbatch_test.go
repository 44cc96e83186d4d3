package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
)

func TestCompatBatchGolden(t *testing.T) {
	out, stderr, code := runCLI(t, "compat", "--batch", "testdata/compat/batch.jsonl")
	if code != 2 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 2 (some lines unusable) and no stderr", code, stderr)
	}
	checkGolden(t, "batch.out.jsonl", out)
}

func TestCompatBatchStdin(t *testing.T) {
	in, err := os.ReadFile("testdata/compat/batch.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(in), "\n", 2)[0] + "\n"
	cmd := New()
	var out strings.Builder
	cmd.SetIn(strings.NewReader(first + first))
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"compat", "--batch", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("two compatible pairs: %v\n%s", err, out.String())
	}
	if n := strings.Count(out.String(), `"compatible":true`); n != 2 {
		t.Errorf("want two compatible results, got:\n%s", out.String())
	}
}

func TestCompatBatchIncompatibleExit(t *testing.T) {
	in, err := os.ReadFile("testdata/compat/batch.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(in), "\n") {
		if strings.Contains(l, `"paths-compatible"`) || strings.Contains(l, `"text-incompatible"`) {
			keep = append(keep, l)
		}
	}
	path := t.TempDir() + "/pairs.jsonl"
	if err := os.WriteFile(path, []byte(strings.Join(keep, "\n")), 0o644); err != nil { // no final newline
		t.Fatal(err)
	}
	out, _, code := runCLI(t, "compat", "--batch", path)
	if code != 1 || strings.Count(out, "\n") != 2 {
		t.Errorf("exit %d, want 1 with two result lines:\n%s", code, out)
	}
}

func TestCompatBatchBudgetAndLimits(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	old := checkPair
	checkPair = func(p *batchPair) (*checker.Result, error) {
		if p.ID == "slow" {
			<-release
		}
		return old(p)
	}
	defer func() { checkPair = old }()
	in := `{"id":"slow","old":[],"new":{"path":"testdata/compat/orders.v1.avsc"}}` + "\n" +
		`{"id":"huge","new":{"text":"` + strings.Repeat("x", batchLineLimit) + `"}}` + "\n" +
		`{"id":"after","old":[],"new":{"path":"testdata/compat/orders.v1.avsc"}}` + "\n"
	var out strings.Builder
	err := runCompatBatch(strings.NewReader(in), &out, 50*time.Millisecond)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want three result lines, got %d:\n%.2000s", len(lines), out.String())
	}
	for i, want := range []string{"over the budget of 50ms", "longer than 16 MiB", `"compatible":true`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: want %q in %s", i+1, want, lines[i])
		}
	}
	if err == nil {
		t.Error("want exit status 2 for the unusable lines")
	}
}
