package checker

import (
	"fmt"
)

// Pairwise is what an engine gives the shared level loop: how it compares the new
// schema with one earlier version.
type Pairwise struct {
	// Compare returns the findings of one direction against one earlier version:
	// NewReadsOld (the new schema reads the earlier version's data) or OldReadsNew.
	// against is the number findings name.
	Compare func(prev Schema, dir Direction, against int) []Finding
	// Always, when set, runs once for every earlier version the level reaches,
	// whatever its directions, NONE included (Protobuf's buf rule sets).
	Always func(prev Schema, against int) []Finding
	// OnePerPlace reports a finding once per rule, path, version and position even
	// when both directions find it, as the registry's Protobuf check does; otherwise
	// findings that differ in direction or message are all kept.
	OnePerPlace bool
}

// CheckLevel is the level loop every engine runs: it tests next against earlier
// versions (oldest first) with the Confluent Schema Registry's meaning of level:
// BACKWARD (next reads the latest version's data), FORWARD (the latest version reads
// next's data), FULL (both), their _TRANSITIVE forms (against every earlier version)
// and NONE (no direction). Versions whose Schema is nil are skipped. A finding's
// Against is the version's Number when set, else its 1-based index into previous.
// Duplicate findings are dropped; the result is sorted, with no Changes.
func CheckLevel(level Level, previous []Version, next Schema, p Pairwise) *Result {
	res := &Result{Compatible: true, Level: level}
	if next == nil || len(previous) == 0 {
		return res
	}
	first := len(previous) - 1
	if level.Transitive() {
		first = 0
	}
	type place struct {
		rule, path, file string
		against          int
		line, col        int
	}
	var seen map[Finding]bool
	var seenPlace map[place]bool
	left, firstLeft, uncounted := 0, Finding{}, false // past MaxFindings
	if p.OnePerPlace {
		seenPlace = map[place]bool{}
	} else {
		seen = map[Finding]bool{}
	}
	add := func(fs []Finding) {
		for _, f := range fs {
			if p.OnePerPlace {
				k := place{f.Rule, f.Path, f.File, f.Against, f.Line, f.Column}
				if seenPlace[k] {
					continue
				}
				seenPlace[k] = true
			} else {
				if seen[f] {
					continue
				}
				seen[f] = true
			}
			if len(res.Findings) >= MaxFindings {
				if left == 0 {
					firstLeft = f
				}
				left++
				uncounted = uncounted || f.Rule == RuleFindingsCut // an engine's own cut: more than it says
				continue
			}
			res.Findings = append(res.Findings, f)
		}
	}
	for i := first; i < len(previous); i++ {
		prev := previous[i].Schema
		if prev == nil {
			continue
		}
		against := i + 1
		if previous[i].Number > 0 {
			against = previous[i].Number
		}
		if level.Backward() && p.Compare != nil {
			add(p.Compare(prev, NewReadsOld, against))
		}
		if level.Forward() && p.Compare != nil {
			add(p.Compare(prev, OldReadsNew, against))
		}
		if p.Always != nil {
			fs := p.Always(prev, against)
			for j := range fs {
				fs[j].Against = against
			}
			add(fs)
		}
	}
	if left > 0 {
		res.Findings = append(res.Findings, Finding{Rule: RuleFindingsCut, Span: firstLeft.Span,
			Against: firstLeft.Against, Direction: firstLeft.Direction,
			Message: cutMessage(left, uncounted, firstLeft.Rule)})
	}
	res.Compatible = len(res.Findings) == 0
	res.Sort()
	return res
}

// cutMessage says how many findings a check left out: a number only when it is known
// (a comparison that stopped counting, left out with the rest, makes it a lower bound).
func cutMessage(left int, uncounted bool, rule string) string {
	switch {
	case uncounted:
		return fmt.Sprintf("More incompatibilities were not listed: the list stops at %d, before this one (%s), and a comparison stopped counting them. Fix the ones listed and check again.", MaxFindings, rule)
	case left == 1:
		return fmt.Sprintf("1 more incompatibility is not listed: the list stops at %d, before this one (%s). Fix the ones listed and check again.", MaxFindings, rule)
	}
	return fmt.Sprintf("%d more incompatibilities are not listed: the list stops at %d, before this one (%s). Fix the ones listed and check again.", left, MaxFindings, rule)
}
