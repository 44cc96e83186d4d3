// Package change loads what a change to a contract repository touches, for the
// verdict: the subject folders that differ between a base and a head, the folders
// whose Protobuf files import them, the subjects their lineage reaches, and the
// earlier versions of schemas at _TRANSITIVE levels. The CLI's check and the bot both
// use it, so they evaluate the same trees.
package change

import (
	"bytes"
	"fmt"
	"path"
	"slices"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/versions"
)

// Change is the two sides of a change.
type Change struct {
	Base, Head contract.Source
	// Repo and HistoryAt, when set, give the first-parent history that holds the
	// earlier versions of the base's schemas.
	Repo      *git.Repository
	HistoryAt plumbing.Hash
}

// Loaded is a change, loaded.
type Loaded struct {
	Base, Head *contract.Tree
	// Dirs are the subject folders evaluated.
	Dirs []string
	// History returns every distinct canonical form (checker.Canonical, the first
	// text of each) a subject's schema file had along the
	// base's first-parent history, oldest first, the base's own included (nil when
	// there is no history), for verdict.Input.History.
	History func(subject string) []contract.Earlier
}

// Load finds what changed and loads it on both sides.
func Load(c Change) (*Loaded, error) {
	dirs, err := ChangedDirs(c.Base, c.Head)
	if err != nil {
		return nil, err
	}
	if dirs, err = WithImporters(c.Head, dirs); err != nil {
		return nil, err
	}
	producers, err := producersOfRules(c.Base, c.Head, dirs)
	if err != nil {
		return nil, err
	}
	dirs = append(dirs, producers...)
	slices.Sort(dirs)
	baseIndex, baseDups, err := contract.SubjectNames(c.Base)
	if err != nil {
		return nil, err
	}
	headIndex, err := UpdateIndex(baseIndex, c.Base, c.Head, dirs)
	if err != nil {
		return nil, err
	}
	l := &Loaded{}
	if l.Dirs, l.Base, l.Head, err = loadBoth(c, dirs, baseIndex, headIndex); err != nil {
		return nil, err
	}
	if err := treeWide(c.Base, c.Head, l, baseIndex, baseDups, headIndex, dirs); err != nil {
		return nil, err
	}
	if c.Repo != nil && !c.HistoryAt.IsZero() {
		if l.History, err = earlierVersions(c.Repo, c.HistoryAt, l.Base, l.Head); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// treeWide adds to head, loaded partially, the errors of the whole tree that a
// partial load does not see and lint reports: subjects claimed by two folders, and
// links or misplaced files in contracts/ and its domain folders. They block the change
// whichever folders it touches: lint fails on that head too. When teams.yaml changed,
// every owner of the head is checked against it as well, and when a changed subject
// lost its name or a field, the consumer files that produce into it.
func treeWide(base, src contract.Source, l *Loaded, baseIndex contract.Index, baseDups map[string][]string, index contract.Index, dirs []string) error {
	head := l.Head
	folders, err := UpdateDuplicates(baseIndex, baseDups, src, dirs)
	if err != nil {
		return fmt.Errorf("index the subjects of %s: %w", src.Describe(), err)
	}
	dups, err := contract.DuplicateSubjects(src, folders)
	if err != nil {
		return fmt.Errorf("look for duplicate subjects in %s: %w", src.Describe(), err)
	}
	layout, err := contract.LayoutDiagnostics(src)
	if err != nil {
		return fmt.Errorf("check the layout of %s: %w", src.Describe(), err)
	}
	head.AddDuplicates(folders)
	ds := append(dups, layout...)
	if teamsChanged(base, src) {
		owners, err := contract.TeamOwners(src, head.Teams)
		if err != nil {
			return fmt.Errorf("check the owners in %s against its teams.yaml: %w", src.Describe(), err)
		}
		ds = append(ds, owners...)
	}
	producers, err := producerErrors(src, l.Base, head, dirs, index)
	if err != nil {
		return err
	}
	ds = append(ds, producers...)
	owners, err := codeownersErrors(base, src, l)
	if err != nil {
		return err
	}
	ds = append(ds, owners...)
	head.AddTreeWide(ds)
	return nil
}

// teamsChanged reports whether teams.yaml differs between two sources (a file that
// cannot be read counts as changed).
func teamsChanged(base, head contract.Source) bool {
	b, berr := base.ReadFile(contract.TeamsFile, contract.MaxYAMLBytes)
	h, herr := head.ReadFile(contract.TeamsFile, contract.MaxYAMLBytes)
	return berr != nil || herr != nil || !bytes.Equal(b, h)
}

// earlierVersions reads the distinct earlier canonical forms of the schema files of the
// changed subjects, along the first-parent history at at: the _TRANSITIVE levels
// check against them, and every finding can name the version it fails against.
func earlierVersions(repo *git.Repository, at plumbing.Hash, base, head *contract.Tree) (func(string) []contract.Earlier, error) {
	bySubject := map[string]*contract.Subject{}
	grouped := map[string]bool{} // the head is in a compatibility group: its history's groups are read
	var paths []string
	for _, s := range head.Subjects {
		if b := base.Subject(s.Subject); b != nil && b.SchemaFile != "" {
			bySubject[s.Subject] = b
			grouped[s.Subject] = s.Group != nil
			paths = append(paths, b.SchemaFile)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	found, err := versions.PathHistoryBeside(repo, at, paths, contract.ContractFile)
	if err != nil {
		return nil, fmt.Errorf("read schema history: %w", err)
	}
	return func(subject string) []contract.Earlier {
		b := bySubject[subject]
		if b == nil {
			return nil
		}
		// One entry per canonical form, the first text of each, as the versions index
		// and a registry number versions: a layout-only change is no version.
		var out []contract.Earlier
		seen := map[string]bool{}
		for _, f := range found[b.SchemaFile] {
			data, err := gitrepo.ReadBlob(repo.Storer, f.Blob, contract.MaxSchemaBytes)
			if err != nil {
				continue
			}
			key := "blob:" + f.Blob.String()
			form, err := checker.Canonical(b.Engine(), data)
			if err == nil {
				key = checker.CanonicalKey(form)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			e := contract.Earlier{Input: checker.Input{Path: fmt.Sprintf("%s@%d", b.SchemaFile, len(out)+1), Data: data, Canonical: form}}
			if grouped[subject] && !f.Beside.IsZero() {
				if yml, err := gitrepo.ReadBlob(repo.Storer, f.Beside, contract.MaxYAMLBytes); err == nil {
					if c := contract.DecodeDataContract(path.Dir(b.SchemaFile)+"/"+contract.ContractFile, yml); c != nil {
						e.Group, e.GroupKnown = c.Group, true
					}
				}
			}
			out = append(out, e)
		}
		return out
	}, nil
}

// Between loads the change from base to head, two commits of repo, with the earlier
// versions along base's first-parent history: the pull request the bot evaluates
// (base is the merge base), the merge a publish describes (base is its first parent)
// and `contractbot check --rev` all load a change this way. A zero base is the empty
// tree (a root commit).
func Between(repo *git.Repository, base, head plumbing.Hash) (*Loaded, error) {
	src, err := contract.NewGitSource(repo, head.String())
	if err != nil {
		return nil, fmt.Errorf("open the head %s: %w", short(head), err)
	}
	l, err := From(repo, base, src)
	if err != nil {
		return nil, fmt.Errorf("load the change from %s to %s: %w", short(base), short(head), err)
	}
	return l, nil
}

// From loads the change from base, a commit of repo, to head, with the earlier
// versions along base's first-parent history, as Between does: head is a commit
// (Between) or a working tree checked out from one (`contractbot check`, whose
// contract.WorkTree reads only what differs from its commit). A zero base is the
// empty tree.
func From(repo *git.Repository, base plumbing.Hash, head contract.Source) (*Loaded, error) {
	c := Change{Base: contract.MemSource{}, Head: head, Repo: repo}
	if !base.IsZero() {
		src, err := contract.NewGitSource(repo, base.String())
		if err != nil {
			return nil, fmt.Errorf("open the base %s: %w", short(base), err)
		}
		c.Base, c.HistoryAt = src, base
	}
	return Load(c)
}

func short(h plumbing.Hash) string { return h.String()[:12] }
