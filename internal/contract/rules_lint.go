package contract

import (
	"fmt"
	"slices"
	"strings"
)

// refusedRuleType reports a rule type Confluent has that contractbot refuses, with
// why; true for any other.
func refusedRuleType(ro *object, typ string) bool {
	why := map[string]string{
		"ENCRYPT": "field-level encryption needs a key encryption key in a KMS and Confluent's DEK registry, which contractbot can neither check nor serve (the embedded registry answers /dek-registry with 404); set up encryption rules in the registry itself",
		"JSONATA": "contractbot type-checks every rule against the schema at lint time with a real implementation of its language, and has none for JSONata; write the migration as a CEL TRANSFORM, or keep JSONata rules in the registry itself",
	}[typ]
	if why == "" {
		return true
	}
	ro.f.report(ro.valuePos("type"), CodeInvalidValue, "rule type %s is not taken here: %s.", typ, why)
	return false
}

// ruleActions checks a rule's on_success or on_failure as Confluent's serializers
// read it: an action name, or for a rule that runs both ways (WRITEREAD, UPDOWN) two
// separated by a comma (the first when writing or upgrading, the second when reading
// or downgrading), taken as written, without trimming; and a DLQ action needs the
// topic in params dlq.topic.
func ruleActions(ro *object, key, v string, r Rule) {
	at := ro.valuePos(key)
	parts := strings.Split(v, ",")
	for _, part := range parts {
		if !slices.Contains(RuleActions, part) {
			ro.f.report(at, CodeInvalidValue, "%s %q is not an action; use %s, or two of them separated by a comma and no space for a WRITEREAD or UPDOWN rule (\"NONE,ERROR\").", key, v, oneOf(RuleActions))
			return
		}
	}
	twoWay := r.Mode == "WRITEREAD" || r.Mode == "UPDOWN"
	switch {
	case len(parts) > 2 && twoWay:
		ro.f.report(at, CodeInvalidValue, "%s %q has %d actions; a %s rule takes one, or two separated by a comma (the first when %s, the second when %s), and Confluent ignores the rest. Write at most two.",
			key, v, len(parts), r.Mode, map[bool]string{true: "writing", false: "upgrading"}[r.Mode == "WRITEREAD"], map[bool]string{true: "reading", false: "downgrading"}[r.Mode == "WRITEREAD"])
	case len(parts) > 1 && !twoWay && r.Mode != "":
		ro.f.report(at, CodeInvalidValue, "%s %q gives two actions to a %s rule, which runs one way and takes one: Confluent would look for an action named %q and fail. Write one of %s, or make the rule %s.",
			key, v, r.Mode, v, oneOf(RuleActions), map[bool]string{true: "UPDOWN", false: "WRITEREAD"}[r.Migration()])
	case slices.Contains(parts, "DLQ") && r.Params["dlq.topic"] == "":
		ro.f.report(at, CodeInvalidValue, "%s %q sends records to a dead-letter topic, which Confluent's DLQ action takes from the rule's params; add params: {dlq.topic: <topic>}.", key, v)
	}
}

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
