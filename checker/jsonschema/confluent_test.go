package jsonschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// corpusDir holds 150 examples (copied from shared/testdata/confluent-jsonschema) from the Confluent Schema Registry's own JSON Schema
// diff tests (see its SOURCE.md), each with the registry's BACKWARD verdict and the
// difference types it finds.
const corpusDir = "testdata/confluent"

type corpusExample struct {
	Description string          `json:"description"`
	Original    json.RawMessage `json:"original_schema"`
	Update      json.RawMessage `json:"update_schema"`
	Changes     []string        `json:"changes"`
	Compatible  bool            `json:"compatible"`
}

// departures lists the examples where this engine knowingly differs from the
// registry, by file and index, with the reason; docs/verdict.md explains each.
var departures = map[string]string{}

var trailingComma = regexp.MustCompile(`,(\s*[}\]])`)

func loadCorpus(t testing.TB, name string) []corpusExample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatalf("read the corpus: %v", err)
	}
	data = trailingComma.ReplaceAll(data, []byte("$1"))
	var out []corpusExample
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return out
}

// TestConfluentCorpus checks every example of the registry's corpus: the same
// BACKWARD verdict, and the same set of difference types at the same paths.
func TestConfluentCorpus(t *testing.T) {
	files := []string{"diff-schema-examples.json", "diff-combined-schema-examples.json", "diff-combined-schema-examples-2020-12.json"}
	total, same := 0, 0
	for _, file := range files {
		for i, ex := range loadCorpus(t, file) {
			total++
			id := fmt.Sprintf("%s#%d", file, i)
			t.Run(id, func(t *testing.T) {
				orig, err := Parse(checker.ParseInput{Input: checker.Input{Path: "original.json", Data: ex.Original}})
				if err != nil {
					t.Fatalf("%s: original does not parse: %v", ex.Description, err)
				}
				upd, err := Parse(checker.ParseInput{Input: checker.Input{Path: "update.json", Data: ex.Update}})
				if err != nil {
					t.Fatalf("%s: update does not parse: %v", ex.Description, err)
				}
				var got []string
				for _, d := range differences(orig.root, upd.root) {
					got = append(got, d.typ+" "+d.path)
				}
				slices.Sort(got)
				got = slices.Compact(got)
				want := slices.Clone(ex.Changes)
				slices.Sort(want)
				res := Check([]*Schema{orig}, upd, checker.Backward)
				ok := res.Compatible == ex.Compatible && slices.Equal(got, want)
				if why, known := departures[id]; known {
					if ok {
						t.Errorf("%s: listed as a departure (%s) but now agrees with the registry; remove it from departures and docs/verdict.md", ex.Description, why)
					}
					return
				}
				if !ok {
					t.Errorf("%s:\n compatible %v, registry %v\n differences %s\n registry    %s", ex.Description,
						res.Compatible, ex.Compatible, strings.Join(got, ", "), strings.Join(want, ", "))
					return
				}
				same++
			})
		}
	}
	if total != 150 {
		t.Errorf("the corpus has %d examples, want 150", total)
	}
	t.Logf("%d of %d examples agree with the registry; %d listed departures", same, total, len(departures))
}
