package verdict

import (
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// RuleFinding is a data rule of the contract (contract.yaml's `rules:`, Confluent's
// ruleSet) that a schema change breaks: the rule reads a field the change removes,
// renames, moves or retypes. It makes the subject BREAKING for the rule's owner.
type RuleFinding struct {
	// Rule is the rule's name, Field the field path it reads, Change what happens to it.
	Rule   string `json:"rule"`
	Field  string `json:"field"`
	Change string `json:"change"`
	Owner  string `json:"owner"`
	// File, Line and Column locate the rule's expression in contract.yaml.
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// breakingKinds are the changes after which a rule reading the field no longer holds.
var breakingKinds = map[checker.ChangeKind]string{
	checker.FieldRemoved: "removes",
	checker.FieldRenamed: "renames",
	checker.FieldMoved:   "moves",
	checker.TypeChanged:  "changes the type of",
}

// dataRuleFindings reports the base's data rules that read a field the change
// removes, renames, moves or retypes.
func dataRuleFindings(b, h *contract.Subject, sr *SubjectReport) {
	for _, r := range b.Rules {
		for _, field := range r.Fields {
			for _, c := range sr.Changes {
				verb, ok := breakingKinds[c.Kind]
				if !ok || !ruleReads(field, c) {
					continue
				}
				at := r.Pos
				for _, hr := range h.Rules {
					if hr.Name == r.Name {
						at = hr.Pos
					}
				}
				sr.DataRules = append(sr.DataRules, RuleFinding{
					Rule: r.Name, Field: field, Change: string(c.Kind), Owner: h.Owner,
					File: h.ContractPath(), Line: at.Line, Column: at.Column,
					Message: fmt.Sprintf("data rule %q reads %s, which this change %s; serializers that enforce the rule will fail for %s, its owner. Change the rule's expression in this pull request, or keep the field.",
						r.Name, field, verb, h.Owner),
				})
				sr.Class = Breaking
				break
			}
		}
	}
}

// ruleReads reports whether a rule reading field reads what change c touches: the field
// itself or a field nested under it.
func ruleReads(field string, c checker.Change) bool {
	for _, p := range []string{c.Path, c.OldPath} {
		if p != "" && (field == p || strings.HasPrefix(field, p+".")) {
			return true
		}
	}
	return false
}
