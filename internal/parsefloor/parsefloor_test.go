package parsefloor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/synth"
)

// TestRunParsesEveryFile parses a generated tree (Avro, Protobuf files sharing an
// import, YAML), then the same tree with one schema broken: the floor parses for real.
func TestRunParsesEveryFile(t *testing.T) {
	dir := t.TempDir()
	st, err := synth.WriteTree(dir, synth.Options{Subjects: 40, ConsumersPerSubject: 2, Seed: 1, ProtobufShare: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Run(dir)
	if err != nil || n != st.Files {
		t.Fatalf("Run = %d files, %v; want the %d files of the tree", n, err, st.Files)
	}
	for _, ext := range []string{".avsc", ".proto", ".yaml"} {
		broken := t.TempDir()
		if _, err := synth.WriteTree(broken, synth.Options{Subjects: 40, ConsumersPerSubject: 2, Seed: 1, ProtobufShare: 0.5}); err != nil {
			t.Fatal(err)
		}
		victim := ""
		_ = filepath.WalkDir(filepath.Join(broken, "contracts"), func(p string, d os.DirEntry, err error) error {
			if err == nil && victim == "" && strings.HasSuffix(p, ext) && !strings.Contains(p, "common") {
				victim = p
			}
			return err
		})
		if err := os.WriteFile(victim, []byte("{[: not "+ext), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(broken); err == nil || !strings.Contains(err.Error(), filepath.Base(victim)) {
			t.Errorf("a broken %s file (%s): error %v, want one naming it", ext, victim, err)
		}
	}
}
