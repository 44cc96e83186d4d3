package avro

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// FuzzParseCheck feeds two texts through Parse, Check at FULL_TRANSITIVE (both
// directions), Diff, FieldPaths and Pos. Bad input must come back as an InputError with
// a position; nothing may panic. The seeds (fixtures and reference cases) run in every
// `go test`.
func FuzzParseCheck(f *testing.F) {
	for _, name := range []string{"orders", "tree"} {
		a, errA := os.ReadFile(filepath.Join("testdata", "previous", name+".avsc"))
		b, errB := os.ReadFile(filepath.Join("testdata", "current", name+".avsc"))
		if errA != nil || errB != nil {
			f.Fatalf("fixture %s missing", name)
		}
		f.Add(a, b)
	}
	var cases []readerWriterCase
	loadJSON(f, "reader-writer-vectors.json", &cases)
	for i, c := range cases {
		if i%6 == 0 {
			f.Add([]byte(c.Writer), []byte(c.Reader))
		}
	}
	f.Add([]byte(`["null", ["int"]]`), []byte(`"int"`))
	f.Add([]byte(`{"type":"record","name":"N","fields":[{"name":"n","type":["null","N"],"default":null}]}`),
		[]byte(`{"type":"record","name":"N","fields":[{"name":"n","type":["null","N"],"default":null},{"name":"v","type":"int"}]}`))
	f.Add([]byte(`{"type":"enum","name":"E","symbols":["A"],"default":"A"}`), []byte(`{"type":"enum","name":"E","symbols":["B"]}`))
	f.Add([]byte("{\"a\":\"\\ud800\"}"), []byte(`[[[[`))

	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, errOld := Parse(checker.Input{Path: "old.avsc", Data: a})
		next, errNew := Parse(checker.Input{Path: "new.avsc", Data: b})
		for _, err := range []error{errOld, errNew} {
			if err == nil {
				continue
			}
			var ie *checker.InputError
			if !errors.As(err, &ie) || ie.Line < 1 || ie.Column < 1 || ie.Message == "" {
				t.Fatalf("bad input error without a position: %#v", err)
			}
		}
		if errOld != nil || errNew != nil {
			return
		}
		res := Check([]*Schema{old, next}, next, checker.FullTransitive)
		for _, fd := range res.Findings {
			if fd.Line < 1 || fd.Column < 1 || fd.Rule == "" || fd.Message == "" || fd.Against < 1 {
				t.Fatalf("finding without place or text: %+v", fd)
			}
		}
		if res.Compatible != (len(res.Findings) == 0) {
			t.Fatalf("Compatible=%v with %d findings", res.Compatible, len(res.Findings))
		}
		for _, c := range Diff(old, next) {
			if c.Kind == "" || c.Effect == "" || c.Line < 1 {
				t.Fatalf("change without kind, effect or place: %+v", c)
			}
		}
		for _, s := range []*Schema{old, next} {
			for _, p := range s.FieldPaths() {
				if _, _, ok := s.Pos(p); !ok {
					t.Fatalf("no position for field path %q", p)
				}
			}
		}
	})
}
