package calendar

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
)

// Conflict is a pair of calendar entries whose windows overlap and that touch the same
// subjects or share affected consumers.
type Conflict struct {
	// A starts first (then by file name); B is the other entry.
	A *contract.Entry `json:"-"`
	B *contract.Entry `json:"-"`
	// AFile and BFile name the entries' files.
	AFile string `json:"a"`
	BFile string `json:"b"`
	// Subjects both entries name, sorted.
	Subjects []string `json:"subjects,omitempty"`
	// Consumers affected by both entries ("subject/consumer"), sorted.
	Consumers []string `json:"consumers,omitempty"`
	// Message is String(), for JSON readers.
	Message string `json:"message"`
}

// String is a sentence for a person.
func (c Conflict) String() string {
	var why []string
	if len(c.Subjects) > 0 {
		why = append(why, "both change "+join(c.Subjects))
	}
	if len(c.Consumers) > 0 {
		why = append(why, "both affect "+join(c.Consumers))
	}
	return fmt.Sprintf("%s and %s overlap in time and %s; move one of the windows or merge the plans.",
		c.AFile, c.BFile, strings.Join(why, " and "))
}

// Other returns the file of the entry on the other side of the conflict from file.
func (c Conflict) Other(file string) string {
	if c.AFile == file {
		return c.BFile
	}
	return c.AFile
}

// DirectConsumers returns the default affected function for Conflicts: the consumers
// that read a subject directly, as "subject/consumer".
func DirectConsumers(tree *contract.Tree) func(subject string) []string {
	return func(subject string) []string {
		s := tree.Subject(subject)
		if s == nil {
			return nil
		}
		out := make([]string, 0, len(s.Consumers))
		for _, c := range s.Consumers {
			out = append(out, s.Subject+"/"+c.Name)
		}
		return out
	}
}

// Conflicts returns every pair of entries of tree whose windows overlap in time and
// that name a common subject or whose subjects share affected consumers. affected
// returns the consumers ("subject/consumer") a change to a subject affects; the bot
// passes impact data (multi-hop lineage), nil means DirectConsumers(tree). Pairs are
// sorted by the first entry's start, then file, then the second's.
func Conflicts(tree *contract.Tree, affected func(subject string) []string) []Conflict {
	return conflicts(tree.Entries, affected, tree)
}

func conflicts(entries []*contract.Entry, affected func(string) []string, tree *contract.Tree) []Conflict {
	if affected == nil {
		affected = DirectConsumers(tree)
	}
	es := slices.Clone(entries)
	slices.SortStableFunc(es, func(a, b *contract.Entry) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	reach := make([]map[string]bool, len(es))
	for i, e := range es {
		reach[i] = map[string]bool{}
		for _, s := range e.Subjects {
			for _, c := range affected(s) {
				reach[i][c] = true
			}
		}
	}
	var out []Conflict
	for i, a := range es {
		for j := i + 1; j < len(es); j++ {
			b := es[j]
			if !b.Start.Before(a.End) {
				break // sorted by start: b and every later entry start after a ends
			}
			c := Conflict{A: a, B: b, AFile: a.File, BFile: b.File}
			for _, s := range a.Subjects {
				if slices.Contains(b.Subjects, s) && !slices.Contains(c.Subjects, s) {
					c.Subjects = append(c.Subjects, s)
				}
			}
			for k := range reach[i] {
				if reach[j][k] {
					c.Consumers = append(c.Consumers, k)
				}
			}
			if len(c.Subjects) == 0 && len(c.Consumers) == 0 {
				continue
			}
			slices.Sort(c.Subjects)
			slices.Sort(c.Consumers)
			c.Message = c.String()
			out = append(out, c)
		}
	}
	return out
}
