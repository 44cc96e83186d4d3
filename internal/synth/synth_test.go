package synth

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/hamba/avro/v2"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var smallOpts = Options{Subjects: 60, Commits: 40, ConsumersPerSubject: 3, Seed: 7, Domains: 5, ProtobufShare: 0.3}

// headFiles reads every file of main's head tree from Git objects.
func headFiles(t *testing.T, repo *git.Repository) (map[string][]byte, plumbing.Hash) {
	t.Helper()
	ref, err := repo.Reference(plumbing.NewBranchReferenceName(Branch), true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err = tree.Files().ForEach(func(f *object.File) error {
		r, err := f.Reader()
		if err != nil {
			return err
		}
		defer r.Close()
		files[f.Name], err = io.ReadAll(r)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, ref.Hash()
}

func generate(t *testing.T, o Options) (*git.Repository, Stats, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	_, st, err := GenerateStats(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	// reopen from disk: everything must be in the repository, not in memory
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo, st, dir
}

func TestDeterministicForASeed(t *testing.T) {
	_, a, _ := generate(t, smallOpts)
	_, b, _ := generate(t, smallOpts)
	if a.Head != b.Head || a.Head.IsZero() {
		t.Fatalf("same seed, different heads: %s %s", a.Head, b.Head)
	}
	o := smallOpts
	o.Seed++
	_, c, _ := generate(t, o)
	if c.Head == a.Head {
		t.Fatal("different seeds gave the same repository")
	}
}

func TestCheckoutAndWriteTreeMatchGit(t *testing.T) {
	o := smallOpts
	o.Checkout = true
	repo, _, dir := generate(t, o)
	files, _ := headFiles(t, repo)
	plain := t.TempDir()
	if _, err := WriteTree(plain, smallOpts); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{dir, plain} {
		n := 0
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			data, _ := os.ReadFile(p)
			if want, ok := files[filepath.ToSlash(rel)]; !ok || !bytes.Equal(want, data) {
				t.Errorf("%s: %s differs from the Git head tree", root, rel)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != len(files) {
			t.Errorf("%s has %d files, Git head tree %d", root, n, len(files))
		}
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	st, err := wt.Status()
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsClean() {
		t.Errorf("checkout is not clean: %v", st)
	}
}

type contractFile struct {
	Subject, Format, Schema, Compatibility, Owner string
	Fields                                        map[string]any
}

type consumerFile struct {
	Name, Owner, Kind string
	Reads             []string
	Produces          map[string]map[string][]string
}

type loaded struct {
	subjects  map[string]*loadedSubject // by subject name
	consumers int
	teams     map[string]any
	calendar  int
}

type loadedSubject struct {
	dir       string
	c         contractFile
	paths     map[string]bool
	consumers []consumerFile
}

// load parses the generated tree with plain YAML and real schema parsers.
func load(t *testing.T, files map[string][]byte) *loaded {
	t.Helper()
	l := &loaded{subjects: map[string]*loadedSubject{}}
	var teams struct{ Teams map[string]any }
	if err := yaml.Unmarshal(files["contracts/teams.yaml"], &teams); err != nil {
		t.Fatal(err)
	}
	l.teams = teams.Teams
	byDir := map[string]*loadedSubject{}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		parts := strings.Split(name, "/")
		switch {
		case len(parts) == 4 && parts[0] == "contracts" && parts[3] == "contract.yaml":
			var c contractFile
			if err := yaml.Unmarshal(files[name], &c); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s := &loadedSubject{dir: strings.Join(parts[:3], "/"), c: c}
			byDir[s.dir] = s
			if l.subjects[c.Subject] != nil {
				t.Fatalf("subject %s twice", c.Subject)
			}
			l.subjects[c.Subject] = s
		case len(parts) == 2 && parts[0] == "calendar" && parts[1] != "freezes.yaml":
			l.calendar++
		}
	}
	for _, name := range names {
		parts := strings.Split(name, "/")
		if len(parts) == 5 && parts[3] == "consumers" {
			var c consumerFile
			if err := yaml.Unmarshal(files[name], &c); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if c.Name+".yaml" != parts[4] {
				t.Errorf("%s: name %q does not match the file name", name, c.Name)
			}
			byDir[strings.Join(parts[:3], "/")].consumers = append(byDir[strings.Join(parts[:3], "/")].consumers, c)
			l.consumers++
		}
	}
	// schemas
	var protos []string
	for _, s := range l.subjects {
		p := s.dir + "/" + s.c.Schema
		src, ok := files[p]
		if !ok {
			t.Fatalf("%s: schema file missing", p)
		}
		switch s.c.Format {
		case "avro":
			sch, err := avro.ParseBytes(src)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			s.paths = map[string]bool{}
			avroPaths(sch, "", s.paths)
		case "protobuf":
			protos = append(protos, strings.TrimPrefix(p, "contracts/"))
		default:
			t.Fatalf("%s: format %q", p, s.c.Format)
		}
	}
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: func(path string) (io.ReadCloser, error) {
			if b, ok := files["contracts/"+path]; ok {
				return io.NopCloser(bytes.NewReader(b)), nil
			}
			return nil, os.ErrNotExist
		}})}
	fds, err := comp.Compile(context.Background(), protos...)
	if err != nil {
		t.Fatalf("protos do not compile: %v", err)
	}
	for _, fd := range fds {
		s := byDir["contracts/"+filepath.Dir(fd.Path())]
		s.paths = map[string]bool{}
		protoPaths(fd.Messages().Get(0), "", s.paths, 0)
	}
	return l
}

func avroPaths(s avro.Schema, prefix string, out map[string]bool) {
	switch s := s.(type) {
	case *avro.RecordSchema:
		for _, f := range s.Fields() {
			out[prefix+f.Name()] = true
			avroPaths(f.Type(), prefix+f.Name()+".", out)
		}
	case *avro.ArraySchema:
		avroPaths(s.Items(), prefix, out)
	case *avro.MapSchema:
		avroPaths(s.Values(), prefix, out)
	case *avro.UnionSchema:
		for _, t := range s.Types() {
			avroPaths(t, prefix, out)
		}
	}
}

func protoPaths(md protoreflect.MessageDescriptor, prefix string, out map[string]bool, depth int) {
	if depth > 8 {
		return
	}
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		f := fs.Get(i)
		out[prefix+string(f.Name())] = true
		if f.Message() != nil && !f.IsMap() {
			protoPaths(f.Message(), prefix+string(f.Name())+".", out, depth+1)
		}
	}
}

func TestTreeIsValidAndCountsAreRight(t *testing.T) {
	repo, st, _ := generate(t, smallOpts)
	files, _ := headFiles(t, repo)
	l := load(t, files)
	if len(l.subjects) != smallOpts.Subjects || st.Subjects != smallOpts.Subjects {
		t.Fatalf("%d subjects (stats %d), want %d", len(l.subjects), st.Subjects, smallOpts.Subjects)
	}
	wantConsumers := (smallOpts.Subjects - 1) * smallOpts.ConsumersPerSubject // the common-types subject has none
	if l.consumers != wantConsumers || st.Consumers != wantConsumers {
		t.Fatalf("%d consumers (stats %d), want %d", l.consumers, st.Consumers, wantConsumers)
	}
	if len(l.teams) != 20 || l.teams["platform"] == nil {
		t.Fatalf("teams: %d, platform present: %v", len(l.teams), l.teams["platform"] != nil)
	}
	if l.calendar == 0 || l.calendar != st.CalendarFiles || files["calendar/freezes.yaml"] == nil {
		t.Fatalf("calendar: %d entries (stats %d)", l.calendar, st.CalendarFiles)
	}
	if st.Protobuf < 2 || st.Avro < 2 || st.Avro+st.Protobuf != st.Subjects {
		t.Fatalf("formats: %+v", st)
	}
	if st.Files != len(files) {
		t.Fatalf("stats say %d files, tree has %d", st.Files, len(files))
	}
	domains := map[string]bool{}
	for _, s := range l.subjects {
		domains[strings.Split(s.dir, "/")[1]] = true
		if _, ok := l.teams[s.c.Owner]; !ok {
			t.Errorf("%s: owner %q is not a team", s.dir, s.c.Owner)
		}
		for p := range s.c.Fields {
			if !s.paths[p] {
				t.Errorf("%s: fields: %q is not in the schema", s.dir, p)
			}
		}
	}
	if len(domains) != smallOpts.Domains+1 { // + common
		t.Errorf("%d domains, want %d", len(domains), smallOpts.Domains+1)
	}
	// every read and every lineage field exists; lineage forms multi-hop chains
	next := map[string]string{}
	for name, s := range l.subjects {
		for _, c := range s.consumers {
			if _, ok := l.teams[c.Owner]; !ok {
				t.Errorf("%s/%s: owner %q is not a team", s.dir, c.Name, c.Owner)
			}
			for _, r := range c.Reads {
				if r != "*" && !s.paths[r] {
					t.Errorf("%s/%s reads %q, not in the schema", s.dir, c.Name, r)
				}
			}
			for out, fields := range c.Produces {
				o := l.subjects[out]
				if o == nil {
					t.Fatalf("%s/%s produces unknown subject %s", s.dir, c.Name, out)
				}
				next[name] = out
				for of, ins := range fields {
					if !o.paths[of] {
						t.Errorf("%s/%s: output field %s.%s does not exist", s.dir, c.Name, out, of)
					}
					for _, in := range ins {
						if !s.paths[in] {
							t.Errorf("%s/%s: input field %q does not exist", s.dir, c.Name, in)
						}
					}
				}
			}
		}
	}
	longest := 0
	for s := range next {
		n := 0
		for cur := s; next[cur] != ""; cur = next[cur] {
			n++
			if n > len(next) {
				t.Fatal("lineage cycle")
			}
		}
		longest = max(longest, n)
	}
	if longest < ChainLength-1 {
		t.Errorf("longest lineage chain has %d hops, want %d", longest, ChainLength-1)
	}
}

func TestHistoryEditsSchemas(t *testing.T) {
	repo, st, _ := generate(t, smallOpts)
	if st.Commits != smallOpts.Commits {
		t.Fatalf("stats: %d commits", st.Commits)
	}
	head, err := repo.Head()
	if err != nil || head.Name() != plumbing.NewBranchReferenceName(Branch) {
		t.Fatalf("HEAD: %v %v", head, err)
	}
	n, merges := 0, 0
	var first *object.Commit
	for h := st.Head; !h.IsZero(); {
		c, err := repo.CommitObject(h)
		if err != nil {
			t.Fatal(err)
		}
		n++
		merges += len(c.ParentHashes) / 2
		first = c
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	if n != smallOpts.Commits || merges != 0 {
		t.Fatalf("%d commits, %d merges", n, merges)
	}
	// later commits changed schemas: at least one subject's schema differs from the first commit
	firstTree, _ := first.Tree()
	files, _ := headFiles(t, repo)
	changed := 0
	for p, data := range files {
		if !strings.HasSuffix(p, ".avsc") && !strings.HasSuffix(p, ".proto") {
			continue
		}
		f, err := firstTree.File(p)
		if err != nil {
			t.Fatalf("%s not in the first commit", p)
		}
		old, _ := f.Contents()
		if old != string(data) {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no schema changed over the history")
	}
	t.Logf("%d schemas changed over %d commits", changed, n)
}

func TestDefaultsAndAvroOnly(t *testing.T) {
	repo, st, _ := generate(t, Options{Subjects: 10, Seed: 1})
	files, _ := headFiles(t, repo)
	l := load(t, files)
	if st.Commits != 1 || st.Protobuf != 0 || len(l.subjects) != 10 || l.consumers != 20 {
		t.Fatalf("defaults: %+v, %d subjects, %d consumers", st, len(l.subjects), l.consumers)
	}
	if files["contracts/common/types/common.proto"] != nil {
		t.Fatal("common proto without protobuf subjects")
	}
	_ = fmt.Sprint()
}
