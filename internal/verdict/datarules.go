package verdict

import (
	"fmt"
	"slices"
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
	// File, Line and Column locate in contract.yaml the place in the rule's expression
	// that no longer checks, where lint reports it too.
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

// dataRuleFindings reports the head's data rules that type-checked against the base's
// schema but no longer do against the head's: the change removed, renamed, moved or
// retyped a field they read (a retyped field that the rule still reads correctly, such
// as int to long, breaks nothing). A rule new in the head, or already wrong against the
// base, is lint's to report, and so is either schema when it does not parse.
func dataRuleFindings(b, h *contract.Subject, sr *SubjectReport) {
	inBase := map[string]bool{}
	for _, r := range b.Rules {
		inBase[r.Name] = true
	}
	for _, r := range h.Rules {
		if !inBase[r.Name] || (sr.Group != nil && r.Migration()) {
			continue // a new group's migration rules are judged by groupChange
		}
		read, before, ok := b.CheckRule(r)
		if !ok || len(before) > 0 {
			continue
		}
		_, after, ok := h.CheckRule(r)
		if !ok || len(after) == 0 {
			continue
		}
		field, verb, under := "", "", ""
		kind := checker.ChangeKind("")
		// The deepest field first: a rule reading items.quantity through
		// message.items.all(i, i.quantity > 0) reads items too, but the change is to
		// items.quantity.
	changes:
		for _, f := range slices.Backward(read) {
			for _, c := range sr.Changes {
				if v, ok := breakingKinds[c.Kind]; ok && ruleReads(f, c) {
					field, verb, kind = f, v, c.Kind
					if c.Path != f && strings.HasPrefix(c.Path, f+".") {
						under = c.Path
					}
					break changes
				}
			}
		}
		what := fmt.Sprintf("reads %s, which this change %s", field, verb)
		if under != "" {
			what = fmt.Sprintf("reads %s, and this change %s %s", field, verb, under)
		}
		msg := fmt.Sprintf("data rule %q %s; serializers that enforce the rule will fail for %s, its owner. Change the rule's expression in this pull request, or keep the field.",
			r.Name, what, h.Owner)
		switch {
		case field == "":
			msg = fmt.Sprintf("data rule %q no longer type-checks against the new schema (%s); serializers that enforce the rule will fail for %s, its owner. Change the rule's expression in this pull request, or undo the change to the fields it reads.",
				r.Name, after[0].Cause, h.Owner)
		case kind == checker.TypeChanged:
			msg = fmt.Sprintf("data rule %q %s, and no longer type-checks (%s); serializers that enforce the rule will fail for %s, its owner. Change the rule's expression in this pull request, or keep the field's type.",
				r.Name, what, after[0].Cause, h.Owner)
		}
		sr.DataRules = append(sr.DataRules, RuleFinding{
			Rule: r.Name, Field: field, Change: string(kind), Owner: h.Owner,
			File: h.ContractPath(), Line: after[0].Pos.Line, Column: after[0].Pos.Column, Message: msg,
		})
		sr.Class = Breaking
	}
}

// ruleReads reports whether a rule reading field reads what change c touches: the field
// itself, a field nested under it, or (a rule reading a record or a list of records)
// a field nested under the one it reads.
func ruleReads(field string, c checker.Change) bool {
	for _, p := range []string{c.Path, c.OldPath} {
		if p != "" && (field == p || strings.HasPrefix(field, p+".") || strings.HasPrefix(p, field+".")) {
			return true
		}
	}
	return false
}
