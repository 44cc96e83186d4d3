package contract

import (
	"fmt"
	"strings"
)

// ignoreGuardParam is the rule parameter that makes Confluent's CEL executors take
// the whole expr as the expression, a ';' included (CelExecutor.CEL_IGNORE_GUARD_SEPARATOR).
const ignoreGuardParam = "cel.ignore.guard.separator"

// exprPart is a guard or the expression of a rule's expr, and where it starts in it.
type exprPart struct {
	text  string
	start int
	guard bool
}

// exprParts splits expr as Confluent's executors do: a non-blank text before the first
// ';' is a guard, the rest is the expression; with the rule parameter
// cel.ignore.guard.separator "true", nothing is split.
func exprParts(expr string, ignoreGuard bool) []exprPart {
	i := strings.IndexByte(expr, ';')
	if i < 0 || ignoreGuard {
		return []exprPart{{text: expr}}
	}
	var parts []exprPart
	if strings.TrimSpace(expr[:i]) != "" {
		parts = append(parts, exprPart{text: expr[:i], guard: true})
	}
	return append(parts, exprPart{text: expr[i+1:], start: i + 1})
}

// guardInString reports a rule whose first ';' is inside a CEL string literal
// (message.model_version != "a;b"). Confluent's executors split at the first ';'
// wherever it is (expr.indexOf(';'), not a CEL token), so the rule would be cut
// inside the string: one problem at the ';' that says so, instead of the parse errors
// of the two halves.
func guardInString(r *Rule) (RuleProblem, bool) {
	i := strings.IndexByte(r.Expr, ';')
	if i < 0 || r.Params[ignoreGuardParam] == "true" || !inStringLiteral(r.Expr, i) {
		return RuleProblem{}, false
	}
	before := r.Expr[:i]
	line, col := 1+strings.Count(before, "\n"), i-(strings.LastIndexByte(before, '\n')+1)
	cause := "the first ';' of the expression is inside a string literal"
	return RuleProblem{exprPos(r, line, col), fmt.Sprintf("rule %q: %s, and Confluent's executors end the guard at an expression's first ';' wherever it is, so the rule would be cut inside the string. Write the ';' in the string as \\x3B (\"a\\x3Bb\" is \"a;b\" in CEL), or, when the rule has no guard, add params: {%s: \"true\"}.",
		r.Name, cause, ignoreGuardParam), cause}, true
}

// inStringLiteral reports whether byte at of a CEL expression is inside a string or
// bytes literal: '...', "...", their triple-quoted forms, raw (r"...") or not.
func inStringLiteral(expr string, at int) bool {
	for i := 0; i < at; {
		c := expr[i]
		if c != '"' && c != '\'' {
			i++
			continue
		}
		raw := i > 0 && (expr[i-1] == 'r' || expr[i-1] == 'R')
		q := expr[i : i+1]
		if strings.HasPrefix(expr[i:], strings.Repeat(q, 3)) {
			q = strings.Repeat(q, 3)
		}
		j := i + len(q)
		for j < len(expr) && !strings.HasPrefix(expr[j:], q) {
			if !raw && expr[j] == '\\' {
				j++
			}
			j++
		}
		if at < j {
			return true
		}
		i = j + len(q)
	}
	return false
}
