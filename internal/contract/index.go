package contract

import (
	"iter"
	"maps"
)

// Index maps subject names to their folders for a partial load (LoadSubjectsIn): what
// it needs to know of the subjects it does not load. IndexSubjects' map is one
// (MapIndex); a head's names laid over its base's, without copying the base's, is
// another (internal/change).
type Index interface {
	// Folder returns the folder of the subject name, if any.
	Folder(name string) (dir string, ok bool)
	// All yields every name and its folder, in no particular order.
	All() iter.Seq2[string, string]
}

// MapIndex is an Index held in a map (IndexSubjects' answer).
type MapIndex map[string]string

// Folder returns the folder of the subject name, if any.
func (m MapIndex) Folder(name string) (string, bool) {
	dir, ok := m[name]
	return dir, ok
}

// All yields every name and its folder.
func (m MapIndex) All() iter.Seq2[string, string] { return maps.All(m) }
