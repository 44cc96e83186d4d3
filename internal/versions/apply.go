package versions

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
)

// walker reads the trees of successive commits (gitrepo.Trees keeps the previous
// commit's trees as the old side of the next comparison) and their blobs.
type walker struct {
	*gitrepo.Trees
	s storer.EncodedObjectStorer
}

// importer is the engine that reads a schema file's imports: its format's, or else
// its extension's, when that format has imports (checker/formats); nil otherwise.
func importer(format, schemaFile string) checker.Engine {
	if e, ok := formats.Lookup(format); ok && e.Describe().Imports {
		return e
	}
	if e, ok := formats.ByExtension(schemaFile); ok && e.Describe().Imports {
		return e
	}
	return nil
}

// evalFolder computes the state of a contract folder from its tree. A message means
// the folder is broken at this commit.
func (w *walker) evalFolder(path string, tree plumbing.Hash, old *FolderState) (*FolderState, string, error) {
	es, err := w.Entries(tree)
	if err != nil {
		return nil, "", err
	}
	nf := &FolderState{Tree: tree.String()}
	var cy *object.TreeEntry
	files := map[string]object.TreeEntry{}
	for i, e := range es {
		if e.Name == contract.ContractFile {
			cy = &es[i]
		}
		if e.Mode.IsFile() && e.Mode != filemode.Symlink {
			files[e.Name] = e
		}
	}
	if cy == nil {
		if old != nil && old.Subject != "" {
			// As for the loader, a subject folder without contract.yaml is broken, not
			// deleted: a subject is deleted with its folder.
			return nf, "the folder has no contract.yaml", nil
		}
		return nf, "", nil // never held a subject
	}
	nf.ContractBlob = cy.Hash.String()
	if cy.Mode == filemode.Symlink || !cy.Mode.IsFile() {
		return nf, "contract.yaml is not a regular file", nil
	}
	if old != nil && !old.Broken && old.ContractBlob == nf.ContractBlob {
		nf.Subject, nf.Schema, nf.Format, nf.Compatibility, nf.DataContract, nf.Rules = old.Subject, old.Schema, old.Format, old.Compatibility, old.DataContract, old.Rules
	} else {
		data, err := gitrepo.ReadBlob(w.s, cy.Hash, contract.MaxYAMLBytes)
		if errors.Is(err, gitrepo.ErrTooLarge) {
			return nf, fmt.Sprintf("contract.yaml is larger than the limit of %d MiB", contract.MaxYAMLBytes>>20), nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("read %s/%s: %w", path, contract.ContractFile, err)
		}
		h, ds := contract.DecodeHead(path+"/"+contract.ContractFile, data)
		if h.Subject == "" || h.Schema == "" {
			return nf, problem(ds), nil
		}
		nf.Subject, nf.Schema, nf.Format, nf.Compatibility, nf.DataContract, nf.Rules = h.Subject, h.Schema, h.Format, h.Compatibility, h.DataContract, h.Rules
	}
	e, ok := files[nf.Schema]
	if !ok {
		return nf, fmt.Sprintf("schema file %q is not in this folder (or is not a regular file)", nf.Schema), nil
	}
	if size, err := gitrepo.BlobSize(w.s, e.Hash); err != nil {
		return nil, "", fmt.Errorf("read %s/%s: %w", path, nf.Schema, err)
	} else if size > contract.MaxSchemaBytes {
		return nf, fmt.Sprintf("schema file %q is larger than the limit of %d MiB", nf.Schema, contract.MaxSchemaBytes>>20), nil
	}
	nf.SchemaBlob = e.Hash.String()
	return nf, "", nil
}

// problem is the first error of a contract.yaml that is not a subject, as a warning's
// message ("line:column: sentence").
func problem(ds contract.Diagnostics) string {
	for _, d := range ds {
		if d.Severity == contract.Error {
			return fmt.Sprintf("contract.yaml:%d:%d: %s", d.Line, d.Column, d.Message)
		}
	}
	return "contract.yaml names no subject or no schema"
}

func (ix *Index) apply(w *walker, c commitStep, prevTree plumbing.Hash) error {
	changes, err := w.ChangedDirs(prevTree, c.tree, ContractsDir, 2)
	if err != nil {
		return fmt.Errorf("versions: compare commit %s with its parent: %w", c.hash, err)
	}
	if len(changes) == 0 {
		return nil
	}
	commit := c.hash.String() // one string for every version and warning of the commit
	touched := map[string]bool{}
	for _, d := range changes {
		p, nh := d.Path, d.New
		old := ix.Folders[p]
		if old != nil {
			touched[old.Subject] = true
		}
		if nh.IsZero() {
			if old != nil {
				ix.removeSubjFolder(old.Subject, p)
				delete(ix.Folders, p)
			}
			continue
		}
		nf, problem, err := w.evalFolder(p, nh, old)
		if err != nil {
			return err
		}
		if problem != "" {
			ix.Warnings = append(ix.Warnings, Warning{Commit: commit, Path: p, Message: problem})
			// Skip the folder at this commit: keep what was known of it before.
			kept := &FolderState{Tree: nf.Tree, ContractBlob: nf.ContractBlob, Broken: true}
			if old != nil {
				kept.Subject, kept.Schema, kept.Format, kept.Compatibility, kept.DataContract, kept.Rules, kept.SchemaBlob =
					old.Subject, old.Schema, old.Format, old.Compatibility, old.DataContract, old.Rules, old.SchemaBlob
			}
			nf = kept
		}
		if old != nil {
			ix.removeSubjFolder(old.Subject, p)
		}
		ix.Folders[p] = nf
		ix.addSubjFolder(nf.Subject, p)
		touched[nf.Subject] = true
	}
	delete(touched, "")
	var added []string
	for _, s := range slices.Sorted(maps.Keys(touched)) {
		isNew, err := ix.resolve(w, c, commit, s)
		if err != nil {
			return err
		}
		if isNew {
			added = append(added, s)
		}
	}
	// Ids are given once every subject of the commit is resolved: a version's
	// references pin the versions of this commit too, and they are part of its id.
	for _, s := range added {
		ix.assignID(s)
	}
	return nil
}

