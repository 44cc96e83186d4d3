package contract

import (
	"fmt"
	"slices"
	"sort"

	"github.com/contractbot/contractbot/checker/located"
)

// Lineage warnings: jobs whose outputs impact analysis cannot follow.
const (
	CodeLineageBlackBox = "lineage-black-box"
	CodeLineageUnmapped = "lineage-unmapped"
)

// JobKinds are the consumer kinds that transform what they read into something else,
// and so should say what they make of it.
var JobKinds = []string{"flink-job", "spark-job"}

// checkBlackBoxes warns on a job that produces nothing (CodeLineageBlackBox) and on a
// produces target that maps no field, topic-level lineage (CodeLineageUnmapped).
func checkBlackBoxes(s *Subject, ds *Diagnostics) {
	for _, c := range s.Consumers {
		if !slices.Contains(JobKinds, c.Kind) {
			continue
		}
		if len(c.Produces) == 0 {
			pos := c.KeyPos["kind"]
			*ds = append(*ds, Diagnostic{Span: located.Span{File: c.File, Line: pos.Line, Column: pos.Column}, Severity: Warning, Code: CodeLineageBlackBox,
				Message: fmt.Sprintf("%s is a %s that produces nothing: what it makes of %s is a black box to impact analysis. Add produces (contractbot lineage sync writes it from Flink SQL); if it writes only outside the contract repository (a database, a feature store), make its kind sink.", c.Name, c.Kind, s.Subject)})
			continue
		}
		targets := make([]string, 0, len(c.Produces))
		for t := range c.Produces {
			targets = append(targets, t)
		}
		sort.Strings(targets)
		for _, t := range targets {
			if len(c.Produces[t]) > 0 {
				continue
			}
			pos := c.KeyPos["produces."+t]
			*ds = append(*ds, Diagnostic{Span: located.Span{File: c.File, Line: pos.Line, Column: pos.Column}, Severity: Warning, Code: CodeLineageUnmapped,
				Message: fmt.Sprintf("%s maps no field of %s: topic-level lineage cannot tell which consumers of %s a change to a field of %s reaches. Map each output field to the fields it is made from.", c.Name, t, t, s.Subject)})
		}
	}
}
