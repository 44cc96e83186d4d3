package openlineage

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The budgets of one event. Real events are small: the Flink and Spark events under
// testdata weigh 2 to 12 kB; a wide table's columnLineage with a few hundred columns
// stays under 200 kB. What passes them is still bounded when folded and shown.
const (
	// MaxLine bounds one event, posted or read from a JSON-lines file (1 MiB).
	MaxLine = 1 << 20
	// MaxDatasets bounds the inputs and outputs of one event together.
	MaxDatasets = 500
	// MaxOutputFields bounds the output fields of one columnLineage facet.
	MaxOutputFields = 5_000
	// MaxInputFields bounds the input fields of one output field (and the facet's
	// indirect "dataset" list).
	MaxInputFields = 1_000
)

// BudgetError is an event over one of the budgets: Pointer is the JSON pointer of the
// list that is too long.
type BudgetError struct {
	Pointer string
	N, Max  int
	What    string
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("at %s: %d %s, more than the %d an event may carry here; split the event, or leave the facet out", e.Pointer, e.N, e.What, e.Max)
}

// checkBudget returns a *BudgetError for the first list of e that is over its budget.
func (e *RunEvent) checkBudget() error {
	if n := len(e.Inputs) + len(e.Outputs); n > MaxDatasets {
		return &BudgetError{"/inputs and /outputs", n, MaxDatasets, "datasets"}
	}
	for _, side := range []struct {
		name string
		sets []Dataset
	}{{"inputs", e.Inputs}, {"outputs", e.Outputs}} {
		for i, d := range side.sets {
			cl := d.Facets.ColumnLineage
			if cl == nil {
				continue
			}
			at := fmt.Sprintf("/%s/%d/facets/columnLineage", side.name, i)
			if len(cl.Fields) > MaxOutputFields {
				return &BudgetError{at + "/fields", len(cl.Fields), MaxOutputFields, "output fields"}
			}
			if len(cl.Dataset) > MaxInputFields {
				return &BudgetError{at + "/dataset", len(cl.Dataset), MaxInputFields, "input fields"}
			}
			for _, name := range slices.Sorted(maps.Keys(cl.Fields)) {
				if f := cl.Fields[name]; len(f.InputFields) > MaxInputFields {
					return &BudgetError{at + "/fields/" + pointerToken(name) + "/inputFields", len(f.InputFields), MaxInputFields, "input fields"}
				}
			}
		}
	}
	return nil
}

// pointerToken escapes a name as a JSON pointer token (RFC 6901).
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