// resolve sets a subject's current version after its folders changed at commit c (id:
// its hash as text); isNew says it is a new version, whose references and id assignID
// gives.
func (ix *Index) resolve(w *walker, c commitStep, id, subject string) (isNew bool, err error) {
	h := ix.history(subject)
	var folders []string
	for _, p := range h.Folders {
		if ix.Folders[p].SchemaBlob != "" {
			folders = append(folders, p)
		}
	}
	if len(folders) == 0 {
		h.Current, h.Folder = 0, ""
		return false, nil
	}
	if len(folders) > 1 {
		ix.Warnings = append(ix.Warnings, Warning{Commit: id, Path: folders[1],
			Message: fmt.Sprintf("subject %q is also defined in %s; using %s", subject, folders[0], folders[0])})
	}
	f := ix.Folders[folders[0]]
	h.Folder = folders[0]
	key, data, err := ix.canonicalKey(w, f)
	if err != nil {
		return false, fmt.Errorf("versions: read %s/%s at %s: %w", folders[0], f.Schema, c.hash, err)
	}
	dc := f.DataContract
	if n := len(h.Versions); !f.Rules && n > 0 && h.Versions[n-1].Rules {
		// Rules removed while the latest version has some: publish registers an
		// empty ruleSet (an absent one would carry the latest's rules over), which
		// Confluent stores as a version of its own, even when the pair was an earlier
		// version's; so is it here.
		dc += EmptiedRuleSet
	}
	for _, v := range h.Versions {
		if v.Canonical == key && v.DataContract == dc {
			h.Current = v.Version
			return false, nil
		}
	}
	v := Version{
		Subject:       subject,
		Version:       len(h.Versions) + 1,
		Blob:          f.SchemaBlob,
		Canonical:     key,
		DataContract:  dc,
		Rules:         f.Rules,
		Path:          folders[0] + "/" + f.Schema,
		Format:        f.Format,
		Compatibility: f.Compatibility,
		Commit:        id,
		Time:          c.when,
	}
	if eng := importer(f.Format, f.Schema); eng != nil {
		if data == nil {
			if data, err = gitrepo.ReadBlob(w.s, plumbing.NewHash(f.SchemaBlob), contract.MaxSchemaBytes); err != nil {
				return false, fmt.Errorf("versions: read %s at %s: %w", v.Path, c.hash, err)
			}
		}
		v.Imports = eng.Imports(data)
	}
	h.Versions = append(h.Versions, v)
	h.Current = v.Version
	ix.notePath(v.Path, subject)
	return true, nil
}

// canonicalKey returns the key of a folder's schema as the index compares versions:
// the checker.CanonicalKey of its canonical form in its format (contract.yaml's
// `format:`, else the file's extension), or "blob:<hash>" when the text does not parse
// in it. A blob's key is computed once; data is its text when it had to be read.
func (ix *Index) canonicalKey(w *walker, f *FolderState) (key string, data []byte, err error) {
	if ix.canon == nil {
		ix.canon = map[string]string{}
		for _, h := range ix.BySubject {
			for _, v := range h.Versions {
				ix.canon[v.Blob] = v.Canonical
			}
		}
	}
	if key, ok := ix.canon[f.SchemaBlob]; ok && key != "" {
		return key, nil, nil
	}
	data, err = gitrepo.ReadBlob(w.s, plumbing.NewHash(f.SchemaBlob), contract.MaxSchemaBytes)
	if err != nil {
		return "", nil, err
	}
	key = CanonicalKey(f.Format, f.Schema, data)
	if key == "" {
		key = "blob:" + f.SchemaBlob
	}
	ix.canon[f.SchemaBlob] = key
	return key, data, nil
}

// CanonicalKey is the key under which the index identifies a schema text of a format
// (contract.yaml's `format:`, else schemaFile's extension names the engine):
// checker.CanonicalKey of its checker.Canonical form; "" when the text does not parse.
func CanonicalKey(format, schemaFile string, text []byte) string {
	eng, ok := formats.Lookup(format)
	if !ok {
		eng, _ = formats.ByExtension(schemaFile)
	}
	canon, err := checker.Canonical(eng, text)
	if err != nil {
		return ""
	}
	return checker.CanonicalKey(canon)
}
