package lineage

import (
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/flinksql"
	"github.com/contractbot/contractbot/internal/verdict"
)

// SQLBreaks finds the jobs whose Flink SQL (a consumer file's sql:) a change breaks:
// the errors lineage check finds in a job's tables against the head's contracts that
// it did not find against the base's, for the tables of the subject the file is under.
// A script that does not parse breaks nothing here (lint and lineage check say so).
func SQLBreaks(base, head *contract.Tree) []verdict.SQLBreak {
	var out []verdict.SQLBreak
	for _, s := range head.Subjects {
		for _, c := range s.Consumers {
			if len(c.SQLText) == 0 {
				continue
			}
			before := map[string]bool{}
			if bs := base.Subject(s.Subject); bs != nil {
				for _, bc := range bs.Consumers {
					if bc.Name == c.Name {
						for _, f := range sqlErrors(bc, base, s.Subject) {
							before[breakFact(f)] = true
						}
					}
				}
			}
			for _, f := range sqlErrors(c, head, s.Subject) {
				if !before[breakFact(f)] {
					out = append(out, verdict.SQLBreak{Subject: s.Subject, Consumer: c.Name, Owner: c.Owner,
						File: f.File, Line: f.Line, Message: f.Message, Fact: breakFact(f)})
				}
			}
		}
	}
	return out
}

// breakFact names a finding without its position: rule, table and message.
func breakFact(f Finding) string { return f.Rule + ":" + f.Table + ":" + f.Message }

// sqlErrors checks a consumer's scripts against tree and keeps the errors about the
// tables of subject.
func sqlErrors(c *contract.Consumer, tree *contract.Tree, subject string) []Finding {
	a := &flinksql.Analyzer{}
	for i, text := range c.SQLText {
		a.Add(flinksql.Parse(c.SQL[i], text))
	}
	var out []Finding
	for _, f := range CheckSQL(a, tree, "").Findings {
		if f.Severity == SevError && f.Subject == subject && f.Rule != RuleParse {
			out = append(out, f)
		}
	}
	return out
}
