package lineage

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
)

// Stats is how much of a tree's lineage is field-level, as declared in its consumer
// files (lint --stats).
type Stats struct {
	Consumers      int      `json:"consumers"`
	FieldReads     int      `json:"consumers_with_field_reads"` // reads names fields, not "*"
	Jobs           int      `json:"jobs"`                       // flink-job and spark-job consumers
	MappedJobs     int      `json:"jobs_mapping_fields"`        // jobs whose produces maps at least one field
	ProducedFields int      `json:"produced_fields"`            // fields of subjects some consumer produces
	MappedFields   int      `json:"produced_fields_mapped"`     // ... that a mapping names (or an enclosing field)
	BlackBoxes     []string `json:"black_boxes,omitempty"`      // jobs that map no field, by file
}

// Coverage computes the lineage coverage of a tree loaded with its schemas.
func Coverage(tree *contract.Tree) Stats { return coverage(tree, Own) }

func coverage(tree *contract.Tree, parsed Parsed) Stats {
	var st Stats
	outputs := map[string]map[string]bool{} // produced subject -> output fields named
	for _, s := range tree.Subjects {
		for _, c := range s.Consumers {
			st.Consumers++
			if !slices.Contains(c.Reads, "*") && len(c.Reads) > 0 {
				st.FieldReads++
			}
			mapped := false
			for target, m := range c.Produces {
				if outputs[target] == nil {
					outputs[target] = map[string]bool{}
				}
				for f := range m {
					outputs[target][f] = true
					mapped = true
				}
			}
			if slices.Contains(contract.JobKinds, c.Kind) {
				st.Jobs++
				if mapped {
					st.MappedJobs++
				} else {
					st.BlackBoxes = append(st.BlackBoxes, c.File)
				}
			}
		}
	}
	sort.Strings(st.BlackBoxes)
	for target, named := range outputs {
		s := tree.Subject(target)
		if s == nil {
			continue
		}
		for _, f := range leaves(parsed(s).FieldPaths()) {
			st.ProducedFields++
			for p := f; p != ""; p = parent(p) {
				if named[p] {
					st.MappedFields++
					break
				}
			}
		}
	}
	return st
}

// leaves are the field paths that no other path extends.
func leaves(paths []string) []string {
	var out []string
	for i, p := range paths {
		if i+1 < len(paths) && strings.HasPrefix(paths[i+1], p+".") {
			continue
		}
		out = append(out, p)
	}
	return out
}

func parent(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// WriteText prints the figures as lint --stats shows them.
func (st Stats) WriteText(w io.Writer) {
	fmt.Fprintln(w, "Lineage coverage, as the consumer files declare it:")
	fmt.Fprintf(w, "  consumers reading named fields (not \"*\"): %s\n", ratio(st.FieldReads, st.Consumers))
	fmt.Fprintf(w, "  jobs (flink-job, spark-job) mapping their output field by field: %s\n", ratio(st.MappedJobs, st.Jobs))
	fmt.Fprintf(w, "  fields of produced subjects that a mapping names: %s\n", ratio(st.MappedFields, st.ProducedFields))
	for _, b := range st.BlackBoxes {
		fmt.Fprintf(w, "  black box: %s\n", b)
	}
}

func ratio(n, of int) string {
	if of == 0 {
		return "none to count"
	}
	return fmt.Sprintf("%d of %d (%d%%)", n, of, n*100/of)
}
