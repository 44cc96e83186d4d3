package sample

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/versions"
)

// Topic is a topic of the contract tree with the subjects that describe it.
type Topic struct {
	Name string
	// Value is the subject of the records' values; Key the subject of their keys
	// (a subject named "...-key" on the same topic), nil when the contract declares
	// none.
	Value, Key *contract.Subject
}

// Topics lists the topics the tree's subjects name (`topic:`), sorted. A topic with
// several value subjects is judged against the one named "<topic>-value", else the
// first by name.
func Topics(t *contract.Tree) []Topic {
	by := map[string]*Topic{}
	for _, s := range t.Subjects { // sorted by subject name
		if s.Topic == "" {
			continue
		}
		tp := by[s.Topic]
		if tp == nil {
			tp = &Topic{Name: s.Topic}
			by[s.Topic] = tp
		}
		switch {
		case strings.HasSuffix(s.Subject, "-key"):
			if tp.Key == nil {
				tp.Key = s
			}
		case tp.Value == nil || s.Subject == s.Topic+"-value":
			tp.Value = s
		}
	}
	out := make([]Topic, 0, len(by))
	for _, tp := range by {
		if tp.Value != nil {
			out = append(out, *tp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Judges returns the judge of each topic named (every topic of the tree when none
// is), built from the tree and its history (ix; nil judges every framed message's id
// as unknown). read returns a version's schema text (versions.Index.Schema). A named
// topic that no subject describes is an error.
func Judges(t *contract.Tree, ix *versions.Index, read func(versions.Version) ([]byte, error), names []string, o Options) ([]*Judge, error) {
	all := Topics(t)
	if len(names) > 0 {
		var picked []Topic
		for _, n := range names {
			i := sort.Search(len(all), func(i int) bool { return all[i].Name >= n })
			if i == len(all) || all[i].Name != n {
				return nil, fmt.Errorf("no subject of the contract has topic %q; name a topic that a contract.yaml gives (topic: in contract.yaml)", n)
			}
			picked = append(picked, all[i])
		}
		all = picked
	}
	elsewhere := map[int]string{}
	if ix != nil {
		for _, e := range ix.Schemas {
			if len(e.Uses) > 0 {
				elsewhere[e.ID] = fmt.Sprintf("version %d of %s", e.Uses[0].Version, e.Uses[0].Subject)
			}
		}
	}
	side := func(s *contract.Subject) *Side {
		if s == nil {
			return nil
		}
		var current int
		var hist []Version
		if ix != nil {
			if v, ok := ix.Current(s.Subject); ok {
				current = v.ID
			}
			for _, v := range ix.Versions(s.Subject) {
				hist = append(hist, Version{ID: v.ID, Version: v.Version, Load: loader(s, v, read, t.ReadImport)})
			}
		}
		return NewSide(s, current, hist, elsewhere, t.ReadImport, o)
	}
	out := make([]*Judge, 0, len(all))
	for _, tp := range all {
		out = append(out, NewJudge(tp.Name, side(tp.Value), side(tp.Key), o))
	}
	return out, nil
}

// loader parses an earlier version's schema with the engine of its format, reading the
// files it imports from the tree as it is now.
func loader(s *contract.Subject, v versions.Version, read func(versions.Version) ([]byte, error), resolve func(string) ([]byte, error)) func() (checker.Schema, []byte, error) {
	return func() (checker.Schema, []byte, error) {
		if read == nil {
			return nil, nil, fmt.Errorf("the history's schemas cannot be read")
		}
		eng, ok := formats.Lookup(v.Format)
		if !ok {
			return nil, nil, fmt.Errorf("version %d of %s has format %q, which contractbot does not know", v.Version, v.Subject, v.Format)
		}
		text, err := read(v)
		if err != nil {
			return nil, nil, err
		}
		sch, err := eng.Parse(checker.ParseInput{
			Input:   checker.Input{Path: v.Path, Data: text},
			Name:    strings.TrimPrefix(v.Path, contract.ContractsDir+"/"),
			Resolve: resolve,
			Record:  s.Message,
		})
		return sch, text, err
	}
}
