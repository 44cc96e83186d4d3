package history

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/testutil"
	"github.com/contractbot/contractbot/internal/versions"
)

const (
	gmv   = "contracts/dws/gmv-1min/gmv_1min.avsc"
	order = "contracts/orders/order-created/order_created.avsc"
	fraud = "contracts/risk/fraud-score/fraud_score.proto"
)

// audit indexes the repository's HEAD and audits it.
func audit(t *testing.T, r *testutil.Repo) []Break {
	t.Helper()
	repo, ix := index(t, r)
	bs, err := Audit(repo.Storer, ix)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// index opens the repository and indexes its HEAD.
func index(t *testing.T, r *testutil.Repo) (*gitrepo.Repo, *versions.Index) {
	t.Helper()
	repo, err := gitrepo.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := versions.Build(repo.Repository, head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	return repo, ix
}

type brk struct {
	Subject string
	Version int
	Against []int
	Level   string
	Rules   []string
}

func summary(bs []Break) []brk {
	out := []brk{}
	for _, b := range bs {
		var rules []string
		for _, f := range b.Findings {
			if !slices.Contains(rules, f.Rule+"@"+f.Path) {
				rules = append(rules, f.Rule+"@"+f.Path)
			}
		}
		out = append(out, brk{b.Subject, b.Version, b.Against, b.Level, rules})
	}
	return out
}

// The example tree's own history: dws.gmv-1min-value went from long to int at BACKWARD
// in a commit straight to main (issue 18). Beside it: a compatible change that is not
// named, a break under NONE that is not named, a break that only a _TRANSITIVE level
// sees (against version 1, not 2), and a Protobuf break found through the formats table.
func TestAuditNamesTheCommitsThatBrokeTheirLevel(t *testing.T) {
	r := testutil.NewRepo(t)
	testutil.CopyExample(t, r.Dir)
	r.Edit(gmv, `"name": "order_count", "type": "int"`, `"name": "order_count", "type": "long"`)
	r.Commit("example tree")
	r.Edit(gmv, `"name": "order_count", "type": "long"`, `"name": "order_count", "type": "int"`)
	broke := r.Commit("gmv order_count is an int in the example")

	// Compatible: a field with a default (order-created version 2).
	r.Edit(order, `"fields": [`, `"fields": [{"name": "note", "type": "string", "default": ""},`)
	r.Commit("order-created: a note with a default")
	// BACKWARD_TRANSITIVE: dropping the default reads version 2's data but not
	// version 1's (version 3).
	r.Edit(order, `{"name": "note", "type": "string", "default": ""}`, `{"name": "note", "type": "string"}`)
	r.Commit("order-created: note without a default")
	// NONE: anything goes.
	r.Edit("contracts/users/user-profile/contract.yaml", "compatibility: FULL_TRANSITIVE", "compatibility: NONE")
	r.Edit("contracts/users/user-profile/user_profile.avsc", `"name": "email",
      "type": "string",`, `"name": "email",
      "type": "int",`)
	r.Commit("user-profile: NONE")
	// Protobuf: a scalar changes kind.
	r.Edit(fraud, "double score = 4;", "string score = 4;")
	r.Commit("fraud score as text")

	bs := audit(t, r)
	got := summary(bs)
	want := []brk{
		{"dws.gmv-1min-value", 2, []int{1}, "BACKWARD", []string{"TYPE_MISMATCH@order_count"}},
		{"orders.order-created-value", 3, []int{1}, "BACKWARD_TRANSITIVE", []string{"READER_FIELD_MISSING_DEFAULT_VALUE@note"}},
		{"risk.fraud-score-value", 2, []int{1}, "BACKWARD_TRANSITIVE", []string{"FIELD_SCALAR_KIND_CHANGED@#/FraudScore/4"}},
	}
	if !slices.EqualFunc(got, want, func(a, b brk) bool {
		return a.Subject == b.Subject && a.Version == b.Version && slices.Equal(a.Against, b.Against) && a.Level == b.Level && slices.Equal(a.Rules, b.Rules)
	}) {
		t.Fatalf("breaks:\n got %+v\nwant %+v", got, want)
	}
	if bs[0].Commit != broke.String() || bs[0].Summary != "gmv order_count is an int in the example" || bs[0].Path != gmv {
		t.Errorf("the gmv break names commit %s %q in %s, want %s", bs[0].Commit, bs[0].Summary, bs[0].Path, broke)
	}
	ds := Diagnostics(bs[:1])
	if d := ds[0]; d.File != gmv || d.Line != 11 || d.Code != CodeBrokeLevel {
		t.Errorf("diagnostic at %s:%d [%s], want %s:11 [%s]", d.File, d.Line, d.Code, gmv, CodeBrokeLevel)
	}
}

// The audit holds every parsed version up to the last version a _TRANSITIVE level
// checks, and only the one before after it.
func TestLastTransitive(t *testing.T) {
	levels := func(ls ...string) []versions.Version {
		vs := make([]versions.Version, len(ls))
		for i, l := range ls {
			vs[i] = versions.Version{Version: i + 1, Compatibility: l}
		}
		return vs
	}
	for _, c := range []struct {
		vs   []versions.Version
		want int
	}{
		{levels("BACKWARD", "BACKWARD", "FULL"), 0},
		{levels("BACKWARD", "BACKWARD_TRANSITIVE", "BACKWARD", "NONE"), 1},
		{levels("FULL_TRANSITIVE", "BACKWARD", "FORWARD_TRANSITIVE", "BACKWARD"), 2},
		{levels("BACKWARD", "NOT_A_LEVEL"), 0},
		{nil, 0},
	} {
		if got := lastTransitive(c.vs); got != c.want {
			t.Errorf("%v: %d, want %d", c.vs, got, c.want)
		}
	}
}

// TestReaderKeepsFewTrees reads an import at more commits than the reader keeps trees
// for: it keeps at most maxTrees (keeping every commit's tree held gigabytes in the
// audit of a long history), and still reads at every commit.
func TestReaderKeepsFewTrees(t *testing.T) {
	r := testutil.ExampleRepo(t)
	for i := 0; i < maxTrees+4; i++ {
		r.Write("contracts/risk/fraud-score/notes.md", fmt.Sprintf("note %d\n", i))
		r.Commit(fmt.Sprintf("note %d", i))
	}
	repo, err := gitrepo.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	rd := &reader{s: repo.Storer, trees: map[string]*object.Tree{}}
	commit, err := object.GetCommit(repo.Storer, head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxTrees+4; i++ {
		data, err := rd.readAt(commit.Hash.String(), "contracts/risk/fraud-score/notes.md")
		if err != nil || string(data) != fmt.Sprintf("note %d\n", maxTrees+3-i) {
			t.Fatalf("read at %d commits back: %q, %v", i, data, err)
		}
		if commit, err = commit.Parent(0); err != nil {
			t.Fatal(err)
		}
	}
	if len(rd.trees) > maxTrees || len(rd.order) != len(rd.trees) {
		t.Errorf("the reader keeps %d trees (%d in order), want at most %d", len(rd.trees), len(rd.order), maxTrees)
	}
}
