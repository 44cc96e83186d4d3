package versions

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// Reference is one import of a version that is another subject's schema file, pinned
// to a version of that subject: the references a Confluent registry stores with a
// schema (name, subject, version).
type Reference struct {
	Name    string `json:"name"`    // the import path, relative to contracts/ (common/money/money.proto)
	Subject string `json:"subject"` // the subject whose schema file it is
	Version int    `json:"version"` // that subject's newest version where the importing version first appeared
}

// references lists v's imports that are other subjects' schema files, each pinned to
// the referenced subject's newest version at the commit where v first appeared (after
// every subject changed by that commit is resolved, so a version of the same commit
// counts). An import is a subject's schema file when a contract folder at that commit
// names it as its schema, else when an earlier version of a subject lived there (the
// first subject by name). Imports that are no subject's schema (the well-known
// google/protobuf types, extra files in a folder) are left out.
func (ix *Index) references(v Version) []Reference {
	var refs []Reference
	for _, imp := range v.Imports {
		sub := ix.importSubject(imp)
		if sub == "" || sub == v.Subject {
			continue
		}
		h := ix.BySubject[sub]
		if h == nil || len(h.Versions) == 0 {
			continue
		}
		refs = append(refs, Reference{Name: imp, Subject: sub, Version: len(h.Versions)})
	}
	return refs
}

// importSubject is the subject whose schema file an import path (relative to
// contracts/) is at the commit being applied ("" for none).
func (ix *Index) importSubject(imp string) string {
	file := ContractsDir + "/" + imp
	if fs := ix.Folders[path.Dir(file)]; fs != nil && !fs.Broken && fs.Subject != "" && fs.Schema == path.Base(file) {
		return fs.Subject
	}
	if ix.pathSubject == nil {
		ix.pathSubject = map[string]string{}
		for s, h := range ix.BySubject {
			for _, v := range h.Versions {
				ix.notePath(v.Path, s)
			}
		}
	}
	return ix.pathSubject[file]
}

// notePath records that a version of subject lived at p (the first subject by name
// wins, so the map does not depend on the order it is built in).
func (ix *Index) notePath(p, subject string) {
	if ix.pathSubject == nil {
		return // derived on first need
	}
	if old, ok := ix.pathSubject[p]; !ok || subject < old {
		ix.pathSubject[p] = subject
	}
}

// idKey is what a global schema id stands for: a canonical form with its references
// (a Confluent registry identifies a schema by its text and its references). A form
// without references keys by itself, so the ids of such forms are those they had when
// ids were keyed by forms alone.
func idKey(canonical string, refs []Reference) string {
	if len(refs) == 0 {
		return canonical
	}
	var b strings.Builder
	b.WriteString(canonical)
	for _, r := range refs {
		b.WriteString("\x00" + r.Name + "\x00" + r.Subject + "\x00" + strconv.Itoa(r.Version))
	}
	return b.String()
}

// assignID gives the newest version of subject its references and its id: the id of
// its (canonical form, references) pair, a new one at the pair's first appearance.
func (ix *Index) assignID(subject string) {
	h := ix.BySubject[subject]
	v := &h.Versions[len(h.Versions)-1]
	v.References = ix.references(*v)
	key := idKey(v.Canonical, v.References) + "\x00" + v.DataContract
	id, ok := ix.idOf(key)
	if !ok {
		id = len(ix.Schemas) + 1
		ix.Schemas = append(ix.Schemas, SchemaEntry{ID: id, Blob: v.Blob, Canonical: v.Canonical, References: slices.Clone(v.References), DataContract: v.DataContract})
		ix.keyID[key] = id
	}
	v.ID = id
	ix.Schemas[id-1].Uses = append(ix.Schemas[id-1].Uses, SubjectVersion{Subject: subject, Version: v.Version})
}
