package versions

// share makes the index's equal strings one string: a decoded cache holds a copy of
// every string it read (gob), while most of them repeat: a subject's name in its
// versions, ids and folder; a blob, canonical key and data contract in the version,
// its id and its folder; the commit of every version a commit made; formats, levels
// and paths. At 100,000 subjects the decoded index's strings were 90 MB of serve's
// heap (docs/performance.md, "The embedded registry at 100,000 subjects").
func (ix *Index) share() {
	seen := map[string]string{}
	one := func(s *string) {
		if *s == "" {
			return
		}
		if v, ok := seen[*s]; ok {
			*s = v
			return
		}
		seen[*s] = *s
	}
	refs := func(rs []Reference) {
		for i := range rs {
			one(&rs[i].Name)
			one(&rs[i].Subject)
		}
	}
	bySubject := make(map[string]*SubjectHistory, len(ix.BySubject))
	for subject, h := range ix.BySubject {
		one(&subject)
		bySubject[subject] = h
		one(&h.Folder)
		for i := range h.Folders {
			one(&h.Folders[i])
		}
		for i := range h.Versions {
			v := &h.Versions[i]
			for _, s := range []*string{&v.Subject, &v.Blob, &v.Canonical, &v.DataContract, &v.Path, &v.Format, &v.Compatibility, &v.Commit} {
				one(s)
			}
			for j := range v.Imports {
				one(&v.Imports[j])
			}
			refs(v.References)
		}
	}
	ix.BySubject = bySubject
	for i := range ix.Schemas {
		e := &ix.Schemas[i]
		one(&e.Blob)
		one(&e.Canonical)
		one(&e.DataContract)
		refs(e.References)
		for j := range e.Uses {
			one(&e.Uses[j].Subject)
		}
	}
	folders := make(map[string]*FolderState, len(ix.Folders))
	for folder, f := range ix.Folders {
		one(&folder)
		folders[folder] = f
		for _, s := range []*string{&f.Tree, &f.ContractBlob, &f.Subject, &f.Schema, &f.Format, &f.Compatibility, &f.DataContract, &f.SchemaBlob} {
			one(s)
		}
	}
	ix.Folders = folders
}
