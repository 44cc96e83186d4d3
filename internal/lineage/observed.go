package lineage

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// Observation compares the reads the consumer files declare with the reads jobs were
// observed doing (OpenLineage events), field by field (lint --stats, the lineage page).
type Observation struct {
	// Jobs is the number of jobs observed reading a topic of the tree.
	Jobs int `json:"jobs_observed"`
	// DeclaredReads counts the (consumer, subject, field) reads the files declare
	// (not "*"); DeclaredSeen those a job of the consumer's name was seen doing (the
	// field or a field under it).
	DeclaredReads int `json:"declared_reads"`
	DeclaredSeen  int `json:"declared_reads_observed"`
	// ObservedReads counts the (job, subject, field) reads seen, on topics of the
	// tree; Undeclared those no consumer file of the job declares (the field, an
	// enclosing one or "*").
	ObservedReads int `json:"observed_reads"`
	Undeclared    int `json:"observed_reads_undeclared"`
}

// Observe compares the declared reads of a tree loaded with its schemas with the
// observed ones.
func Observe(tree *contract.Tree, observed []*openlineage.Observed) Observation {
	return observe(tree, observed, Own)
}

// observe counts a read of a field the schema lacks as observed but not as
// undeclared: declaring it would not pass lint (Verify says not-in-schema).
func observe(tree *contract.Tree, observed []*openlineage.Observed, parsed Parsed) Observation {
	var ob Observation
	byTopic := subjectsByTopic(tree)
	// seen: consumer file -> fields seen read
	seen := map[string]map[string]bool{}
	for _, o := range observed {
		reads := false
		for _, topic := range slices.Sorted(maps.Keys(o.Reads)) {
			s := byTopic[topic]
			if s == nil {
				continue
			}
			reads = true
			c := consumerOf(s, o)
			if c != nil && seen[c.File] == nil {
				seen[c.File] = map[string]bool{}
			}
			full := parsed(s)
			for f := range o.Reads[topic] {
				if c != nil {
					seen[c.File][f] = true
				}
				ob.ObservedReads++
				if (c == nil || !covers(c.Reads, f)) && inSchema(full, f) {
					ob.Undeclared++
				}
			}
		}
		if reads {
			ob.Jobs++
		}
	}
	for _, s := range tree.Subjects {
		for _, c := range s.Consumers {
			for _, r := range c.Reads {
				if r == "*" {
					continue
				}
				ob.DeclaredReads++
				if observedUnder(seen[c.File], r) {
					ob.DeclaredSeen++
				}
			}
		}
	}
	return ob
}

// WriteText prints the comparison as lint --stats shows it; events and source say
// what was read.
func (ob Observation) WriteText(w io.Writer, events int, source string) {
	fmt.Fprintf(w, "Observed lineage (%s in %s, %s reading contract topics):\n", countOf(events, "OpenLineage event"), source, countOf(ob.Jobs, "job"))
	fmt.Fprintf(w, "  declared reads that a job was seen doing: %s\n", ratio(ob.DeclaredSeen, ob.DeclaredReads))
	fmt.Fprintf(w, "  reads seen that no consumer file declares: %s\n", ratio(ob.Undeclared, ob.ObservedReads))
}

func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
