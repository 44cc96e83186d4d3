package avro

import (
	"errors"
	"sync"

	"github.com/contractbot/contractbot/checker"
)

// Check tests next against earlier versions (oldest first) at a compatibility level
// with the Confluent Schema Registry's meaning: BACKWARD (next reads the latest
// version's data), FORWARD (the latest version reads next's data), FULL (both), their
// _TRANSITIVE forms (against every earlier version) and NONE (nothing). It reports
// every incompatibility; a Finding's Against is the version's Version when set, else
// its 1-based index into previous.
//
// A finding's position is in the new file wherever the element exists there (the
// reader for a backward check, the writer for a forward one), else in the old file.
func Check(previous []*Schema, next *Schema, level checker.Level) *checker.Result {
	res := &checker.Result{Compatible: true, Level: level}
	if level == checker.None || len(previous) == 0 || next == nil {
		return res
	}
	first := len(previous) - 1
	if level.Transitive() {
		first = 0
	}
	ix := sharedRules()
	seen := map[checker.Finding]bool{}
	for i := first; i < len(previous); i++ {
		if previous[i] == nil {
			continue
		}
		against := i + 1
		if previous[i].Version > 0 {
			against = previous[i].Version
		}
		if level.Backward() {
			for _, is := range resolve(ix, next, previous[i]) {
				addFindingTo(res, seen, ix.finding(&is, checker.NewReadsOld, against))
			}
		}
		if level.Forward() {
			for _, is := range resolve(ix, previous[i], next) {
				addFindingTo(res, seen, ix.finding(&is, checker.OldReadsNew, against))
			}
		}
	}
	res.Compatible = len(res.Findings) == 0
	res.Sort()
	return res
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
		File: sd.doc.File, Line: line, Column: col,
		Against: against, Direction: dir, Message: msg,
	}
}

func addFindingTo(res *checker.Result, seen map[checker.Finding]bool, f checker.Finding) {
	if seen[f] {
		return
	}
	seen[f] = true
	res.Findings = append(res.Findings, f)
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
