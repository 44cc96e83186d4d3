package versions

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/contract"
)

// testRepo writes commits straight into a real on-disk repository.
type testRepo struct {
	t       *testing.T
	repo    *git.Repository
	when    time.Time
	written map[plumbing.Hash]bool
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	r, err := git.PlainInit(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	return &testRepo{t: t, repo: r, when: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), written: map[plumbing.Hash]bool{}}
}

func (r *testRepo) blob(content string) plumbing.Hash {
	if h := plumbing.ComputeHash(plumbing.BlobObject, []byte(content)); r.written[h] {
		return h
	}
	o := r.repo.Storer.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, _ := o.Writer()
	w.Write([]byte(content))
	w.Close()
	h, err := r.repo.Storer.SetEncodedObject(o)
	if err != nil {
		r.t.Fatal(err)
	}
	r.written[h] = true
	return h
}

func (r *testRepo) tree(files map[string]string) plumbing.Hash {
	sub := map[string]map[string]string{}
	var entries []object.TreeEntry
	for p, c := range files {
		if i := strings.IndexByte(p, '/'); i >= 0 {
			if sub[p[:i]] == nil {
				sub[p[:i]] = map[string]string{}
			}
			sub[p[:i]][p[i+1:]] = c
			continue
		}
		entries = append(entries, object.TreeEntry{Name: p, Mode: filemode.Regular, Hash: r.blob(c)})
	}
	for d, fs := range sub {
		entries = append(entries, object.TreeEntry{Name: d, Mode: filemode.Dir, Hash: r.tree(fs)})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	t := &object.Tree{Entries: entries}
	o := &plumbing.MemoryObject{}
	if err := t.Encode(o); err != nil {
		r.t.Fatal(err)
	}
	if r.written[o.Hash()] {
		return o.Hash()
	}
	h, err := r.repo.Storer.SetEncodedObject(o)
	if err != nil {
		r.t.Fatal(err)
	}
	r.written[h] = true
	return h
}

func (r *testRepo) commit(files map[string]string, parents ...plumbing.Hash) plumbing.Hash {
	r.when = r.when.Add(time.Minute)
	sig := object.Signature{Name: "t", Email: "t@example.com", When: r.when}
	c := &object.Commit{Author: sig, Committer: sig, Message: "c", TreeHash: r.tree(files), ParentHashes: parents}
	o := r.repo.Storer.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		r.t.Fatal(err)
	}
	h, err := r.repo.Storer.SetEncodedObject(o)
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

func contractText(subject, schema string) string {
	format := "avro"
	if strings.HasSuffix(schema, ".proto") {
		format = "protobuf"
	}
	return "subject: " + subject + "\nformat: " + format + "\nschema: " + schema +
		"\ncompatibility: BACKWARD\nowner: orders\ntier: core\nfields:\n  a: {pii: true}\n"
}

func avsc(fields ...string) string {
	var fs []string
	for _, f := range fields {
		fs = append(fs, `{"name":"`+f+`","type":"string"}`)
	}
	return `{"type":"record","name":"R","fields":[` + strings.Join(fs, ",") + `]}`
}

// files builds a tree: pairs of (folder, subject, schema content) plus extras.
func subjectFiles(m map[string]string, folder, subject, schema string) map[string]string {
	if m == nil {
		m = map[string]string{"contracts/teams.yaml": "teams: {}\n", "README.md": "x"}
	}
	m["contracts/"+folder+"/contract.yaml"] = contractText(subject, "s.avsc")
	m["contracts/"+folder+"/s.avsc"] = schema
	m["contracts/"+folder+"/consumers/c.yaml"] = "name: c\n"
	return m
}

func build(t *testing.T, r *testRepo, head plumbing.Hash) *Index {
	t.Helper()
	ix, err := Build(r.repo, head)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func versionNums(vs []Version) (out [][2]int) {
	for _, v := range vs {
		out = append(out, [2]int{v.Version, v.ID})
	}
	return out
}

func TestFirstVersionChangeRevert(t *testing.T) {
	r := newTestRepo(t)
	c1 := r.commit(subjectFiles(nil, "orders/created", "orders.created-value", avsc("a")))
	ix := build(t, r, c1)
	v, ok := ix.Current("orders.created-value")
	if !ok || v.Version != 1 || v.ID != 1 || v.Commit != c1.String() || v.Format != "avro" ||
		v.Compatibility != "BACKWARD" || v.Path != "contracts/orders/created/s.avsc" {
		t.Fatalf("first version: %+v %v", v, ok)
	}
	if got, _ := ix.Schema(r.repo, v); string(got) != avsc("a") {
		t.Fatalf("schema text %q", got)
	}
	c2 := r.commit(subjectFiles(nil, "orders/created", "orders.created-value", avsc("a", "b")), c1)
	c3 := r.commit(subjectFiles(nil, "orders/created", "orders.created-value", avsc("a")), c2) // revert
	ix = build(t, r, c3)
	vs := ix.Versions("orders.created-value")
	if !reflect.DeepEqual(versionNums(vs), [][2]int{{1, 1}, {2, 2}}) {
		t.Fatalf("after revert: %v", versionNums(vs))
	}
	if cur, _ := ix.Current("orders.created-value"); cur.Version != 1 {
		t.Fatalf("current after revert = %d, want 1", cur.Version)
	}
	if lat, _ := ix.Latest("orders.created-value"); lat.Version != 2 || lat.Commit != c2.String() {
		t.Fatalf("latest after revert = %+v", lat)
	}
	c4 := r.commit(subjectFiles(nil, "orders/created", "orders.created-value", avsc("a", "c")), c3)
	ix = build(t, r, c4)
	if got := versionNums(ix.Versions("orders.created-value")); !reflect.DeepEqual(got, [][2]int{{1, 1}, {2, 2}, {3, 3}}) {
		t.Fatalf("after third content: %v", got)
	}
	if ix.Commits != 4 || ix.Head != c4.String() {
		t.Fatalf("commits=%d head=%s", ix.Commits, ix.Head)
	}
}

func TestIdenticalContentSharesID(t *testing.T) {
	r := newTestRepo(t)
	m := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
	m = subjectFiles(m, "b/two", "b.two-value", avsc("y"))
	c1 := r.commit(m)
	m2 := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
	m2 = subjectFiles(m2, "b/two", "b.two-value", avsc("x")) // now identical to a.one v1
	c2 := r.commit(m2, c1)
	ix := build(t, r, c2)
	// ids within a commit go in subject order: a.one-value=1, b.two-value=2
	if got := versionNums(ix.Versions("a.one-value")); !reflect.DeepEqual(got, [][2]int{{1, 1}}) {
		t.Fatalf("a: %v", got)
	}
	if got := versionNums(ix.Versions("b.two-value")); !reflect.DeepEqual(got, [][2]int{{1, 2}, {2, 1}}) {
		t.Fatalf("b: %v", got)
	}
	uses := ix.ByID(1)
	if len(uses) != 2 || uses[0].Subject != "a.one-value" || uses[1].Subject != "b.two-value" || uses[1].Version != 2 {
		t.Fatalf("ByID(1) = %+v", uses)
	}
	if ix.ByID(3) != nil || ix.ByID(0) != nil {
		t.Fatal("unknown ids must give nil")
	}
	if got := ix.Subjects(); !reflect.DeepEqual(got, []string{"a.one-value", "b.two-value"}) {
		t.Fatalf("subjects %v", got)
	}
}

func TestRenameKeepsHistory(t *testing.T) {
	r := newTestRepo(t)
	c1 := r.commit(subjectFiles(nil, "orders/created", "orders.created-value", avsc("a")))
	c2 := r.commit(subjectFiles(nil, "sales/order-created", "orders.created-value", avsc("a")), c1) // moved
	ix := build(t, r, c2)
	vs := ix.Versions("orders.created-value")
	if len(vs) != 1 {
		t.Fatalf("move made a new version: %+v", vs)
	}
	cur, ok := ix.Current("orders.created-value")
	if !ok || cur.Version != 1 || ix.BySubject["orders.created-value"].Folder != "contracts/sales/order-created" {
		t.Fatalf("after move: %+v %v %+v", cur, ok, ix.BySubject["orders.created-value"])
	}
	// moved again and changed in the same commit
	c3 := r.commit(subjectFiles(nil, "sales/created", "orders.created-value", avsc("a", "b")), c2)
	ix = build(t, r, c3)
	vs = ix.Versions("orders.created-value")
	if len(vs) != 2 || vs[1].Path != "contracts/sales/created/s.avsc" {
		t.Fatalf("move+change: %+v", vs)
	}
}

func TestDeleteAndComeBack(t *testing.T) {
	r := newTestRepo(t)
	m := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
	m = subjectFiles(m, "b/two", "b.two-value", avsc("y"))
	c1 := r.commit(m)
	c2 := r.commit(subjectFiles(nil, "b/two", "b.two-value", avsc("y")), c1) // a.one deleted
	ix := build(t, r, c2)
	if _, ok := ix.Current("a.one-value"); ok {
		t.Fatal("deleted subject still current")
	}
	if len(ix.Versions("a.one-value")) != 1 || ix.BySubject["a.one-value"].Folder != "" {
		t.Fatal("deleted subject lost its versions")
	}
	if _, ok := ix.Latest("a.one-value"); !ok {
		t.Fatal("latest of a deleted subject should still be known")
	}
	m3 := subjectFiles(nil, "b/two", "b.two-value", avsc("y"))
	m3 = subjectFiles(m3, "a/one", "a.one-value", avsc("x"))
	c3 := r.commit(m3, c2)
	ix = build(t, r, c3)
	if cur, ok := ix.Current("a.one-value"); !ok || cur.Version != 1 || len(ix.Versions("a.one-value")) != 1 {
		t.Fatalf("come back with old content: %+v %v", cur, ok)
	}
}

func TestMergeFollowsFirstParent(t *testing.T) {
	r := newTestRepo(t)
	c1 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x")))
	// side branch: two changes
	s1 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "side1")), c1)
	s2 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "side1", "side2")), s1)
	// main: an unrelated change
	m2 := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
	m2 = subjectFiles(m2, "b/two", "b.two-value", avsc("y"))
	c2 := r.commit(m2, c1)
	m3 := subjectFiles(nil, "a/one", "a.one-value", avsc("x", "side1", "side2"))
	m3 = subjectFiles(m3, "b/two", "b.two-value", avsc("y"))
	merge := r.commit(m3, c2, s2)
	ix := build(t, r, merge)
	vs := ix.Versions("a.one-value")
	if len(vs) != 2 || vs[1].Commit != merge.String() {
		t.Fatalf("merge: %+v", vs)
	}
	if ix.Commits != 3 {
		t.Fatalf("indexed %d commits, want 3 (first parents only)", ix.Commits)
	}
	for _, v := range vs {
		if v.Commit == s1.String() || v.Commit == s2.String() {
			t.Fatalf("side-branch commit indexed: %+v", v)
		}
	}
}

