package avro

import (
	"slices"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"
)

// knownHambaDisagreements are the reference cases on which hamba/avro's
// SchemaCompatibility (a fresh instance per check) answers differently from the
// reference implementation, which this engine follows. doc.go explains each group.
var knownHambaDisagreements = []string{}

// TestHambaSecondOpinion runs hamba/avro's own check on every reader/writer vector and
// asserts that the cases where it disagrees with the reference are exactly the known ones.
func TestHambaSecondOpinion(t *testing.T) {
	var cases []readerWriterCase
	loadJSON(t, "reader-writer-vectors.json", &cases)
	var got []string
	for _, c := range cases {
		r := mustParse(t, "reader.avsc", c.Reader)
		w := mustParse(t, "writer.avsc", c.Writer)
		err := avro.NewSchemaCompatibility().Compatible(r.Avro(), w.Avro())
		if (err == nil) != c.Compatible {
			got = append(got, c.Name)
			t.Logf("%s: hamba says compatible=%v (%v), reference says %v", c.Name, err == nil, err, c.Compatible)
		}
	}
	if !slices.Equal(got, knownHambaDisagreements) {
		t.Errorf("hamba disagreements changed:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(knownHambaDisagreements, "\n     "))
	}
}

// hambaCraftedCases are cases outside the reference vectors where hamba/avro's check
// answers differently from this engine (and from the reference implementation).
var hambaCraftedCases = []struct {
	name           string
	reader, writer string
	compatible     bool // the reference implementation's answer, and ours
}{
	{
		// Java looks a reader field up by its own name first, then by its aliases;
		// hamba takes the first writer field (in writer order) matching either.
		name:       "reader field name wins over an alias that matches an earlier writer field",
		reader:     `{"type":"record","name":"R","fields":[{"name":"a","type":"int","aliases":["b"]}]}`,
		writer:     `{"type":"record","name":"R","fields":[{"name":"b","type":"string"},{"name":"a","type":"int"}]}`,
		compatible: true,
	},
}

func TestHambaCraftedDisagreements(t *testing.T) {
	ix := newRuleIndex()
	for _, c := range hambaCraftedCases {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, "reader.avsc", []byte(c.reader))
			w := mustParse(t, "writer.avsc", []byte(c.writer))
			ours := len(resolve(ix, r, w)) == 0
			if ours != c.compatible {
				t.Fatalf("ours: compatible=%v, want %v", ours, c.compatible)
			}
			herr := avro.NewSchemaCompatibility().Compatible(r.Avro(), w.Avro())
			if (herr == nil) == c.compatible {
				t.Fatalf("hamba now agrees (compatible=%v): remove the case from the known list and doc.go", herr == nil)
			}
		})
	}
}

// TestHambaSharedInstanceIsStale shows why every hamba check above uses a fresh
// SchemaCompatibility: its cache is keyed by the schemas' canonical-form fingerprints,
// which leave out defaults and aliases, so a reused instance answers a later question
// with an earlier one's result.
func TestHambaSharedInstanceIsStale(t *testing.T) {
	writer := mustParse(t, "w.avsc", []byte(`{"type":"record","name":"R","fields":[]}`))
	withDefault := mustParse(t, "r1.avsc", []byte(`{"type":"record","name":"R","fields":[{"name":"x","type":"int","default":0}]}`))
	noDefault := mustParse(t, "r2.avsc", []byte(`{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}`))
	shared := avro.NewSchemaCompatibility()
	if err := shared.Compatible(withDefault.Avro(), writer.Avro()); err != nil {
		t.Fatalf("with default: %v", err)
	}
	if err := shared.Compatible(noDefault.Avro(), writer.Avro()); err != nil {
		t.Fatalf("hamba's shared instance is no longer stale (%v): update doc.go", err)
	}
	if err := avro.NewSchemaCompatibility().Compatible(noDefault.Avro(), writer.Avro()); err == nil {
		t.Fatal("a fresh hamba instance accepts a reader field without default")
	}
	if len(resolve(newRuleIndex(), noDefault, writer)) == 0 {
		t.Fatal("our check accepts a reader field without default")
	}
}

// resolve checks that data written with writer can be read with reader.
func resolve(ix *ruleIndex, reader, writer *Schema) []issue {
	issues, _ := resolveCounted(ix, reader, writer)
	return issues
}
