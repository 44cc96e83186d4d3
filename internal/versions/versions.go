// Package versions builds the versions index of a contract repository: for every
// registry subject, the successive distinct contents of its schema file along the
// default branch's first-parent history, and a global schema id for every distinct
// content. It reads Git objects only (go-git), never a working tree.
//
// Semantics (see docs/performance.md and DESIGN.md "Versions"):
//
//   - A subject is the `subject:` of contracts/<domain>/<name>/contract.yaml; its schema
//     is the file named by `schema:` in that folder. The folder may move (rename); the
//     subject keeps its history because it is identified by name, not by path.
//   - Version N of a subject is the N-th distinct content of its schema file. Content is
//     compared byte for byte (Git blob hash). A content that returns to an earlier text
//     is NOT a new version: the subject's current version becomes that earlier version,
//     exactly as a Confluent registry returns the existing version when an already
//     registered schema is registered again. Latest is the highest version number;
//     Current is the version whose content is at Head (they differ after a revert).
//   - Global schema ids start at 1 and are assigned in order of first appearance over the
//     whole history; within one commit, in subject-name order. The same content under
//     two subjects shares one id (as in a Confluent registry). Ids never change.
//   - Only the first parent of each commit is followed: changes made on a side branch
//     appear at the merge commit that brings them in.
//   - A broken contract folder (contract.yaml that does not parse, lacks subject or
//     schema, or names a schema file that is not in the folder) is skipped at that commit
//     with a Warning: the subject keeps the state it had before, and the folder is looked
//     at again when it changes.
//   - A subject whose folder disappears is deleted at that commit (Current reports false);
//     its versions and ids stay. If it comes back, an earlier content is again an earlier
//     version, a new content is the next version.
//   - A change of compatibility or format alone is not a version; each version records
//     the values of the commit where it first appeared.
//
// Build needs the whole first-parent history (not a shallow clone). Reads (Subjects,
// Versions, ...) may run concurrently with each other, not with Extend. Open
// repositories with gitrepo.Open for speed (see docs/performance.md).
package versions

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"go.yaml.in/yaml/v3"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
)

// ErrHistoryRewritten is returned by Extend when the indexed head is not a first-parent
// ancestor of the new head: the default branch was rewritten and the bot refuses to act.
var ErrHistoryRewritten = errors.New("versions: history rewritten: indexed head is not a first-parent ancestor of the new head")

// ContractsDir is the folder of the repository that holds the subject folders.
const ContractsDir = "contracts"

// Version is one version of one subject.
type Version struct {
	Subject       string    `json:"subject"`
	Version       int       `json:"version"`           // 1-based, per subject
	ID            int       `json:"id"`                // global schema id, 1-based
	Blob          string    `json:"blob"`              // Git blob hash of the schema content
	Path          string    `json:"path"`              // schema file path where it first appeared
	Format        string    `json:"format"`            // contract.yaml `format:` at that commit
	Compatibility string    `json:"compatibility"`     // contract.yaml `compatibility:` at that commit
	Commit        string    `json:"commit"`            // first-parent commit where it first appeared
	Time          time.Time `json:"time"`              // that commit's committer time (UTC)
	Imports       []string  `json:"imports,omitempty"` // protobuf only: `import "..."` paths
}

