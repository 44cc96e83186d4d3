package web

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/verdict"
)

// TestFormatSeam registers a toy format through the table of formats and shows that
// it flows, without any other edit, through lint (the loader), check (the verdict) and
// the pages: adding a format is one package and one table row.
func TestFormatSeam(t *testing.T) {
	t.Cleanup(formats.Register(linesEngine{}))

	const dir = "contracts/orders/order-lines"
	files := testutil.ExampleFiles(t)
	files[dir+"/contract.yaml"] = []byte("subject: orders.order-lines-value\nformat: lines\nschema: order_lines.lines\ncompatibility: BACKWARD\nowner: orders\n")
	files[dir+"/order_lines.lines"] = []byte("# one field a line: name type\norder_id string\namount long\nshipping.city string\n")
	files[dir+"/consumers/lines-reader.yaml"] = []byte("name: lines-reader\nowner: data-warehouse\nkind: service\nreads: [order_id, amount]\n")

	// Lint: the engine parses the schema, and its field paths check the consumers.
	base, err := contract.Load(contract.MemSource(files))
	if err != nil {
		t.Fatal(err)
	}
	if ds := diagnosticsUnder(base, dir); len(ds) != 0 {
		t.Fatalf("the toy subject does not load clean: %v", ds)
	}
	if got := base.Subject("orders.order-lines-value").FieldPaths(); !slices.Equal(got, []string{"amount", "order_id", "shipping.city"}) {
		t.Errorf("field paths %v, want the three fields of the schema", got)
	}
	broken := maps.Clone(files)
	broken[dir+"/consumers/lines-reader.yaml"] = []byte("name: lines-reader\nowner: data-warehouse\nkind: service\nreads: [order_id, amount, shipping.zip]\n")
	broken[dir+"/order_lines.lines"] = []byte("order_id string\namount\nshipping.city string\n")
	bt, err := contract.Load(contract.MemSource(broken))
	if err != nil {
		t.Fatal(err)
	}
	if ds := diagnosticsUnder(bt, dir); len(ds) != 1 || ds[0].Code != contract.CodeSchemaInvalid || ds[0].File != dir+"/order_lines.lines" || ds[0].Line != 2 {
		t.Errorf("a broken toy schema: diagnostics %v, want one schema-invalid at order_lines.lines:2", ds)
	}
	broken[dir+"/order_lines.lines"] = files[dir+"/order_lines.lines"]
	bt, err = contract.Load(contract.MemSource(broken))
	if err != nil {
		t.Fatal(err)
	}
	if ds := diagnosticsUnder(bt, dir); len(ds) != 1 || ds[0].Code != contract.CodeUnknownField {
		t.Errorf("a consumer reading a field the toy schema lacks: diagnostics %v, want one unknown-field", ds)
	}

	// Check: the verdict runs the engine's level check and diff; impact follows.
	headFiles := maps.Clone(files)
	headFiles[dir+"/order_lines.lines"] = []byte("# one field a line: name type\norder_id string\namount string\nshipping.city string\ncoupon string\n")
	head, err := contract.Load(contract.MemSource(headFiles))
	if err != nil {
		t.Fatal(err)
	}
	rep := verdict.Assess(verdict.Input{Base: base, Head: head, Now: pagesNow, OpenedAt: pagesNow})
	if len(rep.Subjects) != 1 {
		t.Fatalf("%d changed subjects, want the toy one", len(rep.Subjects))
	}
	sr := rep.Subjects[0]
	if sr.Subject != "orders.order-lines-value" || sr.Format != "lines" || sr.Class != verdict.Breaking || sr.Compatible || sr.Error != "" {
		t.Errorf("subject report %+v, want the toy subject BREAKING and incompatible", sr)
	}
	var got []string
	for _, f := range sr.Findings {
		got = append(got, fmt.Sprintf("%s %s %s:%d:%d", f.Rule, f.Path, f.File, f.Line, f.Column))
	}
	want := []string{
		"LINES_TYPE_CHANGED amount contracts/orders/order-lines/order_lines.lines:3:1",
		"LINES_FIELD_MISSING coupon contracts/orders/order-lines/order_lines.lines:5:1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = nil
	for _, c := range sr.Changes {
		got = append(got, fmt.Sprintf("%s %s %s", c.Kind, c.Path, c.Effect))
	}
	if want := []string{"type_changed amount breaking", "added coupon harmless"}; !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	if len(sr.Affected) != 1 || sr.Affected[0].Consumer.Name != "lines-reader" {
		t.Errorf("affected %+v, want lines-reader (it reads amount)", sr.Affected)
	}
	if text := verdict.Text(rep); !strings.Contains(text, "LINES_TYPE_CHANGED") || !strings.Contains(text, "lines-reader") {
		t.Errorf("the text report does not show the toy engine's finding and the consumer:\n%s", text)
	}

	// The pages: the subject page renders the toy subject, its fields and its text.
	repo := testutil.NewRepo(t)
	for name, data := range files {
		p := filepath.Join(repo.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo.Commit("example tree with a toy-format subject")
	resp, body := get(t, pagesServer(t, repo.Git), "/subjects/orders.order-lines-value")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the toy subject's page: %s\n%s", resp.Status, body)
	}
	for _, s := range []string{"<dd>lines</dd>", "shipping.city", "lines-reader", "# one field a line: name type"} {
		if !strings.Contains(body, s) {
			t.Errorf("the toy subject's page lacks %q", s)
		}
	}
}

// diagnosticsUnder returns a tree's diagnostics in files under dir.
func diagnosticsUnder(tree *contract.Tree, dir string) contract.Diagnostics {
	var out contract.Diagnostics
	for _, d := range tree.Diagnostics {
		if strings.HasPrefix(d.File, dir+"/") {
			out = append(out, d)
		}
	}
	return out
}

// linesEngine is a toy format: one field a line, `name type`, '#' starts a comment.
// Every field is required: a reader's field the writer lacks fails, and so does a
// field whose type changed.
type linesEngine struct{}

type linesSchema struct {
	file   string
	fields map[string]string // name -> type
	lines  map[string]int    // name -> line
}

func (linesEngine) Describe() checker.Description {
	return checker.Description{Format: "lines", Name: "Lines", Extensions: []string{".lines"}, RegistryType: "LINES"}
}

func (linesEngine) Parse(src checker.ParseInput) (checker.Schema, error) {
	s := &linesSchema{file: src.Path, fields: map[string]string{}, lines: map[string]int{}}
	for i, l := range strings.Split(string(src.Data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		if len(f) != 2 {
			return nil, &checker.InputError{Span: located.Span{File: src.Path, Line: i + 1, Column: 1}, Message: "write one field a line as `name type`"}
		}
		s.fields[f[0]], s.lines[f[0]] = f[1], i+1
	}
	return s, nil
}

func (linesEngine) Check(previous []checker.Version, next checker.Schema, level checker.Level, _ string) *checker.Result {
	n := next.(*linesSchema)
	return checker.CheckLevel(level, previous, n, checker.Pairwise{
		Compare: func(p checker.Schema, dir checker.Direction, against int) []checker.Finding {
			prev := p.(*linesSchema)
			reader, writer := n, prev
			if dir == checker.OldReadsNew {
				reader, writer = prev, n
			}
			var out []checker.Finding
			for _, name := range slices.Sorted(maps.Keys(reader.fields)) {
				at := n
				if _, ok := n.lines[name]; !ok {
					at = prev
				}
				f := checker.Finding{Path: name, Span: located.Span{File: at.file, Line: at.lines[name], Column: 1}, Against: against, Direction: dir}
				switch wt, ok := writer.fields[name]; {
				case !ok:
					f.Rule, f.Message = "LINES_FIELD_MISSING", fmt.Sprintf("field %q is missing from the writer's data.", name)
				case wt != reader.fields[name]:
					f.Rule, f.Message = "LINES_TYPE_CHANGED", fmt.Sprintf("field %q changed type.", name)
				default:
					continue
				}
				out = append(out, f)
			}
			return out
		},
	})
}

func (linesEngine) Diff(old, next checker.Schema) []checker.Change {
	o, n := old.(*linesSchema), next.(*linesSchema)
	var out []checker.Change
	for _, name := range slices.Sorted(maps.Keys(o.fields)) {
		switch nt, ok := n.fields[name]; {
		case !ok:
			out = append(out, checker.Change{Kind: checker.FieldRemoved, Path: name, Effect: checker.Breaks, Message: "removed"})
		case nt != o.fields[name]:
			out = append(out, checker.Change{Kind: checker.TypeChanged, Path: name, Old: o.fields[name], New: nt, Effect: checker.Breaks, File: n.file, Line: n.lines[name], Column: 1, Message: "type changed"})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(n.fields)) {
		if _, ok := o.fields[name]; !ok {
			out = append(out, checker.Change{Kind: checker.FieldAdded, Path: name, Effect: checker.Harmless, File: n.file, Line: n.lines[name], Column: 1, Message: "added"})
		}
	}
	return out
}

func (linesEngine) Imports([]byte) []string { return nil }

func (e linesEngine) Compat(previous []checker.Input, next checker.Input, opts checker.Options) (*checker.Result, error) {
	var prev []checker.Version
	for _, in := range previous {
		s, err := e.Parse(checker.ParseInput{Input: in})
		if err != nil {
			return nil, err
		}
		prev = append(prev, checker.Version{Schema: s})
	}
	n, err := e.Parse(checker.ParseInput{Input: next})
	if err != nil {
		return nil, err
	}
	return e.Check(prev, n, opts.Level, ""), nil
}

func (linesEngine) RuleTables() []checker.RuleTable {
	return []checker.RuleTable{{Name: "Lines", Applies: "At every level but NONE.", Rules: []checker.Rule{
		{ID: "LINES_FIELD_MISSING", Purpose: "Every field the reader has is in the writer's data."},
		{ID: "LINES_TYPE_CHANGED", Purpose: "A field keeps its type."},
	}}}
}

func (s *linesSchema) Format() checker.Format { return "lines" }

func (s *linesSchema) FieldPaths() []string { return slices.Sorted(maps.Keys(s.fields)) }

func (s *linesSchema) Pos(path string) (int, int, bool) {
	l, ok := s.lines[path]
	return l, 1, ok
}

func (s *linesSchema) Dependencies() []string { return nil }

func (s *linesSchema) FieldGraph() *checker.FieldGraph {
	return checker.GraphOfPaths(s.FieldPaths())
}

func (s *linesSchema) FieldPathsCut() *checker.InputError { return nil }
