package lineage

import (
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// Parsed returns a subject with its schema parsed. A tree loaded with its schemas
// gives its own subjects (Own); serve's pages load the tree without schemas and give
// the few subjects lineage needs by loading each alone.
type Parsed func(s *contract.Subject) *contract.Subject

// Own is Parsed for a tree loaded with its schemas.
func Own(s *contract.Subject) *contract.Subject { return s }

// Figures is what lint --stats, lineage verify and the /lineage page show of a tree's
// lineage, computed once by Compute so that the three agree.
type Figures struct {
	// Stats is the coverage the consumer files declare.
	Stats Stats
	// The rest is set only when jobs were observed: the declared reads against the
	// observed ones, the drift and its notes, and what could be compared at all.
	Observed    bool
	Observation Observation
	Drift       []Drift
	Notes       []string
	Compared    int
	Unmapped    []string
}

// Compute computes the figures of tree and of the observed jobs (nil: none observed),
// reading schemas through parsed.
func Compute(tree *contract.Tree, observed []*openlineage.Observed, parsed Parsed) Figures {
	f := Figures{Stats: coverage(tree, parsed)}
	if observed == nil {
		return f
	}
	f.Observed = true
	f.Observation = observe(tree, observed, parsed)
	f.Drift, f.Notes = verify(tree, observed, parsed)
	f.Compared, f.Unmapped = Compared(tree, observed)
	return f
}