// Warning records a contract folder skipped at a commit.
type Warning struct {
	Commit  string `json:"commit"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// SubjectHistory is the state of one subject.
type SubjectHistory struct {
	Versions []Version `json:"versions"`
	// Current is the version number whose content is at Head; 0 when the subject is
	// deleted at Head.
	Current int `json:"current"`
	// Folder is the subject's folder at Head ("" when deleted).
	Folder string `json:"folder,omitempty"`
	// Folders lists every folder whose contract.yaml names the subject at Head, sorted
	// (more than one is an error in the tree: the first one wins, with a warning).
	Folders []string `json:"folders,omitempty"`
}

// SubjectVersion names one version of one subject.
type SubjectVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// SchemaEntry is one global schema id: its content and every subject version using it.
type SchemaEntry struct {
	ID   int              `json:"id"`
	Blob string           `json:"blob"`
	Uses []SubjectVersion `json:"uses"`
}

// FolderState is what the index remembers of one contract folder at Head, so that
// Extend only looks at folders whose tree changed.
type FolderState struct {
	Tree          string `json:"tree"`
	ContractBlob  string `json:"contract_blob,omitempty"`
	Subject       string `json:"subject,omitempty"`
	Schema        string `json:"schema,omitempty"`
	Format        string `json:"format,omitempty"`
	Compatibility string `json:"compatibility,omitempty"`
	SchemaBlob    string `json:"schema_blob,omitempty"`
	Broken        bool   `json:"broken,omitempty"`
}

// Index is the versions index. It is JSON-serialisable, so the bot can cache it and
// Extend it later; all fields are exported for that purpose, but use the methods.
type Index struct {
	// Head is the last indexed commit ("" for an empty index).
	Head string `json:"head"`
	// HeadTree is Head's root tree.
	HeadTree string `json:"head_tree,omitempty"`
	// Commits is the number of first-parent commits indexed.
	Commits   int                        `json:"commits"`
	BySubject map[string]*SubjectHistory `json:"subjects"`
	Schemas   []SchemaEntry              `json:"schemas"` // Schemas[i].ID == i+1
	Folders   map[string]*FolderState    `json:"folders"`
	Warnings  []Warning                  `json:"warnings,omitempty"`

	blobID map[string]int // derived from Schemas on first need
}

// New returns an empty index.
func New() *Index {
	return &Index{BySubject: map[string]*SubjectHistory{}, Folders: map[string]*FolderState{}}
}

// Build indexes the first-parent history ending at head in one pass.
func Build(repo *git.Repository, head plumbing.Hash) (*Index, error) {
	ix := New()
	if err := ix.Extend(repo, head); err != nil {
		return nil, err
	}
	return ix, nil
}

// HeadHash returns the last indexed commit (ZeroHash for an empty index).
func (ix *Index) HeadHash() plumbing.Hash {
	if ix.Head == "" {
		return plumbing.ZeroHash
	}
	return plumbing.NewHash(ix.Head)
}

// Extend indexes the first-parent commits after ix.Head up to newHead. It returns
// ErrHistoryRewritten, leaving the index untouched, when ix.Head is not a first-parent
// ancestor of newHead. On any other error the index stays consistent at the last commit
// it applied completely (ix.Head says which).
func (ix *Index) Extend(repo *git.Repository, newHead plumbing.Hash) error {
	return ix.ExtendStorer(repo.Storer, newHead)
}

// ExtendStorer is Extend over a bare object storer.
func (ix *Index) ExtendStorer(s storer.EncodedObjectStorer, newHead plumbing.Hash) error {
	ix.ensureMaps()
	old := ix.HeadHash()
	if newHead == old {
		return nil
	}
	// Walk back along first parents until the indexed head (or the root).
	var chain []*object.Commit
	for h := newHead; ; {
		if !old.IsZero() && h == old {
			break
		}
		c, err := object.GetCommit(s, h)
		if err != nil {
			return fmt.Errorf("versions: reading commit %s: %w", h, err)
		}
		chain = append(chain, c)
		if len(c.ParentHashes) == 0 {
			if !old.IsZero() {
				return ErrHistoryRewritten
			}
			break
		}
		h = c.ParentHashes[0]
	}
	w := &walker{s: s, cur: map[plumbing.Hash][]object.TreeEntry{}, prev: map[plumbing.Hash][]object.TreeEntry{}}
	prevTree := plumbing.ZeroHash
	if ix.HeadTree != "" {
		prevTree = plumbing.NewHash(ix.HeadTree)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		if err := ix.apply(w, c, prevTree); err != nil {
			return err
		}
		prevTree = c.TreeHash
		ix.Head = c.Hash.String()
		ix.HeadTree = c.TreeHash.String()
		ix.Commits++
		w.prev, w.cur = w.cur, make(map[plumbing.Hash][]object.TreeEntry, len(w.cur))
	}
	return nil
}

// Subjects returns every subject that ever had a version, sorted (deleted ones too;
// see Current).
func (ix *Index) Subjects() []string {
	out := make([]string, 0, len(ix.BySubject))
	for s, h := range ix.BySubject {
		if len(h.Versions) > 0 {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Versions returns a subject's versions, oldest first (nil if unknown).
func (ix *Index) Versions(subject string) []Version {
	h := ix.BySubject[subject]
	if h == nil {
		return nil
	}
	return append([]Version(nil), h.Versions...)
}

// Latest returns the subject's highest version (what a registry calls "latest").
func (ix *Index) Latest(subject string) (Version, bool) {
	h := ix.BySubject[subject]
	if h == nil || len(h.Versions) == 0 {
		return Version{}, false
	}
	return h.Versions[len(h.Versions)-1], true
}

// Current returns the version whose content is the subject's schema at Head; false
// when the subject is not in the tree at Head.
func (ix *Index) Current(subject string) (Version, bool) {
	h := ix.BySubject[subject]
	if h == nil || h.Current == 0 {
		return Version{}, false
	}
	return h.Versions[h.Current-1], true
}

// ByID returns every subject version with the given global schema id, in order of
// appearance (nil if the id is unknown).
func (ix *Index) ByID(id int) []Version {
	if id < 1 || id > len(ix.Schemas) {
		return nil
	}
	var out []Version
	for _, u := range ix.Schemas[id-1].Uses {
		if h := ix.BySubject[u.Subject]; h != nil && u.Version >= 1 && u.Version <= len(h.Versions) {
			out = append(out, h.Versions[u.Version-1])
		}
	}
	return out
}

// Schema reads a version's schema text from the repository.
func (ix *Index) Schema(repo *git.Repository, v Version) ([]byte, error) {
	return readBlob(repo.Storer, plumbing.NewHash(v.Blob))
}

func readBlob(s storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	o, err := s.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("versions: reading blob %s: %w", h, err)
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

func (ix *Index) ensureMaps() {
	if ix.BySubject == nil {
		ix.BySubject = map[string]*SubjectHistory{}
	}
	if ix.Folders == nil {
		ix.Folders = map[string]*FolderState{}
	}
}

// idOf returns the id of a content, building the blob -> id map on first use.
func (ix *Index) idOf(blob string) (int, bool) {
	if ix.blobID == nil {
		ix.blobID = make(map[string]int, len(ix.Schemas))
		for _, e := range ix.Schemas {
			ix.blobID[e.Blob] = e.ID
		}
	}
	id, ok := ix.blobID[blob]
	return id, ok
}

func (ix *Index) history(subject string) *SubjectHistory {
	h := ix.BySubject[subject]
	if h == nil {
		h = &SubjectHistory{}
		ix.BySubject[subject] = h
	}
	return h
}

func (ix *Index) addSubjFolder(subject, path string) {
	if subject == "" {
		return
	}
	h := ix.history(subject)
	i := sort.SearchStrings(h.Folders, path)
	if i < len(h.Folders) && h.Folders[i] == path {
		return
	}
	h.Folders = append(h.Folders, "")
	copy(h.Folders[i+1:], h.Folders[i:])
	h.Folders[i] = path
}

func (ix *Index) removeSubjFolder(subject, path string) {
	h := ix.BySubject[subject]
	if h == nil {
		return
	}
	i := sort.SearchStrings(h.Folders, path)
	if i < len(h.Folders) && h.Folders[i] == path {
		h.Folders = append(h.Folders[:i], h.Folders[i+1:]...)
	}
	if len(h.Folders) == 0 {
		h.Folders = nil
	}
}

// walker reads trees with a two-generation cache: trees of the previous commit are the
// old side of the next diff.
type walker struct {
	s         storer.EncodedObjectStorer
	cur, prev map[plumbing.Hash][]object.TreeEntry
	buf       bytes.Buffer
}

func (w *walker) entries(h plumbing.Hash) ([]object.TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	if e, ok := w.cur[h]; ok {
		return e, nil
	}
	if e, ok := w.prev[h]; ok {
		w.cur[h] = e
		return e, nil
	}
	o, err := w.s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("versions: reading tree %s: %w", h, err)
	}
	r, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("versions: reading tree %s: %w", h, err)
	}
	w.buf.Reset()
	_, err = w.buf.ReadFrom(r)
	r.Close()
	if err != nil {
		return nil, fmt.Errorf("versions: reading tree %s: %w", h, err)
	}
	es, err := parseTree(w.buf.String())
	if err != nil {
		return nil, fmt.Errorf("versions: tree %s: %w", h, err)
	}
	w.cur[h] = es
	return es, nil
}

// parseTree decodes a raw tree object ("<octal mode> <name>\x00<20-byte hash>"...).
// It is several times cheaper than object.Tree.Decode: the names are substrings of the
// one string holding the raw tree, so a tree costs two allocations.
func parseTree(b string) ([]object.TreeEntry, error) {
	es := make([]object.TreeEntry, 0, len(b)/40)
	for len(b) > 0 {
		sp := strings.IndexByte(b, ' ')
		if sp < 0 {
			return nil, errors.New("malformed tree: no mode terminator")
		}
		var mode uint32
		for i := 0; i < sp; i++ {
			c := b[i]
			if c < '0' || c > '7' {
				return nil, errors.New("malformed tree: bad mode")
			}
			mode = mode<<3 | uint32(c-'0')
		}
		b = b[sp+1:]
		nul := strings.IndexByte(b, 0)
		if nul < 0 || len(b) < nul+1+20 {
			return nil, errors.New("malformed tree: truncated entry")
		}
		e := object.TreeEntry{Name: b[:nul], Mode: filemode.FileMode(mode)}
		copy(e.Hash[:], b[nul+1:nul+21])
		es = append(es, e)
		b = b[nul+21:]
	}
	return es, nil
}

func dirEntry(es []object.TreeEntry, name string) plumbing.Hash {
	for _, e := range es {
		if e.Name == name && e.Mode == filemode.Dir {
			return e.Hash
		}
	}
	return plumbing.ZeroHash
}

// gitCompare orders tree entries as Git does: by name, a directory's name followed by '/'.
func gitCompare(a, b *object.TreeEntry) int {
	an, bn := a.Name, b.Name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	ac, bc := termChar(a, n), termChar(b, n)
	switch {
	case ac < bc:
		return -1
	case ac > bc:
		return 1
	}
	return 0
}

// termChar is the byte at position n of an entry's sort name (name + "/" for dirs),
// 0 past its end.
func termChar(e *object.TreeEntry, n int) int {
	if n < len(e.Name) {
		return int(e.Name[n])
	}
	if n == len(e.Name) && e.Mode == filemode.Dir {
		return '/'
	}
	return 0
}

// dirChange is a sub-directory whose hash differs between two trees.
type dirChange struct {
	name     string
	old, new plumbing.Hash // ZeroHash when absent
}

// diffDirs returns the sub-directories of two trees whose hashes differ (added,
// removed or changed), in Git order, by merging the two sorted entry lists.
func (w *walker) diffDirs(oldH, newH plumbing.Hash, out []dirChange) ([]dirChange, error) {
	oe, err := w.entries(oldH)
	if err != nil {
		return nil, err
	}
	ne, err := w.entries(newH)
	if err != nil {
		return nil, err
	}
	i, j := 0, 0
	for i < len(oe) || j < len(ne) {
		var c int
		switch {
		case i == len(oe):
			c = 1
		case j == len(ne):
			c = -1
		default:
			c = gitCompare(&oe[i], &ne[j])
		}
		switch {
		case c < 0:
			if oe[i].Mode == filemode.Dir {
				out = append(out, dirChange{oe[i].Name, oe[i].Hash, plumbing.ZeroHash})
			}
			i++
		case c > 0:
			if ne[j].Mode == filemode.Dir {
				out = append(out, dirChange{ne[j].Name, plumbing.ZeroHash, ne[j].Hash})
			}
			j++
		default:
			if oe[i].Hash != ne[j].Hash && oe[i].Mode == filemode.Dir {
				out = append(out, dirChange{ne[j].Name, oe[i].Hash, ne[j].Hash})
			}
			i++
			j++
		}
	}
	return out, nil
}

// changedFolders lists the contract folders contracts/<domain>/<name> whose tree differs
// between two root trees, with their new tree hash (ZeroHash when removed). Only changed
// subtrees are read.
func (w *walker) changedFolders(oldRoot, newRoot plumbing.Hash) ([]string, map[string]plumbing.Hash, error) {
	if oldRoot == newRoot {
		return nil, nil, nil
	}
	oe, err := w.entries(oldRoot)
	if err != nil {
		return nil, nil, err
	}
	ne, err := w.entries(newRoot)
	if err != nil {
		return nil, nil, err
	}
	oc, nc := dirEntry(oe, ContractsDir), dirEntry(ne, ContractsDir)
	if oc == nc {
		return nil, nil, nil
	}
	domains, err := w.diffDirs(oc, nc, nil)
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	newHashes := map[string]plumbing.Hash{}
	var names []dirChange
	for _, d := range domains {
		if names, err = w.diffDirs(d.old, d.new, names[:0]); err != nil {
			return nil, nil, err
		}
		for _, n := range names {
			p := ContractsDir + "/" + d.name + "/" + n.name
			paths = append(paths, p)
			newHashes[p] = n.new
		}
	}
	return paths, newHashes, nil
}

type contractYAML struct {
	Subject       string `yaml:"subject"`
	Schema        string `yaml:"schema"`
	Format        string `yaml:"format"`
	Compatibility string `yaml:"compatibility"`
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

// evalFolder computes the state of a contract folder from its tree. ok=false with a
// message means the folder is broken at this commit.
func (w *walker) evalFolder(path string, tree plumbing.Hash, old *FolderState) (*FolderState, string, error) {
	es, err := w.entries(tree)
	if err != nil {
		return nil, "", err
	}
	nf := &FolderState{Tree: tree.String()}
	var contract *object.TreeEntry
	files := map[string]object.TreeEntry{}
	for i, e := range es {
		if e.Name == "contract.yaml" {
			contract = &es[i]
		}
		if e.Mode.IsFile() && e.Mode != filemode.Symlink {
			files[e.Name] = e
		}
	}
	if contract == nil {
		return nf, "", nil // not a contract folder (e.g. shared protos)
	}
	nf.ContractBlob = contract.Hash.String()
	if contract.Mode == filemode.Symlink || !contract.Mode.IsFile() {
		return nf, "contract.yaml is not a regular file", nil
	}
	if old != nil && !old.Broken && old.ContractBlob == nf.ContractBlob {
		nf.Subject, nf.Schema, nf.Format, nf.Compatibility = old.Subject, old.Schema, old.Format, old.Compatibility
	} else {
		data, err := readBlob(w.s, contract.Hash)
		if err != nil {
			return nil, "", err
		}
		var c contractYAML
		if err := yaml.Unmarshal(data, &c); err != nil {
			return nf, "contract.yaml does not parse: " + err.Error(), nil
		}
		if c.Subject == "" {
			return nf, "contract.yaml has no subject", nil
		}
		if c.Schema == "" {
			return nf, "contract.yaml has no schema", nil
		}
		nf.Subject, nf.Schema, nf.Format, nf.Compatibility = c.Subject, c.Schema, c.Format, c.Compatibility
	}
	if strings.ContainsAny(nf.Schema, `/\`) || nf.Schema == "." || nf.Schema == ".." {
		return nf, fmt.Sprintf("schema %q is not a file name in this folder", nf.Schema), nil
	}
	e, ok := files[nf.Schema]
	if !ok {
		return nf, fmt.Sprintf("schema file %q is not in this folder (or is not a regular file)", nf.Schema), nil
	}
	nf.SchemaBlob = e.Hash.String()
	return nf, "", nil
}

func (ix *Index) apply(w *walker, c *object.Commit, prevTree plumbing.Hash) error {
	paths, newHashes, err := w.changedFolders(prevTree, c.TreeHash)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return nil
	}
	commit := c.Hash.String()
	touched := map[string]bool{}
	for _, p := range paths {
		old := ix.Folders[p]
		nh := newHashes[p]
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
				kept.Subject, kept.Schema, kept.Format, kept.Compatibility, kept.SchemaBlob =
					old.Subject, old.Schema, old.Format, old.Compatibility, old.SchemaBlob
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
	subjects := make([]string, 0, len(touched))
	for s := range touched {
		subjects = append(subjects, s)
	}
	sort.Strings(subjects)
	for _, s := range subjects {
		if err := ix.resolve(w, c, s); err != nil {
			return err
		}
	}
	return nil
}

// resolve sets a subject's current version after its folders changed.
func (ix *Index) resolve(w *walker, c *object.Commit, subject string) error {
	h := ix.history(subject)
	var folders []string
	for _, p := range h.Folders {
		if ix.Folders[p].SchemaBlob != "" {
			folders = append(folders, p)
		}
	}
	if len(folders) == 0 {
		h.Current, h.Folder = 0, ""
		return nil
	}
	if len(folders) > 1 {
		ix.Warnings = append(ix.Warnings, Warning{Commit: c.Hash.String(), Path: folders[1],
			Message: fmt.Sprintf("subject %q is also defined in %s; using %s", subject, folders[0], folders[0])})
	}
	f := ix.Folders[folders[0]]
	h.Folder = folders[0]
	for _, v := range h.Versions {
		if v.Blob == f.SchemaBlob {
			h.Current = v.Version
			return nil
		}
	}
	id, ok := ix.idOf(f.SchemaBlob)
	if !ok {
		id = len(ix.Schemas) + 1
		ix.Schemas = append(ix.Schemas, SchemaEntry{ID: id, Blob: f.SchemaBlob})
		ix.blobID[f.SchemaBlob] = id
	}
	v := Version{
		Subject:       subject,
		Version:       len(h.Versions) + 1,
		ID:            id,
		Blob:          f.SchemaBlob,
		Path:          folders[0] + "/" + f.Schema,
		Format:        f.Format,
		Compatibility: f.Compatibility,
		Commit:        c.Hash.String(),
		Time:          c.Committer.When.UTC(),
	}
	if eng := importer(f.Format, f.Schema); eng != nil {
		data, err := readBlob(w.s, plumbing.NewHash(f.SchemaBlob))
		if err != nil {
			return err
		}
		v.Imports = eng.Imports(data)
	}
	h.Versions = append(h.Versions, v)
	h.Current = v.Version
	ix.Schemas[id-1].Uses = append(ix.Schemas[id-1].Uses, SubjectVersion{Subject: subject, Version: v.Version})
	return nil
}
