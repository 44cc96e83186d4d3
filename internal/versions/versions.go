// Package versions builds the versions index of a contract repository: for every
// registry subject, its successive distinct registrations (a canonical form of its
// schema with its data contract) along the default branch's first-parent history,
// and a global schema id for every distinct form with its references. It reads Git
// objects only (go-git), never a working tree.
//
// Semantics (see docs/performance.md and DESIGN.md "Versions"):
//
//   - A subject is the `subject:` of contracts/<domain>/<name>/contract.yaml; its schema
//     is the file named by `schema:` in that folder. The folder may move (rename); the
//     subject keeps its history because it is identified by name, not by path.
//   - Version N of a subject is the N-th distinct pair of a canonical form of its schema
//     file (checker.Canonical, the text a Confluent registry stores: Avro printed from
//     the parsed schema, Protobuf without comments and layout) and a data contract of
//     its contract.yaml (contract.DataContractKey: the metadata and ruleSet publishing
//     sends), as a Confluent registry makes a new version when a schema is registered
//     again with other metadata or rules. A change of layout only (white space,
//     comments, key order) is not a version; a version keeps the text (blob) of the
//     commit where its pair first appeared. A text that does not parse is identified
//     by its bytes. A pair that returns to an earlier one is NOT a new version: the
//     subject's current version becomes that earlier version, exactly as a Confluent
//     registry returns the existing version when an already registered schema is
//     registered again. Latest is the highest version number; Current is the version
//     whose pair is at Head (they differ after a revert).
//   - Global schema ids start at 1 and are assigned to pairs of a canonical form and
//     its references (Reference: the imports that are other subjects' schema files,
//     pinned to their newest versions at the commit where the version first
//     appeared) in order of first appearance over the whole history; within one
//     commit, in subject-name order, once every subject of the commit is resolved.
//     The same form with the same references under two subjects shares one id (as in
//     a Confluent registry); the same text importing other versions has its own id.
//     Ids are keyed by data contract too, as Confluent's ids hash metadata and rules:
//     versions of one form with different data contracts have ids of their own. Ids
//     never change once assigned.
//   - A version that removes the rules of the subject's latest version is a new
//     version (its DataContract ends with EmptiedRuleSet), even when its pair was an
//     earlier version's: publish registers an empty ruleSet there.
//   - Only the first parent of each commit is followed: changes made on a side branch
//     appear at the merge commit that brings them in.
//   - contract.yaml is read by contract.DecodeHead, the loader's own decoder, so the
//     index and the loader agree on what a subject is. A broken contract folder
//     (contract.yaml over the YAML size limit, that does not parse, lacks a valid subject
//     or schema, names a schema file that is not in the folder or is over the schema
//     size limit, or a subject's folder left without contract.yaml) is skipped at that
//     commit with a Warning: the subject keeps the state
//     it had before, and the folder is looked at again when it changes.
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
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
)

// EmptiedRuleSet ends the DataContract of a version that has no rules while the
// subject's latest version before it had some: it is registered with an empty ruleSet
// ({}), which Confluent tells apart from none (see publish).
const EmptiedRuleSet = "+emptied-ruleset"

// ErrHistoryRewritten is returned by Extend when the indexed head is not a first-parent
// ancestor of the new head: the default branch was rewritten and the bot refuses to act.
var ErrHistoryRewritten = errors.New("versions: history rewritten: indexed head is not a first-parent ancestor of the new head")

// ContractsDir is the folder of the repository that holds the subject folders.
const ContractsDir = contract.ContractsDir

// Version is one version of one subject.
type Version struct {
	Subject       string    `json:"subject"`
	Version       int       `json:"version"`           // 1-based, per subject
	ID            int       `json:"id"`                // global schema id, 1-based
	Blob          string    `json:"blob"`              // Git blob hash of the schema text where the version first appeared
	Canonical     string    `json:"canonical"`         // checker.CanonicalKey of its canonical form (or "blob:<hash>" when it does not parse)
	DataContract  string    `json:"data_contract"`     // contract.DataContractKey of its contract.yaml (+EmptiedRuleSet)
	Rules         bool      `json:"rules,omitempty"`   // its contract.yaml declares rules
	Path          string    `json:"path"`              // schema file path where it first appeared
	Format        string    `json:"format"`            // contract.yaml `format:` at that commit
	Compatibility string    `json:"compatibility"`     // contract.yaml `compatibility:` at that commit
	Commit        string    `json:"commit"`            // first-parent commit where it first appeared
	Time          time.Time `json:"time"`              // that commit's committer time (UTC)
	Imports       []string  `json:"imports,omitempty"` // formats with imports: the files it imports
	// References are the imports that are other subjects' schema files, pinned where
	// the version first appeared (see Reference); part of its id.
	References []Reference `json:"references,omitempty"`
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
	ID           int              `json:"id"`
	Blob         string           `json:"blob"`
	Canonical    string           `json:"canonical"`
	References   []Reference      `json:"references,omitempty"` // with Canonical, what the id stands for
	DataContract string           `json:"data_contract,omitempty"`
	Uses         []SubjectVersion `json:"uses"`
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
	DataContract  string `json:"data_contract,omitempty"`
	Rules         bool   `json:"rules,omitempty"`
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

	keyID       map[string]int    // idKey -> id, derived from Schemas on first need
	canon       map[string]string // schema blob -> canonical key, derived from the versions on first need
	pathSubject map[string]string // schema file path -> subject with a version there, derived on first need
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

// commitStep is a first-parent commit as the index applies it.
type commitStep struct {
	hash, tree plumbing.Hash
	when       time.Time // committer time, UTC
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
	// Walk back along first parents until the indexed head (or the root), keeping of
	// each commit what applying it reads: the chain grows with the history, and a
	// decoded commit (message, signatures) is several times that.
	var chain []commitStep
	for h := newHead; ; {
		if !old.IsZero() && h == old {
			break
		}
		c, err := object.GetCommit(s, h)
		if err != nil {
			return fmt.Errorf("versions: reading commit %s: %w", h, err)
		}
		chain = append(chain, commitStep{hash: c.Hash, tree: c.TreeHash, when: c.Committer.When.UTC()})
		if len(c.ParentHashes) == 0 {
			if !old.IsZero() {
				return ErrHistoryRewritten
			}
			break
		}
		h = c.ParentHashes[0]
	}
	w := &walker{Trees: gitrepo.NewTrees(s), s: s}
	prevTree := plumbing.ZeroHash
	if ix.HeadTree != "" {
		prevTree = plumbing.NewHash(ix.HeadTree)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		if err := ix.apply(w, c, prevTree); err != nil {
			return err
		}
		prevTree = c.tree
		ix.Head = c.hash.String()
		ix.HeadTree = c.tree.String()
		ix.Commits++
		w.Rotate()
	}
	return nil
}
