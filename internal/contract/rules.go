package contract

import (
	"fmt"
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
}

// Migration reports whether the rule is a migration rule (it runs between versions)
// rather than a domain rule.
func (r Rule) Migration() bool {
	return r.Mode == "UPGRADE" || r.Mode == "DOWNGRADE" || r.Mode == "UPDOWN"
}

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
		if v, ok := ro.str("type"); ok && ro.oneOfValue("type", v, RuleTypes) {
			r.Type = v
		}
		if v, ok := ro.str("mode"); ok && ro.oneOfValue("mode", v, RuleModes) {
			r.Mode = v
		}
		r.Expr, _ = ro.str("expr")
		r.Pos, r.expr = ro.valuePos("expr"), ro.vals["expr"]
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
		for key, dst := range map[string]*string{"on_success": &r.OnSuccess, "on_failure": &r.OnFailure} {
			if v, ok := ro.str(key); ok {
				for _, part := range strings.Split(v, ",") {
					if !slices.Contains(RuleActions, strings.TrimSpace(part)) {
						ro.f.report(ro.valuePos(key), CodeInvalidValue, "%s %q is not an action; use %s, or two of them separated by a comma for a WRITEREAD or UPDOWN rule (\"NONE,ERROR\").", key, v, oneOf(RuleActions))
					}
				}
				*dst = v
			}
		}
		r.Disabled, _ = ro.boolean("disabled")
		out = append(out, r)
	}
	return out
}

// ruleEnv is the CEL environment of each rule type, as the registry's executors
// declare it: CEL rules see the record as `message`; CEL_FIELD rules see one field
// (`name`, `typeName`, `tags`, `value`) and its record.
var ruleEnv = map[string]func() (*cel.Env, error){
	"CEL": func() (*cel.Env, error) { return cel.NewEnv(cel.Variable("message", cel.DynType)) },
	"CEL_FIELD": func() (*cel.Env, error) {
		return cel.NewEnv(cel.Variable("message", cel.DynType), cel.Variable("name", cel.StringType),
			cel.Variable("typeName", cel.StringType), cel.Variable("tags", cel.ListType(cel.StringType)),
			cel.Variable("value", cel.DynType))
	},
}

// checkRules compiles each rule's expression with cel-go and checks the fields it
// reads through `message` against the schema's field paths (has), reporting each
// problem at its line and column in contract.yaml.
func checkRules(f *file, rs []Rule, has func(string) bool, paths []string) {
	for i := range rs {
		r := &rs[i]
		newEnv := ruleEnv[r.Type]
		if newEnv == nil || r.Expr == "" {
			continue
		}
		env, err := newEnv()
		if err != nil {
			continue
		}
		a, iss := env.Compile(r.Expr)
		if iss != nil && iss.Err() != nil {
			for _, e := range iss.Errors() {
				f.report(exprPos(r, e.Location.Line(), e.Location.Column()), CodeInvalidRule,
					"rule %q: the CEL expression does not compile: %s.", r.Name, e.Message)
			}
			continue
		}
		if has == nil {
			continue
		}
		nat := a.NativeRep()
		seen := map[string]bool{}
		inner := map[int64]bool{} // the inner links of chains already read
		celast.PreOrderVisit(nat.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
			if inner[e.ID()] {
				return
			}
			path, root, ok := messagePath(e)
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
			if known := knownPrefix(path, has, paths); known != path {
				loc := nat.SourceInfo().GetStartLocation(root.ID())
				missing := path
				if known != "" {
					missing = path[:len(known)+1+strings.IndexByte(path[len(known)+1:]+".", '.')]
				}
				f.report(exprPos(r, loc.Line(), loc.Column()), CodeInvalidRule,
					"rule %q reads message.%s, but the schema has no field %q.%s", r.Name, path, missing, didYouMean(missing, paths))
				return
			}
			r.Fields = append(r.Fields, path)
		}))
		slices.Sort(r.Fields)
	}
}

// messagePath returns the dotted field path of a select chain rooted at `message`
// (message.a.b -> "a.b") and the `message` identifier it starts with; ok is false
// for anything else.
func messagePath(e celast.Expr) (string, celast.Expr, bool) {
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
	if cur.Kind() != celast.IdentKind || cur.AsIdent() != "message" {
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
		return Pos{Line: p.Line + line, Column: p.Column + col}
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
