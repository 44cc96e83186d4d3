package publish

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/publish/publishtest"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/testutil"
)

// exampleRepo makes a Git repository holding the example tree as its first commit.
func exampleRepo(t *testing.T) (string, *git.Repository) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CopyExample(t, dir)
	commit(t, repo, "example tree", 0)
	return dir, repo
}

func commit(t *testing.T, repo *git.Repository, msg string, n int) plumbing.Hash {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &gitobject.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 30, 9, n, 0, 0, time.UTC)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeRegistry is an in-memory registry that keeps what a Confluent registry keeps
// (publish.Registry whole): a schema is its text with its metadata and rules, ids by
// schema across subjects, versions per subject (a registration without a ruleSet
// takes the latest version's, as Confluent does), levels and groups. It refuses a
// duplicate version as a real registry does (the existing id is answered) and can be
// told to fail a method on its n-th call.
type fakeRegistry struct {
	mu       sync.Mutex
	ids      map[string]int
	subjects map[string][]fakeVersion // subject -> versions, version i+1 at i
	levels   map[string]string
	groups   map[string]string
	calls    map[string]int
	failAt   map[string]int                  // method -> call number that fails (1-based)
	refs     map[string][]registry.Reference // subject -> references of its last registration
}

// fakeVersion is a schema as the registry keeps it.
type fakeVersion struct {
	text     string
	metadata *registry.Metadata
	ruleSet  *registry.RuleSet
}

// key tells schemas apart as Confluent's ids do: text, metadata and rules.
func (v fakeVersion) key() string { return publishtest.SchemaKey(v.text, v.metadata, v.ruleSet) }

var errInjected = errors.New("injected failure")

func newFakeRegistry() *fakeRegistry {
	return &fakeRegistry{ids: map[string]int{}, subjects: map[string][]fakeVersion{}, levels: map[string]string{}, groups: map[string]string{},
		calls: map[string]int{}, failAt: map[string]int{}, refs: map[string][]registry.Reference{}}
}

func (f *fakeRegistry) fail(method string) error {
	f.calls[method]++
	if f.failAt[method] == f.calls[method] {
		return &registry.Error{StatusCode: 503, Code: 50301, Message: "injected: " + method}
	}
	return nil
}

func (f *fakeRegistry) SetConfig(_ context.Context, subject, level string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail("SetConfig"); err != nil {
		return err
	}
	f.levels[subject] = level
	return nil
}

func (f *fakeRegistry) SetConfigGroup(_ context.Context, subject, level, group string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail("SetConfigGroup"); err != nil {
		return err
	}
	f.levels[subject], f.groups[subject] = level, group
	return nil
}

func (f *fakeRegistry) GetConfig(_ context.Context, subject string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.levels[subject], nil
}

func (f *fakeRegistry) LookUp(_ context.Context, subject, schema string, _ registry.SchemaType, _ []registry.Reference) (registry.Schema, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail("LookUp"); err != nil {
		return registry.Schema{}, err
	}
	vs := f.subjects[subject]
	for i := len(vs) - 1; i >= 0; i-- { // the newest version of the text
		if vs[i].text == schema {
			return f.schema(subject, i), nil
		}
	}
	return registry.Schema{}, &registry.Error{StatusCode: 404, Code: registry.CodeSchemaNotFound, Message: "Schema not found"}
}

func (f *fakeRegistry) GetLatest(_ context.Context, subject string) (registry.Schema, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subjects[subject]) == 0 {
		return registry.Schema{}, &registry.Error{StatusCode: 404, Code: registry.CodeSubjectNotFound, Message: "Subject not found"}
	}
	return f.schema(subject, len(f.subjects[subject])-1), nil
}

// schema is version i+1 of subject as the registry answers it.
func (f *fakeRegistry) schema(subject string, i int) registry.Schema {
	v := f.subjects[subject][i]
	return registry.Schema{Subject: subject, Version: i + 1, ID: f.ids[v.key()], Schema: v.text, Metadata: v.metadata, RuleSet: v.ruleSet}
}

func (f *fakeRegistry) RegisterSchema(_ context.Context, subject string, s registry.Schema) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refs[subject] = s.References
	v := fakeVersion{text: s.Schema, metadata: s.Metadata, ruleSet: s.RuleSet}
	if vs := f.subjects[subject]; v.ruleSet == nil && len(vs) > 0 {
		v.ruleSet = vs[len(vs)-1].ruleSet
	}
	id, ok := f.ids[v.key()]
	if !ok {
		id = len(f.ids) + 1
		f.ids[v.key()] = id
	}
	known := false
	for _, o := range f.subjects[subject] {
		known = known || o.key() == v.key()
	}
	if !known {
		f.subjects[subject] = append(f.subjects[subject], v)
	}
	// The failure comes after the registry stored the version: the answer is lost.
	if err := f.fail("RegisterSchema"); err != nil {
		return 0, err
	}
	return id, nil
}

// versions returns the number of versions of each subject.
func (f *fakeRegistry) versions() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for s, vs := range f.subjects {
		out[s] = len(vs)
	}
	return out
}

// flakySink sends to a file sink and fails its n-th Send, before writing.
type flakySink struct {
	events.Sink
	calls, failAt int
}

func (s *flakySink) Send(ctx context.Context, e events.Event) error {
	s.calls++
	if s.calls == s.failAt {
		return errInjected
	}
	return s.Sink.Send(ctx, e)
}

// flakyMarker fails its n-th Mark.
type flakyMarker struct {
	Marker
	calls, failAt int
}

func (m *flakyMarker) Mark(ctx context.Context, commit string, s Summary) error {
	m.calls++
	if m.calls == m.failAt {
		return errInjected
	}
	return m.Marker.Mark(ctx, commit, s)
}

// readEvents reads a JSON-lines event file, checking every line against the JSON Schema.
func readEvents(t *testing.T, path string) []events.Event {
	t.Helper()
	sch := eventSchema(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []events.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Fatalf("event does not match docs/schemas/change-event.schema.json: %v\n%s", err, sc.Bytes())
		}
		var e events.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func eventSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join(testutil.RepoRoot(t), "docs", "schemas", "change-event.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("change-event.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("change-event.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
