package versions

import (
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
)

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

// VersionsView returns a subject's versions, oldest first, without copying them (nil
// if unknown): the caller must not change them. The index only ever appends versions
// and gives the appended one its id before Extend returns, so the view stays as it
// was while the index moves on: the pages keep one per subject for as long as they
// show the commit (at 100,000 subjects the copies were 25 MB).
func (ix *Index) VersionsView(subject string) []Version {
	h := ix.BySubject[subject]
	if h == nil {
		return nil
	}
	return h.Versions[:len(h.Versions):len(h.Versions)]
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

// Schema reads a version's schema text from the repository (at most the loader's
// schema size limit).
func (ix *Index) Schema(repo *git.Repository, v Version) ([]byte, error) {
	data, err := gitrepo.ReadBlob(repo.Storer, plumbing.NewHash(v.Blob), contract.MaxSchemaBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s version %d: %w", v.Subject, v.Version, err)
	}
	return data, nil
}

func (ix *Index) ensureMaps() {
	if ix.BySubject == nil {
		ix.BySubject = map[string]*SubjectHistory{}
	}
	if ix.Folders == nil {
		ix.Folders = map[string]*FolderState{}
	}
}

// idOf returns the id of an idKey, building the key -> id map on first use.
func (ix *Index) idOf(key string) (int, bool) {
	if ix.keyID == nil {
		ix.keyID = make(map[string]int, len(ix.Schemas))
		for _, e := range ix.Schemas {
			ix.keyID[idKey(e.Canonical, e.References)+"\x00"+e.DataContract] = e.ID
		}
	}
	id, ok := ix.keyID[key]
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
