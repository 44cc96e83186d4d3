package versions

import "github.com/contractbot/contractbot/internal/block"

// share makes the index's equal strings one string, and puts every such string in
// shared blocks of memory (package block). A decoded cache holds a copy of every
// string it read (gob), while most of them repeat: a subject's name in its versions,
// ids and folder; a blob, canonical key and data contract in the version, its id and
// its folder; the commit of every version a commit made; formats, levels and paths. At 100,000 subjects the
// decoded index's strings were 90 MB of serve's heap; shared, 37 MB in 755,000
// strings. The blocks are for the collector: serve keeps the index for hours, and
// every collection visited each of those strings (its span, its mark bit), 27% of the
// live heap's objects; pointers into one block are visited as one object
// (docs/performance.md, "The embedded registry at 100,000 subjects").
//
// A block lives as long as any of its strings: an index Extend adds to allocates its
// new strings apart, and a caller that keeps one of the index's strings after the
// index is gone keeps that string's block (256 KiB).
func (ix *Index) share() {
	seen := map[string]string{}
	ix.eachString(func(s *string) {
		if *s != "" {
			seen[*s] = *s
		}
	})
	var blk block.Block
	for k := range seen {
		seen[k] = blk.String(k)
	}
	ix.eachString(func(s *string) {
		if *s != "" {
			*s = seen[*s]
		}
	})
	ix.compact()
	// The maps derived on first need hold strings of their own (a built index has
	// them already): made again from the shared ones when next needed.
	ix.keyID, ix.canon, ix.pathSubject = nil, nil, nil
}

// compact lays the index's structures out in a few arrays, for the same reason share
// puts its strings in blocks: decoded, each subject's history, its versions, each
// folder's state and each id's uses were an allocation apart, 720,000 objects at
// 100,000 subjects once the strings were shared. Every slice keeps its length as its
// capacity, so that an append (Extend) copies it instead of writing over the next one's.
func (ix *Index) compact() {
	nv, nf, nr, ni, nu := 0, 0, 0, 0, 0
	for _, h := range ix.BySubject {
		nv, nf = nv+len(h.Versions), nf+len(h.Folders)
		for _, v := range h.Versions {
			nr, ni = nr+len(v.References), ni+len(v.Imports)
		}
	}
	for _, e := range ix.Schemas {
		nr, nu = nr+len(e.References), nu+len(e.Uses)
	}
	vs, strs := make([]Version, 0, nv), make([]string, 0, nf+ni)
	refs, uses := make([]Reference, 0, nr), make([]SubjectVersion, 0, nu)
	histories := make([]SubjectHistory, 0, len(ix.BySubject))
	for subject, h := range ix.BySubject {
		histories = append(histories, *h)
		c := &histories[len(histories)-1]
		c.Versions, c.Folders = into(&vs, h.Versions), into(&strs, h.Folders)
		for i := range c.Versions {
			v := &c.Versions[i]
			v.References, v.Imports = into(&refs, v.References), into(&strs, v.Imports)
		}
		ix.BySubject[subject] = c // histories never grows past its capacity: c stays
	}
	for i := range ix.Schemas {
		e := &ix.Schemas[i]
		e.References, e.Uses = into(&refs, e.References), into(&uses, e.Uses)
	}
	folders := make([]FolderState, 0, len(ix.Folders))
	for folder, f := range ix.Folders {
		folders = append(folders, *f)
		ix.Folders[folder] = &folders[len(folders)-1]
	}
}

// into appends xs to *all (whose capacity is enough) and returns them there, capacity
// limited; nil or empty xs are returned as they are.
func into[T any](all *[]T, xs []T) []T {
	if len(xs) == 0 {
		return xs
	}
	at := len(*all)
	*all = append(*all, xs...)
	return (*all)[at:len(*all):len(*all)]
}

// eachString calls fn with every string of the index that share shares (the maps'
// keys too: they are rebuilt with the strings fn left).
func (ix *Index) eachString(fn func(*string)) {
	refs := func(rs []Reference) {
		for i := range rs {
			fn(&rs[i].Name)
			fn(&rs[i].Subject)
		}
	}
	bySubject := make(map[string]*SubjectHistory, len(ix.BySubject))
	for subject, h := range ix.BySubject {
		fn(&subject)
		bySubject[subject] = h
		fn(&h.Folder)
		for i := range h.Folders {
			fn(&h.Folders[i])
		}
		for i := range h.Versions {
			v := &h.Versions[i]
			for _, s := range []*string{&v.Subject, &v.Blob, &v.Canonical, &v.DataContract, &v.Path, &v.Format, &v.Compatibility, &v.Commit} {
				fn(s)
			}
			for j := range v.Imports {
				fn(&v.Imports[j])
			}
			refs(v.References)
		}
	}
	ix.BySubject = bySubject
	for i := range ix.Schemas {
		e := &ix.Schemas[i]
		fn(&e.Blob)
		fn(&e.Canonical)
		fn(&e.DataContract)
		refs(e.References)
		for j := range e.Uses {
			fn(&e.Uses[j].Subject)
		}
	}
	folders := make(map[string]*FolderState, len(ix.Folders))
	for folder, f := range ix.Folders {
		fn(&folder)
		folders[folder] = f
		for _, s := range []*string{&f.Tree, &f.ContractBlob, &f.Subject, &f.Schema, &f.Format, &f.Compatibility, &f.DataContract, &f.SchemaBlob} {
			fn(s)
		}
	}
	ix.Folders = folders
}
