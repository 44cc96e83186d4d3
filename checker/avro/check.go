package avro

import (
	"errors"
	"fmt"
	"sync"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// Check tests next against earlier versions (oldest first) at a compatibility level
// with the Confluent Schema Registry's meaning, through the shared level loop
// (checker.CheckLevel). A finding's Against is its 1-based index into previous; nil
// entries are skipped.
//
// A finding's position is in the new file wherever the element exists there (the
// reader for a backward check, the writer for a forward one), else in the old file.
func Check(previous []*Schema, next *Schema, level checker.Level) *checker.Result {
	if next == nil {
		return &checker.Result{Compatible: true, Level: level}
	}
	return Engine{}.Check(versions(previous), next, level, "")
}

// versions wraps schemas for the level loop, keeping nil entries nil.
func versions(schemas []*Schema) []checker.Version {
	out := make([]checker.Version, len(schemas))
	for i, s := range schemas {
		if s != nil {
			out[i].Schema = s
		}
	}
	return out
}

// compare is the engine's step of the level loop: the resolution issues of one
// direction between next and one earlier version.
func compare(next *Schema) func(prev checker.Schema, dir checker.Direction, against int) []checker.Finding {
	ix := sharedRules()
	return func(prev checker.Schema, dir checker.Direction, against int) []checker.Finding {
		old, ok := prev.(*Schema)
		if !ok {
			return nil
		}
		reader, writer := next, old
		if dir == checker.OldReadsNew {
			reader, writer = old, next
		}
		issues, cut := resolveCounted(ix, reader, writer)
		if len(issues) == 0 && !cut {
			return nil
		}
		out := make([]checker.Finding, 0, len(issues)+1)
		for i := range issues {
			out = append(out, ix.finding(&issues[i], dir, against))
		}
		if cut {
			out = append(out, cutFinding(next, dir, against))
		}
		return out
	}
}

// RuleFindingsCut is the rule id of the finding that says a comparison stopped after
// maxIssues incompatibilities.
const RuleFindingsCut = checker.RuleFindingsCut

// cutFinding says, at the top of the new schema, that the comparison against a
// version stopped listing incompatibilities.
func cutFinding(next *Schema, dir checker.Direction, against int) checker.Finding {
	line, col := next.position(next.pointerOf(next.root, ""))
	return checker.Finding{Rule: RuleFindingsCut, Span: located.Span{File: next.File, Line: line, Column: col}, Against: against, Direction: dir,
		Message: fmt.Sprintf("the comparison with version %d stopped after %d incompatibilities (a named type used at every level of a deep tree repeats its incompatibilities under each use); fix the ones listed and check again.", against, maxIssues)}
}

// sharedRules is the rule index, built once; it is read-only afterwards.
var sharedRules = sync.OnceValue(newRuleIndex)

// finding turns an issue into a Finding for a direction.
func (ix *ruleIndex) finding(is *issue, dir checker.Direction, against int) checker.Finding {
	sd := is.r // backward: the reader is the new schema
	if dir == checker.OldReadsNew && !is.readerOnly {
		sd = is.w // forward: the writer is the new schema
	}
	ptr := sd.ptr + is.suffix
	line, col := sd.doc.position(ptr)
	msg := is.detail
	if rl := ix.byID[is.rule]; rl != nil && rl.message != nil {
		msg = rl.message(is, dir, against)
	}
	return checker.Finding{
		Rule: is.rule, Path: sd.path, Pointer: ptr,
		Span:    located.Span{File: sd.doc.File, Line: line, Column: col},
		Against: against, Direction: dir, Message: msg,
	}
}

// Compat parses the inputs, checks next against previous (oldest first) at
// opts.Level, and lists the field changes from the last previous version to next.
// The error is unusable input: a *checker.InputError, or several joined.
func Compat(previous []checker.Input, next checker.Input, opts checker.Options) (*checker.Result, error) {
	level := opts.Level
	if level == "" {
		level = checker.Backward
	}
	var errs []error
	prev := make([]*Schema, len(previous))
	for i, in := range previous {
		s, err := Parse(in)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		prev[i] = s
	}
	cur, err := Parse(next)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	res := Check(prev, cur, level)
	if len(prev) > 0 {
		res.Changes = Diff(prev[len(prev)-1], cur)
	}
	res.Sort()
	return res, nil
}
