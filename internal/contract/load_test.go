package contract

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/testutil"

	"github.com/go-git/go-git/v5"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the output (run go test ./internal/contract -update to accept):\n--- want\n%s\n--- got\n%s", p, want, got)
	}
}

func TestLoadExampleTree(t *testing.T) {
	tree, err := Load(NewDirSource(testutil.RepoRoot(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tree.Diagnostics {
		t.Errorf("example tree: %s", d)
	}
	formats := map[string]int{}
	kinds := map[string]bool{}
	consumers := 0
	for _, s := range tree.Subjects {
		formats[s.Format]++
		if s.FieldPaths() == nil {
			t.Errorf("%s: schema not parsed", s.Subject)
		}
		for _, c := range s.Consumers {
			consumers++
			kinds[c.Kind] = true
			if c.Subject != s.Subject {
				t.Errorf("consumer %s: subject %q, want %q", c.Name, c.Subject, s.Subject)
			}
		}
	}
	if len(tree.Subjects) < 10 || formats["avro"] == 0 || formats["protobuf"] == 0 {
		t.Errorf("want at least 10 subjects in both formats, got %v", formats)
	}
	if len(tree.Teams) < 5 {
		t.Errorf("want at least 5 teams, got %d", len(tree.Teams))
	}
	for _, k := range []string{"flink-job", "sink", "dashboard", "service"} {
		if !kinds[k] {
			t.Errorf("no consumer of kind %s in the example tree", k)
		}
	}
	if got := longestLineage(tree); got < 3 {
		t.Errorf("longest produces chain is %d hops, want at least 3", got)
	}
	if len(tree.Entries) == 0 || len(tree.Freezes) == 0 {
		t.Errorf("want calendar entries and freezes, got %d and %d", len(tree.Entries), len(tree.Freezes))
	}
	oc := tree.Subject("orders.order-created-value")
	if oc == nil || !slices.Contains(oc.FieldPaths(), "product_info.detail.price") || !oc.HasFieldPath("product_info.detail.price") {
		t.Fatalf("orders.order-created-value should have product_info.detail.price")
	}
	if oc.Tier != "core" || oc.SignoffHours != 24 || oc.Owner != "orders" {
		t.Errorf("order-created: tier %q signoff %d owner %q", oc.Tier, oc.SignoffHours, oc.Owner)
	}
}

// longestLineage counts the consumer steps of the longest chain: ODS subject ->
// job -> DWD subject -> job -> DWS subject -> dashboard is three consumer steps (check
// says 2 hops: it counts the produces steps).
func longestLineage(t *Tree) int {
	var depth func(s *Subject, seen map[string]bool) int
	depth = func(s *Subject, seen map[string]bool) int {
		best := 0
		for _, c := range s.Consumers {
			hops := 1
			for target := range c.Produces {
				if ts := t.Subject(target); ts != nil && !seen[target] {
					seen[target] = true
					hops = max(hops, 1+depth(ts, seen))
					delete(seen, target)
				}
			}
			best = max(best, hops)
		}
		return best
	}
	best := 0
	for _, s := range t.Subjects {
		best = max(best, depth(s, map[string]bool{s.Subject: true}))
	}
	return best
}

func formatDiagnostics(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintln(&b, d.String())
	}
	return b.String()
}

// TestLoadBadTree loads a tree with one of each kind of mistake and pins every
// diagnostic (file, line, column, code and message) in a golden file.
func TestLoadBadTree(t *testing.T) {
	tree, err := Load(NewDirSource(badTree(t)))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "bad.golden", formatDiagnostics(tree.Diagnostics))
	codes := map[string]bool{}
	for _, d := range tree.Diagnostics {
		codes[d.Code] = true
		if d.Line < 1 || d.Column < 1 {
			t.Errorf("diagnostic without a position: %s", d)
		}
	}
	if len(codes) < 24 {
		var got []string
		for c := range codes {
			got = append(got, c)
		}
		sort.Strings(got)
		t.Errorf("want at least 24 kinds of error in the bad tree, got %d: %v", len(codes), got)
	}
}

// badTree copies testdata/bad into a temporary folder with what is made rather than
// committed, and returns the folder.
func badTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.CopyTree(t, filepath.Join("testdata", "bad"), dir)
	// Made here rather than committed: a link and a file over the size limit.
	big := filepath.Join(dir, "contracts", "orders", "huge")
	must(t, os.MkdirAll(big, 0o755))
	must(t, os.WriteFile(filepath.Join(big, "contract.yaml"), []byte("subject: orders.huge-value\nformat: avro\nschema: huge.avsc\ncompatibility: NONE\nowner: orders\n"), 0o644))
	f, err := os.Create(filepath.Join(big, "huge.avsc"))
	must(t, err)
	must(t, f.Truncate(50<<20)) // 50 MB, sparse: never read
	must(t, f.Close())
	must(t, os.Symlink("../../order-detail/order_detail.avsc", filepath.Join(dir, "contracts", "orders", "order-created", "consumers", "linked.yaml")))
	return dir
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// commitAll stages everything in the work tree and commits it.
func commitAll(t *testing.T, repo *git.Repository, msg string) {
	t.Helper()
	testutil.CommitAll(t, repo, msg, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
}

// TestLoadAtRevisionWithoutWorkingTree commits the example tree, changes it, deletes
// the whole working tree and still loads both revisions from Git objects.
func TestLoadAtRevisionWithoutWorkingTree(t *testing.T) {
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	must(t, err)
	testutil.CopyTree(t, filepath.Join(root, "contracts"), filepath.Join(dir, "contracts"))
	testutil.CopyTree(t, filepath.Join(root, "calendar"), filepath.Join(dir, "calendar"))
	commitAll(t, repo, "example tree")
	must(t, os.RemoveAll(filepath.Join(dir, "contracts", "inventory")))
	commitAll(t, repo, "drop inventory")

	for _, e := range mustReadDir(t, dir) {
		if e != ".git" {
			must(t, os.RemoveAll(filepath.Join(dir, e)))
		}
	}
	if left := mustReadDir(t, dir); len(left) != 1 {
		t.Fatalf("working tree not deleted: %v", left)
	}
	prev, err := OpenRevision(dir, "HEAD~1")
	must(t, err)
	old, err := Load(prev)
	must(t, err)
	head, err := OpenRevision(dir, "HEAD")
	must(t, err)
	cur, err := Load(head)
	must(t, err)
	want, err := Load(NewDirSource(root))
	must(t, err)
	if len(old.Diagnostics) != 0 || len(cur.Diagnostics) != 0 {
		t.Fatalf("diagnostics at revisions: %s%s", formatDiagnostics(old.Diagnostics), formatDiagnostics(cur.Diagnostics))
	}
	if len(old.Subjects) != len(want.Subjects) {
		t.Errorf("HEAD~1 has %d subjects, the example tree %d", len(old.Subjects), len(want.Subjects))
	}
	if old.Subject("inventory.stock-level-value") == nil || cur.Subject("inventory.stock-level-value") != nil {
		t.Errorf("inventory subject: at HEAD~1 %v, at HEAD %v", old.Subject("inventory.stock-level-value") != nil, cur.Subject("inventory.stock-level-value") != nil)
	}
	if len(cur.Entries) != len(want.Entries) {
		t.Errorf("calendar entries at HEAD: %d, want %d", len(cur.Entries), len(want.Entries))
	}
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestGitSymlinkAndEscape: a link committed to Git is refused, never followed.
func TestGitSymlinkAndEscape(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	must(t, err)
	testutil.CopyTree(t, filepath.Join(testutil.RepoRoot(t), "contracts"), filepath.Join(dir, "contracts"))
	link := filepath.Join(dir, "contracts", "orders", "order-created", "consumers", "evil.yaml")
	must(t, os.Symlink("/etc/passwd", link))
	commitAll(t, repo, "with a link")
	src, err := OpenRevision(dir, "HEAD")
	must(t, err)
	tree, err := Load(src)
	must(t, err)
	found := false
	for _, d := range tree.Diagnostics {
		if d.Code == CodeSymlink && strings.HasSuffix(d.File, "evil.yaml") {
			found = true
		}
	}
	if !found {
		t.Errorf("no symlink diagnostic for evil.yaml: %s", formatDiagnostics(tree.Diagnostics))
	}
	if _, err := src.ReadFile("../etc/passwd", 1<<20); err == nil {
		t.Error("a path with .. was read")
	}
}

func TestMemSourceErrorsNeverStopTheRest(t *testing.T) {
	src := MemSource{
		"contracts/teams.yaml":              []byte("teams:\n  a:\n    github: ['@x/a']\n"),
		"contracts/d/one/contract.yaml":     []byte("subject: one\nformat: avro\nschema: s.avsc\ncompatibility: NONE\nowner: a\n"),
		"contracts/d/one/s.avsc":            []byte(`{"type":"record","name":"R","fields":[{"name":"f","type":"int"}]}`),
		"contracts/d/two/contract.yaml":     []byte("subject: [\n"),
		"contracts/d/one/consumers/c.yaml":  []byte("name: c\nowner: a\nkind: service\nreads: [f, g]\n"),
		"contracts/d/three/contract.yaml":   []byte("subject: three\nformat: avro\nschema: s.avsc\ncompatibility: NONE\nowner: b\n"),
		"contracts/d/three/s.avsc":          []byte(`{"type":"record","name":"R","fields":[{"name":"f","type":"int"}]}`),
		"contracts/d/three/consumers/x.yml": []byte("name: x\n"),
	}
	tree, err := Load(src)
	must(t, err)
	if len(tree.Subjects) != 2 {
		t.Errorf("want the two good subjects loaded, got %d", len(tree.Subjects))
	}
	got := formatDiagnostics(tree.Diagnostics)
	for _, want := range []string{
		`contracts/d/one/consumers/c.yaml:4:12: error: reads field "g"`,
		`contracts/d/three/consumers/x.yml:1:1: error: consumers/ holds one <consumer>.yaml file per consumer; x.yml is not one. Rename it to x.yaml.`,
		`contracts/d/three/contract.yaml:5:8: error: owner "b" is not a team`,
		`contracts/d/two/contract.yaml:1:10: error: YAML syntax error`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestCodeownersIsCurrent: the project's own CODEOWNERS is generated from its tree.
func TestCodeownersIsCurrent(t *testing.T) {
	root := testutil.RepoRoot(t)
	tree, err := Load(NewDirSource(root))
	must(t, err)
	got := string(Codeowners(tree))
	want, err := os.ReadFile(filepath.Join(root, CodeownersFile))
	must(t, err)
	if got != string(want) {
		t.Errorf("CODEOWNERS is stale: run `go run ./cmd/contractbot codeowners`")
	}
	for _, wantLine := range []string{
		"/contracts/orders/order-created/ @acme/orders\n",
		"/contracts/orders/order-created/consumers/dwd-order-detail.yaml @acme/data-warehouse\n",
		"/contracts/teams.yaml @acme/data-platform\n",
		"/.github/ @acme/data-platform\n", // the workflows that run the gate
	} {
		if !strings.Contains(got, wantLine) {
			t.Errorf("CODEOWNERS lacks %q", wantLine)
		}
	}
}

func TestLoadSubjectReadsOneFolder(t *testing.T) {
	src := MemSource(testutil.ExampleFiles(t))
	// Break every other subject: LoadSubject must not read them.
	for p := range src {
		if strings.HasSuffix(p, "contract.yaml") && !strings.HasPrefix(p, "contracts/orders/order-created/") {
			src[p] = []byte("{broken")
		}
	}
	tree, err := LoadSubject(src, "contracts/orders/order-created")
	must(t, err)
	if len(tree.Diagnostics) != 0 {
		t.Errorf("diagnostics: %s", formatDiagnostics(tree.Diagnostics))
	}
	s := tree.Subject("orders.order-created-value")
	if s == nil || len(s.Consumers) == 0 || !parsedAs(s, "avro") {
		t.Fatalf("subject not loaded whole: %+v", s)
	}
	if _, err := LoadSubject(src, "contracts/orders"); err == nil {
		t.Error("a domain folder was accepted as a subject folder")
	}
	if _, err := LoadSubject(src, "contracts/orders/nope"); err == nil {
		t.Error("a missing folder loaded without error")
	}
	// A Protobuf subject resolves its imports from elsewhere in the tree.
	pt, err := LoadSubject(MemSource(testutil.ExampleFiles(t)), "contracts/payments/payment-authorized")
	must(t, err)
	if p := pt.Subject("payments.payment-authorized-value"); p == nil || !parsedAs(p, "protobuf") {
		t.Fatalf("protobuf subject not loaded: %s", formatDiagnostics(pt.Diagnostics))
	}
}

// parsedAs reports whether a subject's schema parses, by the engine of format.
func parsedAs(s *Subject, format string) bool {
	sch, err := s.Schema()
	return err == nil && string(sch.Format()) == format
}

// TestTeamMembers: members lists logins as @login, each once; a bad one is located.
func TestTeamMembers(t *testing.T) {
	src := MemSource{"contracts/teams.yaml": []byte("teams:\n  a:\n    github: ['@x/a']\n    members: ['@Ann', '@bob', 'carl', '@ann']\n")}
	tree, err := Load(src)
	must(t, err)
	if got := tree.Teams["a"].Members; strings.Join(got, ",") != "@Ann,@bob" {
		t.Errorf("members %v, want @Ann,@bob", got)
	}
	got := formatDiagnostics(tree.Diagnostics.ForFile(TeamsFile))
	for _, want := range []string{
		`contracts/teams.yaml:4:31: error: member "carl" must be a GitHub login written as @login`,
		`contracts/teams.yaml:4:39: error: member "@ann" is listed twice in team "a"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// schemaReads fails the test on any read of a subject's schema file.
type schemaReads struct {
	Source
	t       *testing.T
	schemas map[string]bool
}

func (s schemaReads) ReadFile(name string, limit int64) ([]byte, error) {
	if s.schemas[name] {
		s.t.Errorf("LoadWithoutSchemas read the schema file %s", name)
	}
	return s.Source.ReadFile(name, limit)
}

// LoadWithoutSchemas gives the subjects, their contract.yaml and their consumers as
// Load does, without reading one schema file.
func TestLoadWithoutSchemas(t *testing.T) {
	src := NewDirSource(testutil.RepoRoot(t))
	full, err := Load(src)
	must(t, err)
	schemas := map[string]bool{}
	for _, s := range full.Subjects {
		schemas[s.SchemaFile] = true
		s.Digest = "" // the one field of the JSON form that comes from the schema
	}
	tree, err := LoadWithoutSchemas(schemaReads{src, t, schemas})
	must(t, err)
	if len(schemas) < 10 || len(tree.Subjects) != len(full.Subjects) {
		t.Fatalf("%d subjects without schemas, want %d (and at least 10)", len(tree.Subjects), len(full.Subjects))
	}
	for _, s := range tree.Subjects {
		if s.SchemaText != nil || s.FieldPaths() != nil {
			t.Errorf("%s: the schema was read (%d bytes, %d field paths)", s.Subject, len(s.SchemaText), len(s.FieldPaths()))
		}
		if _, err := s.Schema(); err == nil {
			t.Errorf("%s: Schema() parsed a schema the load did not read", s.Subject)
		}
	}
	got, err := json.Marshal(tree.Subjects)
	must(t, err)
	want, err := json.Marshal(full.Subjects)
	must(t, err)
	if string(got) != string(want) {
		t.Errorf("subjects without schemas differ from Load's:\n got %s\nwant %s", got, want)
	}
	if len(tree.Teams) != len(full.Teams) || len(tree.Entries) != len(full.Entries) {
		t.Errorf("%d teams and %d calendar entries, want %d and %d", len(tree.Teams), len(tree.Entries), len(full.Teams), len(full.Entries))
	}
}

// TestDirSourceReadsWithoutSpareCapacity: a loaded tree keeps the bytes of every
// schema, so a file is read into a slice of its size (a bytes.Buffer read doubled it).
func TestDirSourceReadsWithoutSpareCapacity(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "s.avsc"), []byte(strings.Repeat("x", 3000)), 0o644))
	data, err := NewDirSource(dir).ReadFile("s.avsc", MaxSchemaBytes)
	must(t, err)
	if len(data) != 3000 || cap(data) != len(data) {
		t.Errorf("read %d bytes into a slice of capacity %d", len(data), cap(data))
	}
}
