package lineage

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Diff lists, in sentences, how the consumer file differs from what the SQL does;
// nothing when they agree. Lists are compared as sets.
func Diff(d *Declared) []string {
	c := d.Existing
	switch {
	case c == nil:
		return []string{fmt.Sprintf("%s does not exist; the SQL reads %s (%s).", d.File, d.Subject, orNothing(d.Reads))}
	case !d.Read:
		return []string{fmt.Sprintf("%s says the job reads %s, but the SQL does not read its topic; delete the file or fix the SQL.", d.File, d.Subject)}
	}
	var out []string
	extra, missing := setDiff(d.Reads, c.Reads)
	if len(extra) > 0 {
		out = append(out, fmt.Sprintf("%s: the SQL also reads %s, which the file does not declare.", d.File, strings.Join(extra, ", ")))
	}
	if len(missing) > 0 {
		out = append(out, fmt.Sprintf("%s: declares reading %s, which the SQL does not read.", d.File, strings.Join(missing, ", ")))
	}
	outs := slices.Sorted(maps.Keys(d.Produces))
	for o := range c.Produces {
		if _, ok := d.Produces[o]; !ok {
			outs = append(outs, o)
		}
	}
	slices.Sort(outs)
	for _, o := range outs {
		want, have := d.Produces[o], c.Produces[o]
		switch {
		case have == nil:
			out = append(out, fmt.Sprintf("%s: the SQL produces %s (%s), which the file does not declare.", d.File, o, strings.Join(fieldsOf(want), ", ")))
			continue
		case want == nil:
			out = append(out, fmt.Sprintf("%s: produces %s, but the SQL writes none of its fields from %s.", d.File, o, d.Subject))
			continue
		}
		fields := slices.Sorted(maps.Keys(want))
		for f := range have {
			if _, ok := want[f]; !ok {
				fields = append(fields, f)
			}
		}
		slices.Sort(fields)
		for _, f := range slices.Compact(fields) {
			w, h := want[f], have[f]
			switch {
			case h == nil:
				out = append(out, fmt.Sprintf("%s: %s.%s is made from %s in the SQL; the file does not map it.", d.File, o, f, orNothing(w)))
			case w == nil:
				out = append(out, fmt.Sprintf("%s: maps %s.%s from %s; the SQL does not make it from %s.", d.File, o, f, orNothing(h), d.Subject))
			default:
				if extra, missing := setDiff(w, h); len(extra)+len(missing) > 0 {
					out = append(out, fmt.Sprintf("%s: maps %s.%s from %s; the SQL makes it from %s.", d.File, o, f, orNothing(h), orNothing(w)))
				}
			}
		}
	}
	return out
}

// setDiff returns what want has that have lacks, and the reverse.
func setDiff(want, have []string) (extra, missing []string) {
	for _, w := range want {
		if !slices.Contains(have, w) {
			extra = append(extra, w)
		}
	}
	for _, h := range have {
		if !slices.Contains(want, h) {
			missing = append(missing, h)
		}
	}
	return extra, missing
}

func fieldsOf(m map[string][]string) []string { return slices.Sorted(maps.Keys(m)) }

func orNothing(s []string) string {
	if len(s) == 0 {
		return "no field"
	}
	return "[" + strings.Join(s, ", ") + "]"
}
