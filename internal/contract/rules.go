package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"go.yaml.in/yaml/v3"
)

// CodeInvalidRule is the diagnostic of a data rule whose expression does not compile
// or names a field the schema does not have.
const CodeInvalidRule = "invalid-rule"

// Rule is one data rule of a contract.yaml's `rules:`, in the shape of the Confluent
// Schema Registry's ruleSet (docs/contract-format.md, "Data rules"): domain rules
// (modes WRITE, READ, WRITEREAD) and migration rules (UPGRADE, DOWNGRADE, UPDOWN).
type Rule struct {
	Name      string            `json:"name"`
	Doc       string            `json:"doc,omitempty"`
	Kind      string            `json:"kind"` // CONDITION | TRANSFORM
	Mode      string            `json:"mode"`
	Type      string            `json:"type"` // CEL | CEL_FIELD
	Tags      []string          `json:"tags,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Expr      string            `json:"expr"`
	OnSuccess string            `json:"onSuccess,omitempty"`
	OnFailure string            `json:"onFailure,omitempty"`
	Disabled  bool              `json:"disabled,omitempty"`
	// Fields are the schema's field paths the expression reads through `message`,
	// sorted (for check: a change that removes or retypes one breaks the rule).
	Fields []string `json:"fields,omitempty"`
	// Pos is where the rule's expr starts in contract.yaml.
	Pos Pos `json:"-"`

	expr *yaml.Node
	// indent is the indentation of a block scalar expr's lines.
	indent int
}

// Migration reports whether the rule is a migration rule (it runs between versions)
// rather than a domain rule.
func (r Rule) Migration() bool {
	return r.Mode == "UPGRADE" || r.Mode == "DOWNGRADE" || r.Mode == "UPDOWN"
}

// Same reports whether two rules send the same rule to a registry (the fields each
// reads and where it is written are not part of it).
func (r Rule) Same(o Rule) bool {
	return r.Name == o.Name && r.Doc == o.Doc && r.Kind == o.Kind && r.Mode == o.Mode && r.Type == o.Type &&
		slices.Equal(r.Tags, o.Tags) && maps.Equal(r.Params, o.Params) && r.Expr == o.Expr &&
		r.OnSuccess == o.OnSuccess && r.OnFailure == o.OnFailure && r.Disabled == o.Disabled
}

// Digest identifies everything Same compares (expression, params, tags, actions,
// mode, kind, type, doc, disabled): two rules of one name with the same Digest do
// the same. A sign-off or override of a rule binds to it.
func (r Rule) Digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "%q|%q|%q|%q|%q|%q|%q|%q|%q|%t|", r.Name, r.Doc, r.Kind, r.Mode, r.Type, r.Tags, r.Expr, r.OnSuccess, r.OnFailure, r.Disabled)
	for _, k := range slices.Sorted(maps.Keys(r.Params)) {
		fmt.Fprintf(h, "%q=%q;", k, r.Params[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Action is the action a rule takes on failure (onFailure == true) or success when
// it runs in mode (WRITE or READ for a domain rule, UPGRADE or DOWNGRADE for a
// migration rule), as Confluent's serializers pick it: the first of two
// comma-separated actions for WRITE and UPGRADE, the second for READ and DOWNGRADE,
// when the rule runs both ways (WRITEREAD, UPDOWN); on failure, ERROR when none is
// set. "" when the rule does not run in that mode, or takes no action.
func (r Rule) Action(mode string, onFailure bool) string {
	runs := r.Mode == mode || (r.Mode == "WRITEREAD" && (mode == "WRITE" || mode == "READ")) ||
		(r.Mode == "UPDOWN" && (mode == "UPGRADE" || mode == "DOWNGRADE"))
	if !runs || r.Disabled {
		return ""
	}
	a := r.OnSuccess
	if onFailure {
		a = r.OnFailure
	}
	if (r.Mode == "WRITEREAD" || r.Mode == "UPDOWN") && strings.Contains(a, ",") {
		parts := strings.Split(a, ",")
		a = parts[0]
		if mode == "READ" || mode == "DOWNGRADE" {
			a = parts[1]
		}
	}
	if a == "" && onFailure {
		return "ERROR"
	}
	return a
}

// notRecords are the CEL types a record is not.
var notRecords = []*cel.Type{cel.BoolType, cel.IntType, cel.UintType, cel.DoubleType, cel.StringType, cel.BytesType}

// The values a rule's keys take.
var (
	RuleKinds   = []string{"CONDITION", "TRANSFORM"}
	RuleTypes   = []string{"CEL", "CEL_FIELD"}
	RuleModes   = []string{"WRITE", "READ", "WRITEREAD", "UPGRADE", "DOWNGRADE", "UPDOWN"}
	RuleActions = []string{"NONE", "ERROR", "DLQ"}
)

// rules reads `rules:` (without compiling the expressions: that needs the schema).
func rules(o *object) []Rule {
	var out []Rule
	seen := map[string]bool{}
	for i, ro := range o.list("rules", "rule") {
		what := fmt.Sprintf("rule %d", i+1)
		ro.expect(what, []string{"name", "kind", "type", "mode", "expr"},
			[]string{"doc", "tags", "params", "on_success", "on_failure", "disabled"})
		var r Rule
		r.Name, _ = ro.str("name")
		if r.Name != "" {
			if seen[r.Name] {
				ro.f.report(ro.valuePos("name"), CodeDuplicateName, "two rules are named %q; give each rule its own name.", r.Name)
			}
			seen[r.Name] = true
		}
		if v, ok := ro.str("kind"); ok && ro.oneOfValue("kind", v, RuleKinds) {
			r.Kind = v
		}
		if v, ok := ro.str("type"); ok && refusedRuleType(ro, v) && ro.oneOfValue("type", v, RuleTypes) {
			r.Type = v
		}
		if v, ok := ro.str("mode"); ok && ro.oneOfValue("mode", v, RuleModes) {
			r.Mode = v
		}
		r.Expr, _ = ro.str("expr")
		r.Pos, r.expr = ro.valuePos("expr"), ro.vals["expr"]
		if r.expr != nil && r.expr.Kind == yaml.ScalarNode && strings.TrimSpace(r.Expr) == "" {
			ro.f.report(r.Pos, CodeInvalidValue, "rule %q has an empty expr, which Confluent's executors cannot run; write the CEL expression: for a CONDITION one that is true when the record is good (message.amount > 0), for a TRANSFORM one that gives the new value.", r.Name)
		}
		r.indent = blockIndent(ro.f.data, r.expr)
		r.Doc, _ = ro.str("doc")
		if tags, ok := ro.strList("tags"); ok {
			for _, t := range tags {
				r.Tags = append(r.Tags, t.val)
			}
		}
		if po := ro.child("params", "params of "+what); po != nil {
			r.Params = map[string]string{}
			for _, k := range po.names() {
				if v, ok := po.str(k); ok {
					r.Params[k] = v
				}
			}
		}
		for _, a := range []struct {
			key string
			dst *string
		}{{"on_success", &r.OnSuccess}, {"on_failure", &r.OnFailure}} {
			if v, ok := ro.str(a.key); ok {
				ruleActions(ro, a.key, v, r)
				*a.dst = v
			}
		}
		r.Disabled, _ = ro.boolean("disabled")
		out = append(out, r)
	}
	return out
}

// RuleProblem is one thing wrong with a data rule's expression: where it is in
// contract.yaml and a sentence saying what to do.
type RuleProblem struct {
	Pos     Pos
	Message string
	// Cause is the CEL checker's own words, when it found the problem.
	Cause string
}

// checkRules compiles and type-checks each rule's expression with cel-go against the
// schema's types (rt) and field paths (s), reporting each problem at its line and
// column in contract.yaml, and lists the fields each rule reads.
func checkRules(f *file, s *Subject, rt *ruleTypes) {
	envs := map[string]*cel.Env{}
	for i := range s.Rules {
		r := &s.Rules[i]
		if s.Group != nil && r.Mode == "UPGRADE" {
			// It runs on records of the previous group, whose schema this tree no
			// longer holds: check type-checks it against that schema (the base's).
			continue
		}
		var probs []RuleProblem
		r.Fields, probs = analyzeRule(r, s, rt, envs)
		for _, p := range probs {
			f.report(p.Pos, CodeInvalidRule, "%s", p.Message)
		}
	}
}

// CheckRule type-checks rule r (a rule of this subject or of another version of it)
// against this subject's schema: the fields r reads and what is wrong with it; ok is
// false when the schema does not parse (nothing could be checked).
func (s *Subject) CheckRule(r Rule) (fields []string, problems []RuleProblem, ok bool) {
	sch, err := s.Schema()
	if err != nil {
		return nil, nil, false
	}
	fields, problems = analyzeRule(&r, s, newRuleTypes(sch), map[string]*cel.Env{})
	return fields, problems, true
}

// analyzeRule parses r's expression (a guard before the first ';', as Confluent's
// executors split it, then the expression), checks the fields its message.a.b chains
// name against the schema's paths (so a misspelled field gets a suggestion), then
// type-checks it, and a CONDITION's result is a bool. envs caches the environment of
// each rule type.
func analyzeRule(r *Rule, s *Subject, rt *ruleTypes, envs map[string]*cel.Env) (fields []string, probs []RuleProblem) {
	if strings.TrimSpace(r.Expr) == "" || (r.Type != "CEL" && r.Type != "CEL_FIELD") {
		return nil, nil
	}
	if rt == nil {
		rt = newRuleTypes(nil)
	}
	env, ok := envs[r.Type]
	if !ok {
		var err error
		if env, err = rt.env(r.Type); err != nil {
			env = nil
		}
		envs[r.Type] = env
	}
	if env == nil {
		return nil, nil
	}
	paths := s.FieldPaths()
	// message.a.b chains are read from the record: in CEL rules, and in CEL_FIELD
	// rules when every field's containing record is the record itself.
	names := paths != nil && (r.Type == "CEL" || rt.fieldMessage == rt.message)
	if p, ok := guardInString(r); ok {
		return nil, []RuleProblem{p}
	}
	for _, part := range exprParts(r.Expr, r.Params[ignoreGuardParam] == "true") {
		at := func(line, col int) Pos {
			l, c := part.pos(r.Expr, line, col)
			return exprPos(r, l, c)
		}
		a, iss := env.Parse(part.text)
		if iss != nil && iss.Err() != nil {
			for _, e := range iss.Errors() {
				probs = append(probs, RuleProblem{at(e.Location.Line(), e.Location.Column()),
					fmt.Sprintf("rule %q: the CEL expression does not compile: %s.", r.Name, e.Message), e.Message})
			}
			continue
		}
		var unknown []RuleProblem
		if names {
			var read []string
			read, unknown = messageFields(r, a, s, at)
			fields = append(fields, read...)
			probs = append(probs, unknown...)
		}
		if len(unknown) > 0 {
			continue // the type checker would say the same, without the suggestion
		}
		checked, iss := env.Check(a)
		if iss != nil && iss.Err() != nil {
			for _, e := range iss.Errors() {
				probs = append(probs, RuleProblem{at(e.Location.Line(), e.Location.Column()), typeProblem(r, e.Message, s.SchemaFile, rt.typed), e.Message})
			}
			continue
		}
		if out := checked.OutputType(); (part.guard || r.Kind == "CONDITION") && !out.IsAssignableType(cel.BoolType) {
			what := "the CONDITION rule"
			if part.guard {
				what = "the guard before ';'"
			}
			cause := fmt.Sprintf("%s gives %s, not a bool", what, article(out.String())+" "+out.String())
			probs = append(probs, RuleProblem{at(1, 0), fmt.Sprintf("rule %q: %s; write an expression that is true when the record is good (message.amount > 0).", r.Name, cause), cause})
		}
		if !part.guard && r.Kind == "TRANSFORM" && r.Type == "CEL" && slices.ContainsFunc(notRecords, checked.OutputType().IsExactType) {
			cause := fmt.Sprintf("the CEL TRANSFORM gives %s, not the record", article(checked.OutputType().String())+" "+checked.OutputType().String())
			probs = append(probs, RuleProblem{at(1, 0), fmt.Sprintf("rule %q: %s; a CEL TRANSFORM gives the new record; to check the record, make it a CONDITION, and to change one field, use a CEL_FIELD TRANSFORM (its expression gives the field's new value).", r.Name, cause), cause})
		}
	}
	slices.Sort(fields)
	return slices.Compact(fields), probs
}

// typeProblem says what to do about a type checker's message.
func typeProblem(r *Rule, msg, schemaFile string, typed bool) string {
	switch {
	case strings.HasPrefix(msg, "undefined field"):
		return fmt.Sprintf("rule %q reads a field that is not there (%s); use a field of %s.", r.Name, msg, schemaFile)
	case strings.HasPrefix(msg, "undeclared reference"):
		vars := "message"
		if r.Type == "CEL_FIELD" {
			vars = "value, name, fullName, typeName, tags and message"
		}
		return fmt.Sprintf("rule %q: %s; a %s rule sees %s (and CEL's functions).", r.Name, msg, r.Type, vars)
	case typed && strings.Contains(msg, "'_[_]'") && !strings.Contains(msg, "(map(") && !strings.Contains(msg, "(list("):
		return fmt.Sprintf("rule %q reads a field by index (%s), but in CEL a record is not indexed by name; read the field as message.name (message.channel for message[\"channel\"]).", r.Name, msg)
	case typed:
		return fmt.Sprintf("rule %q does not type-check against the field types of %s: %s. Compare each field with a value of its type (CEL does not convert: 1 is an int, 1.0 a double, \"1\" a string) or convert it explicitly (int(), double(), string()).", r.Name, schemaFile, msg)
	}
	return fmt.Sprintf("rule %q does not type-check: %s; correct the expression.", r.Name, msg)
}

// pos turns a 1-based line and 0-based column inside the part into the same inside
// the whole expr.
func (p exprPart) pos(expr string, line, col int) (int, int) {
	// CEL's parser gives -1, -1 for errors of the whole expression (too deep, too
	// long): those are placed at the part's start.
	line, col = max(line, 1), max(col, 0)
	off := p.start
	for l := 1; l < line; l++ {
		nl := strings.IndexByte(expr[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	off = min(off+col, len(expr))
	before := expr[:off]
	return 1 + strings.Count(before, "\n"), off - (strings.LastIndexByte(before, '\n') + 1)
}

// messageFields lists the fields a parsed expression reads through message.a.b chains,
// and through the variables of macros over them (message.items.all(i, i.quantity > 0)
// reads items and items.quantity: a comprehension's element variable stands for the
// field path of its range), and reports the chains that name no field of the schema.
func messageFields(r *Rule, a *cel.Ast, s *Subject, at func(line, col int) Pos) (fields []string, probs []RuleProblem) {
	paths := s.FieldPaths()
	nat := a.NativeRep()
	seen := map[string]bool{}
	inner := map[int64]bool{}   // the inner links of chains already read
	bound := map[int64]string{} // identifiers of comprehension variables -> field path
	celast.PreOrderVisit(nat.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() == celast.ComprehensionKind {
			bindElement(e.AsComprehension(), bound)
		}
		if inner[e.ID()] {
			return
		}
		path, root, ok := messagePath(e, bound)
		if !ok {
			return
		}
		for cur := e; cur.Kind() == celast.SelectKind; cur = cur.AsSelect().Operand() {
			inner[cur.ID()] = true
		}
		if seen[path] {
			return
		}
		seen[path] = true
		if known := knownPrefix(path, s.HasFieldPath, paths); known != path {
			loc := nat.SourceInfo().GetStartLocation(root.ID())
			missing := path
			if known != "" {
				missing = path[:len(known)+1+strings.IndexByte(path[len(known)+1:]+".", '.')]
			}
			probs = append(probs, RuleProblem{at(loc.Line(), loc.Column()),
				fmt.Sprintf("rule %q reads message.%s, but the schema has no field %q.%s", r.Name, path, missing, didYouMean(missing, paths)),
				fmt.Sprintf("the schema has no field %q", missing)})
			return
		}
		fields = append(fields, path)
	}))
	return fields, probs
}

// bindElement records, for a comprehension (a macro such as all, exists, map, filter)
// over a field path, that its element variable (the only one, or the second of two)
// stands for that path wherever the loop reads it. Comprehensions are visited outer
// first, so an inner one's variable of the same name takes over in its own loop, and
// its range may start at an outer one's variable.
func bindElement(c celast.ComprehensionExpr, bound map[int64]string) {
	path, _, ok := messagePath(c.IterRange(), bound)
	if !ok {
		return
	}
	name := c.IterVar()
	if c.HasIterVar2() {
		name = c.IterVar2()
	}
	for _, part := range []celast.Expr{c.LoopCondition(), c.LoopStep(), c.Result()} {
		celast.PreOrderVisit(part, celast.NewExprVisitor(func(e celast.Expr) {
			if e.Kind() == celast.IdentKind && e.AsIdent() == name {
				bound[e.ID()] = path
			}
		}))
	}
}

// messagePath returns the dotted field path of a select chain rooted at `message`
// (message.a.b -> "a.b") or at a comprehension variable bound to a field path (i.b,
// i bound to "a" -> "a.b"), and the identifier it starts with; ok is false for
// anything else.
func messagePath(e celast.Expr, bound map[int64]string) (string, celast.Expr, bool) {
	if e.Kind() != celast.SelectKind {
		return "", nil, false
	}
	var parts []string
	cur := e
	for cur.Kind() == celast.SelectKind {
		sel := cur.AsSelect()
		parts = append(parts, sel.FieldName())
		cur = sel.Operand()
	}
	if cur.Kind() != celast.IdentKind {
		return "", nil, false
	}
	if p, ok := bound[cur.ID()]; ok {
		parts = append(parts, p)
	} else if cur.AsIdent() != "message" {
		return "", nil, false
	}
	slices.Reverse(parts)
	return strings.Join(parts, "."), cur, true
}

// knownPrefix is the longest prefix of path (whole segments) that is a field path and
// may go on: path itself, or the prefix where a field without nested fields ends
// (a map's key, a value's member), or "" when even the first segment is unknown.
func knownPrefix(path string, has func(string) bool, paths []string) string {
	segs := strings.Split(path, ".")
	known := ""
	for i := range segs {
		p := strings.Join(segs[:i+1], ".")
		if !has(p) {
			if known != "" && !slices.ContainsFunc(paths, func(q string) bool { return strings.HasPrefix(q, known+".") }) {
				return path // a leaf (a map or a scalar): what follows is not a field
			}
			return known
		}
		known = p
	}
	return known
}

// exprPos maps a 1-based line and 0-based column inside a rule's expression to
// contract.yaml: on the value's own line for a plain or quoted scalar, from the line
// after the indicator for a block scalar (| or >).
func exprPos(r *Rule, line, col int) Pos {
	p := r.Pos
	if r.expr == nil {
		return p
	}
	// An error at the end of the text (after a block scalar's last line break) is
	// shown at the end of its last line.
	lines := strings.Split(strings.TrimRight(r.Expr, "\n"), "\n")
	if line > len(lines) {
		line, col = len(lines), len(lines[len(lines)-1])
	}
	switch r.expr.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return Pos{Line: p.Line + line, Column: r.indent + col + 1}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if line == 1 {
			return Pos{Line: p.Line, Column: p.Column + 1 + col}
		}
	default:
		if line == 1 {
			return Pos{Line: p.Line, Column: p.Column + col}
		}
	}
	return Pos{Line: p.Line + line - 1, Column: col + 1}
}

// blockIndent is the indentation of the first non-blank line of a block scalar (| or >)
// whose indicator is on n's line, 0 for any other node.
func blockIndent(data []byte, n *yaml.Node) int {
	if n == nil || (n.Style != yaml.LiteralStyle && n.Style != yaml.FoldedStyle) {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	for i := n.Line; i < len(lines); i++ {
		if t := strings.TrimLeft(lines[i], " "); strings.TrimSpace(t) != "" {
			return len(lines[i]) - len(t)
		}
	}
	return 0
}
