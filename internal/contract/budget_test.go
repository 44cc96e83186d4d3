package contract

import (
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/synth"
	"github.com/contractbot/contractbot/internal/testutil"
)

// A subject whose messages reuse each other 22 levels deep (issue 13): the listing of
// its field paths stops with a warning at the place it stops, and consumers' reads
// through the reused messages still resolve, however deep.
func TestDeepSchemaListingIsCutWithAWarning(t *testing.T) {
	files := testutil.ExampleFiles(t)
	dir := "contracts/hostile/deep"
	files[dir+"/contract.yaml"] = []byte("subject: hostile.deep-value\nformat: protobuf\nschema: deep.proto\ncompatibility: BACKWARD\nowner: payments\ntier: standard\nmessage: hostile.v1.M22\n")
	files[dir+"/deep.proto"] = []byte(synth.DeepProto(22, "int32"))
	deep := strings.Repeat("a.b.", 11) + "x"
	files[dir+"/consumers/reader.yaml"] = []byte("name: reader\nowner: risk\nkind: service\nreads: [" + deep + ", a.b.y]\n")
	tree, err := Load(MemSource(files))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range tree.Diagnostics {
		if strings.HasPrefix(d.File, dir) && d.Code != CodeMissingDoc {
			got = append(got, d.String())
		}
	}
	if len(got) != 2 ||
		!strings.HasPrefix(got[0], dir+"/consumers/reader.yaml:4:") || !strings.Contains(got[0], `reads field "a.b.y"`) ||
		!strings.HasPrefix(got[1], dir+"/deep.proto:") || !strings.Contains(got[1], "warning: message hostile.v1.M22 has more than") || !strings.HasSuffix(got[1], "[field-paths-cut]") {
		t.Errorf("diagnostics of the deep subject:\n%s", strings.Join(got, "\n"))
	}
	s := tree.Subject("hostile.deep-value")
	if len(s.FieldPaths()) != checker.MaxFieldPaths || !s.HasFieldPath(deep) {
		t.Errorf("%d paths listed; %s resolves: %v", len(s.FieldPaths()), deep, s.HasFieldPath(deep))
	}
}