func TestRewrittenHistory(t *testing.T) {
	r := newTestRepo(t)
	c1 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x")))
	c2 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "y")), c1)
	ix := build(t, r, c2)
	before, _ := json.Marshal(ix)
	// c2 rewritten as c2b (amended), then one more commit on top
	c2b := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "z")), c1)
	c3 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "z", "w")), c2b)
	if err := ix.Extend(r.repo, c3); !errors.Is(err, ErrHistoryRewritten) {
		t.Fatalf("Extend over rewritten history: err=%v", err)
	}
	// going backwards is not an extension either
	if err := ix.Extend(r.repo, c1); !errors.Is(err, ErrHistoryRewritten) {
		t.Fatalf("Extend to an ancestor: err=%v", err)
	}
	after, _ := json.Marshal(ix)
	if string(before) != string(after) {
		t.Fatal("failed Extend changed the index")
	}
	// a merge whose FIRST parent is not the indexed head is a rewrite too
	m := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x", "y")), c2b, c2)
	if err := ix.Extend(r.repo, m); !errors.Is(err, ErrHistoryRewritten) {
		t.Fatalf("Extend to a merge with the head as second parent: err=%v", err)
	}
}

func TestExtendEqualsBuild(t *testing.T) {
	r := newTestRepo(t)
	var heads []plumbing.Hash
	var parent []plumbing.Hash
	contents := []string{avsc("a"), avsc("a", "b"), avsc("a"), avsc("a", "b", "c")}
	for i := 0; i < 12; i++ {
		m := subjectFiles(nil, "a/one", "a.one-value", contents[i%len(contents)])
		m = subjectFiles(m, "b/two", "b.two-value", contents[(i/2)%len(contents)])
		if i%3 == 0 {
			m = subjectFiles(m, "c/three", "c.three-value", avsc("c", string(rune('a'+i))))
		}
		h := r.commit(m, parent...)
		heads = append(heads, h)
		parent = []plumbing.Hash{h}
	}
	full := build(t, r, heads[len(heads)-1])
	// extend one commit at a time, through a JSON round trip each time (the bot's cache)
	ix := New()
	for _, h := range heads {
		data, err := json.Marshal(ix)
		if err != nil {
			t.Fatal(err)
		}
		ix = &Index{}
		if err := json.Unmarshal(data, ix); err != nil {
			t.Fatal(err)
		}
		if err := ix.Extend(r.repo, h); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := json.Marshal(full)
	b, _ := json.Marshal(ix)
	if string(a) != string(b) {
		t.Fatalf("Extend != Build:\n%s\n%s", a, b)
	}
	// extending to the same head is a no-op
	if err := ix.Extend(r.repo, heads[len(heads)-1]); err != nil {
		t.Fatal(err)
	}
	// and a jump of several commits at once also matches
	part := build(t, r, heads[4])
	if err := part.Extend(r.repo, heads[len(heads)-1]); err != nil {
		t.Fatal(err)
	}
	c, _ := json.Marshal(part)
	if string(a) != string(c) {
		t.Fatal("Extend by several commits != Build")
	}
}

func TestBrokenContractIsSkipped(t *testing.T) {
	r := newTestRepo(t)
	c1 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x")))
	m2 := subjectFiles(nil, "a/one", "a.one-value", avsc("x", "y"))
	m2["contracts/a/one/contract.yaml"] = "subject: [unclosed\n"
	m2 = subjectFiles(m2, "b/two", "b.two-value", avsc("q"))
	m2["contracts/b/two/contract.yaml"] = contractText("b.two-value", "missing.avsc")
	c2 := r.commit(m2, c1)
	ix := build(t, r, c2)
	if len(ix.Warnings) != 2 || ix.Warnings[0].Path != "contracts/a/one" || ix.Warnings[1].Path != "contracts/b/two" {
		t.Fatalf("warnings: %+v", ix.Warnings)
	}
	if cur, ok := ix.Current("a.one-value"); !ok || cur.Version != 1 || len(ix.Versions("a.one-value")) != 1 {
		t.Fatalf("broken contract should keep the previous state: %+v %v", cur, ok)
	}
	if _, ok := ix.Current("b.two-value"); ok {
		t.Fatal("a contract naming a missing schema file must not create a subject")
	}
	// fixed: the schema change shows up now
	c3 := r.commit(subjectFiles(subjectFiles(nil, "b/two", "b.two-value", avsc("q")), "a/one", "a.one-value", avsc("x", "y")), c2)
	ix = build(t, r, c3)
	vs := ix.Versions("a.one-value")
	if len(vs) != 2 || vs[1].Commit != c3.String() {
		t.Fatalf("after fix: %+v", vs)
	}
	if _, ok := ix.Current("b.two-value"); !ok {
		t.Fatal("fixed contract not indexed")
	}
}

func TestProtobufImportsAndUnrelatedCommits(t *testing.T) {
	r := newTestRepo(t)
	proto := "syntax = \"proto3\";\npackage acme.pay.v1;\nimport \"common/money/money.proto\";\n  import public \"google/protobuf/timestamp.proto\";\n// import \"not/this.proto\";\nmessage P { string id = 1; }\n"
	m := map[string]string{
		"contracts/pay/auth/contract.yaml":   contractText("pay.auth-value", "auth.proto"),
		"contracts/pay/auth/auth.proto":      proto,
		"contracts/common/money/money.proto": "syntax = \"proto3\";\n",
		"calendar/2026-01-01-x.yaml":         "title: x\n",
	}
	c1 := r.commit(m)
	m["README.md"] = "changed"
	m["calendar/freezes.yaml"] = "freezes: []\n"
	c2 := r.commit(m, c1) // touches nothing under contracts/
	ix := build(t, r, c2)
	vs := ix.Versions("pay.auth-value")
	if len(vs) != 1 || vs[0].Format != "protobuf" ||
		!reflect.DeepEqual(vs[0].Imports, []string{"common/money/money.proto", "google/protobuf/timestamp.proto"}) {
		t.Fatalf("proto version: %+v", vs)
	}
	if ix.Commits != 2 || len(ix.Warnings) != 0 || len(ix.Subjects()) != 1 {
		t.Fatalf("commits=%d warnings=%v subjects=%v", ix.Commits, ix.Warnings, ix.Subjects())
	}
}

func TestSubjectNameChangeAndDuplicates(t *testing.T) {
	r := newTestRepo(t)
	c1 := r.commit(subjectFiles(nil, "a/one", "a.one-value", avsc("x")))
	// same folder, same schema, new subject name: a new subject whose v1 shares the id
	c2 := r.commit(subjectFiles(nil, "a/one", "a.uno-value", avsc("x")), c1)
	ix := build(t, r, c2)
	if _, ok := ix.Current("a.one-value"); ok {
		t.Fatal("old subject name still current")
	}
	uno, ok := ix.Current("a.uno-value")
	if !ok || uno.Version != 1 || uno.ID != 1 {
		t.Fatalf("renamed subject: %+v %v", uno, ok)
	}
	// a second folder claiming the same subject: warning, the first folder in path order wins
	m := subjectFiles(nil, "a/one", "a.uno-value", avsc("x"))
	m = subjectFiles(m, "b/copy", "a.uno-value", avsc("other"))
	c3 := r.commit(m, c2)
	ix = build(t, r, c3)
	if len(ix.Warnings) != 1 || !strings.Contains(ix.Warnings[0].Message, "also defined") {
		t.Fatalf("warnings: %+v", ix.Warnings)
	}
	if vs := ix.Versions("a.uno-value"); len(vs) != 1 {
		t.Fatalf("duplicate folder made a version: %+v", vs)
	}
	// the first folder goes away: the copy takes over, with its content as v2
	c4 := r.commit(subjectFiles(nil, "b/copy", "a.uno-value", avsc("other")), c3)
	ix = build(t, r, c4)
	if cur, _ := ix.Current("a.uno-value"); cur.Version != 2 || ix.BySubject["a.uno-value"].Folder != "contracts/b/copy" {
		t.Fatalf("after the first folder left: %+v", cur)
	}
}

func TestCompatibilityChangeAloneIsNoVersion(t *testing.T) {
	r := newTestRepo(t)
	m := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
	c1 := r.commit(m)
	m2 := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
	m2["contracts/a/one/contract.yaml"] = strings.Replace(m2["contracts/a/one/contract.yaml"], "BACKWARD", "FULL", 1)
	c2 := r.commit(m2, c1)
	m3 := subjectFiles(nil, "a/one", "a.one-value", avsc("x", "y"))
	m3["contracts/a/one/contract.yaml"] = m2["contracts/a/one/contract.yaml"]
	c3 := r.commit(m3, c2)
	ix := build(t, r, c3)
	vs := ix.Versions("a.one-value")
	if len(vs) != 2 || vs[0].Compatibility != "BACKWARD" || vs[1].Compatibility != "FULL" {
		t.Fatalf("versions: %+v", vs)
	}
}

// The index reads contract.yaml through the loader's decoder: what the loader does not
// take for a subject, the index does not either, and an oversize file or schema is a
// broken folder, never a deleted subject.
func TestIndexAgreesWithTheLoader(t *testing.T) {
	cases := map[string]struct{ contract, schema string }{
		"subject with a space":  {"subject: a b\nformat: avro\nschema: s.avsc\n", avsc("x")},
		"alias":                 {"s: &n a.one-value\nsubject: *n\nformat: avro\nschema: s.avsc\n", avsc("x")},
		"two documents":         {"subject: a.one-value\nschema: s.avsc\n---\nsubject: b\n", avsc("x")},
		"schema leaves folder":  {"subject: a.one-value\nformat: avro\nschema: ../s.avsc\n", avsc("x")},
		"subject is a list":     {"subject: [a.one-value]\nformat: avro\nschema: s.avsc\n", avsc("x")},
		"contract over 1 MiB":   {contractText("a.one-value", "s.avsc") + "#" + strings.Repeat("x", contract.MaxYAMLBytes) + "\n", avsc("x")},
		"schema over the limit": {contractText("a.one-value", "s.avsc"), avsc("x") + strings.Repeat(" ", contract.MaxSchemaBytes)},
		"no contract.yaml":      {"", avsc("x")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := newTestRepo(t)
			good := subjectFiles(nil, "a/one", "a.one-value", avsc("x"))
			c1 := r.commit(good)
			bad := map[string]string{"contracts/a/one/contract.yaml": tc.contract, "contracts/a/one/s.avsc": tc.schema}
			if tc.contract == "" {
				delete(bad, "contracts/a/one/contract.yaml")
			}
			c2 := r.commit(bad, c1)
			ix := build(t, r, c2)
			if len(ix.Warnings) != 1 || ix.Warnings[0].Path != "contracts/a/one" {
				t.Fatalf("warnings: %+v", ix.Warnings)
			}
			t.Log(ix.Warnings[0].Message)
			// The subject keeps its state: not deleted, not a new version.
			if cur, ok := ix.Current("a.one-value"); !ok || cur.Version != 1 || len(ix.Subjects()) != 1 {
				t.Errorf("current %+v %v, subjects %v", cur, ok, ix.Subjects())
			}
			// The loader reports the same file, and finds no subject in it.
			src := contract.MemSource{}
			for p, c := range bad {
				src[p] = []byte(c)
			}
			tree, err := contract.LoadSubject(src, "contracts/a/one")
			if err != nil {
				t.Fatal(err)
			}
			if tree.Diagnostics.Errors() == 0 {
				t.Error("the loader found no error")
			}
			if s := tree.Subject("a.one-value"); s != nil && len(s.SchemaText) > 0 {
				t.Error("the loader took it for a subject with a schema")
			}
		})
	}
}
