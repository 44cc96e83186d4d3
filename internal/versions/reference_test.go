package versions

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"go.yaml.in/yaml/v3"
)

// reference recomputes the index the slow way: every first-parent commit's whole tree.
type refVersion struct {
	subject string
	version int
	id      int
	blob    string
	commit  string
}

func reference(t *testing.T, r *testRepo, head plumbing.Hash) (map[string][]refVersion, map[string]int) {
	t.Helper()
	var chain []*object.Commit
	for h := head; !h.IsZero(); {
		c, err := r.repo.CommitObject(h)
		if err != nil {
			t.Fatal(err)
		}
		chain = append([]*object.Commit{c}, chain...)
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	versions := map[string][]refVersion{}
	current := map[string]int{}
	ids := map[string]int{}
	for _, c := range chain {
		tree, err := c.Tree()
		if err != nil {
			t.Fatal(err)
		}
		at := map[string]string{} // subject -> blob
		tree.Files().ForEach(func(f *object.File) error {
			parts := strings.Split(f.Name, "/")
			if len(parts) != 4 || parts[0] != "contracts" || parts[3] != "contract.yaml" {
				return nil
			}
			text, _ := f.Contents()
			var ct struct {
				Subject string `yaml:"subject"`
				Schema  string `yaml:"schema"`
			}
			if yaml.Unmarshal([]byte(text), &ct) != nil {
				t.Fatalf("reference: %s does not parse", f.Name)
			}
			sf, err := tree.File(strings.Join(parts[:3], "/") + "/" + ct.Schema)
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			at[ct.Subject] = sf.Hash.String()
			return nil
		})
		subjects := map[string]bool{}
		for s := range at {
			subjects[s] = true
		}
		for s := range current {
			subjects[s] = true
		}
		var sorted []string
		for s := range subjects {
			sorted = append(sorted, s)
		}
		sort.Strings(sorted)
		for _, s := range sorted {
			blob, ok := at[s]
			if !ok {
				current[s] = 0
				continue
			}
			found := 0
			for _, v := range versions[s] {
				if v.blob == blob {
					found = v.version
				}
			}
			if found == 0 {
				id, ok := ids[blob]
				if !ok {
					id = len(ids) + 1
					ids[blob] = id
				}
				found = len(versions[s]) + 1
				versions[s] = append(versions[s], refVersion{s, found, id, blob, c.Hash.String()})
			}
			current[s] = found
		}
	}
	return versions, current
}

// A random history of edits, reverts, shared contents, moves, deletions, re-additions
// and merges from side branches: the index equals the slow reference.
func TestRandomHistoriesMatchReference(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			r := newTestRepo(t)
			pool := []string{avsc("a"), avsc("a", "b"), avsc("a", "c"), avsc("b"), avsc("a", "b", "c")}
			type subj struct {
				name, folder string
				content      string
				present      bool
			}
			var subs []*subj
			for i := 0; i < 6; i++ {
				subs = append(subs, &subj{name: fmt.Sprintf("d.s%d-value", i), folder: fmt.Sprintf("d%d/s%d", i%2, i),
					content: pool[rng.IntN(len(pool))], present: true})
			}
			files := func() map[string]string {
				var m map[string]string
				m = subjectFiles(nil, "x/keep", "x.keep-value", avsc("keep"))
				for _, s := range subs {
					if s.present {
						m = subjectFiles(m, s.folder, s.name, s.content)
					}
				}
				return m
			}
			head := r.commit(files())
			var heads []plumbing.Hash
			for i := 0; i < 60; i++ {
				s := subs[rng.IntN(len(subs))]
				switch op := rng.IntN(10); {
				case op < 5:
					s.content = pool[rng.IntN(len(pool))]
				case op < 7:
					s.folder = fmt.Sprintf("d%d/moved%d", rng.IntN(3), i)
				case op < 9:
					s.present = !s.present
				default: // a side branch with two commits, merged
					s.content = pool[rng.IntN(len(pool))]
					side := r.commit(files(), head)
					s.content = pool[rng.IntN(len(pool))]
					side = r.commit(files(), side)
					head = r.commit(files(), head, side)
					heads = append(heads, head)
					continue
				}
				head = r.commit(files(), head)
				heads = append(heads, head)
			}
			ix := build(t, r, head)
			want, cur := reference(t, r, head)
			for s, vs := range want {
				var got []refVersion
				for _, v := range ix.Versions(s) {
					got = append(got, refVersion{v.Subject, v.Version, v.ID, v.Blob, v.Commit})
				}
				if !reflect.DeepEqual(got, vs) {
					t.Errorf("%s:\n got %v\nwant %v", s, got, vs)
				}
				c, ok := ix.Current(s)
				if (cur[s] != 0) != ok || c.Version != cur[s] {
					t.Errorf("%s: current %d (%v), want %d", s, c.Version, ok, cur[s])
				}
			}
			if len(ix.Subjects()) != len(want) {
				t.Errorf("%d subjects, want %d", len(ix.Subjects()), len(want))
			}
			// and incrementally, from a random midpoint
			mid := build(t, r, heads[rng.IntN(len(heads))])
			if err := mid.Extend(r.repo, head); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(mid.BySubject, ix.BySubject) || !reflect.DeepEqual(mid.Schemas, ix.Schemas) {
				t.Error("Extend from a midpoint differs from Build")
			}
		})
	}
}
