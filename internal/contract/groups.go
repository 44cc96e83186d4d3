package contract

import (
	"regexp"
	"slices"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"

	"github.com/contractbot/contractbot/checker"
)

// Group is contract.yaml's `compatibility_group:`: Confluent's compatibility groups.
// The registry's subject config names a metadata property (its compatibilityGroup,
// Key); each version carries a value of it (Value) in its metadata, and the registry
// checks a new version only against the versions of the same value. A new value is a
// new major version: checked against nothing, its readers migrated by the migration
// rules (UPGRADE, DOWNGRADE) between the groups.
type Group struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Pos locates the compatibility_group key.
	Pos Pos `json:"-"`
}

// Same reports whether two subjects' versions are in the same compatibility group:
// neither declares one, or both the same key and value.
func (g *Group) Same(o *Group) bool {
	if g == nil || o == nil {
		return g == nil && o == nil
	}
	return g.Key == o.Key && g.Value == o.Value
}

// String is key=value, as a consumer's use.latest.with.metadata names the group.
func (g *Group) String() string {
	if g == nil {
		return ""
	}
	return g.Key + "=" + g.Value
}

// reGroupKey is a metadata property name: what Confluent's examples use
// (application.major.version, major_version).
var reGroupKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]{0,127}$`)

// reGroupValue is a group value: one line of at most 64 printable characters.
var reGroupValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// compatibilityGroup reads contract.yaml's optional `compatibility_group: {key, value}`.
func compatibilityGroup(o *object) *Group {
	g := o.child("compatibility_group", "compatibility_group")
	if g == nil {
		return nil
	}
	g.expect("compatibility_group", []string{"key", "value"}, nil)
	out := &Group{Pos: o.keys["compatibility_group"]}
	if v, ok := g.str("key"); ok {
		if reGroupKey.MatchString(v) {
			out.Key = v
		} else {
			g.f.report(g.valuePos("key"), CodeInvalidValue, "compatibility_group key %q is not a metadata property name; use letters, digits, '.', '_' and '-', such as application.major.version.", v)
		}
	}
	if v, ok := g.str("value"); ok {
		if reGroupValue.MatchString(v) {
			out.Value = v
		} else {
			g.f.report(g.valuePos("value"), CodeInvalidValue, "compatibility_group value %q is not a group value; use letters, digits, '.', '_' and '-', such as \"2\" (quote it).", v)
		}
	}
	if out.Key == "" || out.Value == "" {
		return nil
	}
	return out
}

// consumerGroup reads a consumer file's optional `group:`, the value of its subject's
// compatibility group the consumer reads (its deserializer's
// use.latest.with.metadata).
func consumerGroup(f *file, o *object, s *Subject) string {
	v, ok := o.str("group")
	if !ok {
		return ""
	}
	switch {
	case !reGroupValue.MatchString(v):
		f.report(o.valuePos("group"), CodeInvalidValue, "group %q is not a group value; use letters, digits, '.', '_' and '-', such as \"1\" (quote it).", v)
		return ""
	case s.Group == nil && s.Subject != "":
		f.report(o.valuePos("group"), CodeInvalidValue, "group %q names a compatibility group, but %s declares no valid one (compatibility_group: {key, value} in its contract.yaml); correct that, or remove group:.", v, s.Subject)
		return ""
	}
	return v
}

// OnGroup reports whether the consumer reads the given group value of its subject:
// the group it declares, or, when it declares none, the group its subject had
// before (old, the value readers have not moved from).
func (c *Consumer) OnGroup(value, old string) bool {
	if c.Group == "" {
		return value == old
	}
	return c.Group == value
}

// MigrationRule reports whether the rule runs when records are read across
// compatibility groups in direction mode (UPGRADE: a reader of the new group reads a
// record of the old; DOWNGRADE: the other way).
func (r Rule) MigrationRule(mode string) bool {
	return r.Mode == mode || r.Mode == "UPDOWN"
}

// Literals lists the string literals of a rule's expression (a CEL_FIELD guard's
// name == "amount" names the field it writes), sorted; nil when it does not parse.
func (r Rule) Literals() []string {
	env, err := cel.NewEnv()
	if err != nil {
		return nil
	}
	var out []string
	for _, part := range exprParts(r.Expr, r.Params[ignoreGuardParam] == "true") {
		a, iss := env.Parse(part.text)
		if iss != nil && iss.Err() != nil {
			continue
		}
		celast.PreOrderVisit(a.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
			if e.Kind() != celast.LiteralKind {
				return
			}
			if s, ok := e.AsLiteral().(types.String); ok {
				out = append(out, string(s))
			}
		}))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Earlier is an earlier version of a subject's schema, as check and the bot read it
// from the first-parent history: its text, and the compatibility group its
// contract.yaml declared where the text first appeared (a registry checks a version
// of a group only against the versions of that group).
type Earlier struct {
	checker.Input
	// Group is that compatibility group (nil for none); GroupKnown is false when the
	// contract.yaml beside the text could not be read, or was not (the head is in no
	// group, so the groups do not matter), and the version is then compared whatever
	// the group.
	Group      *Group
	GroupKnown bool
}

// InGroup reports whether a version of group g (nil: none) is compared with e: a
// group's versions are compared only with the versions of the same group, and a
// version of no group with every earlier version, as before.
func (e Earlier) InGroup(g *Group) bool {
	return g == nil || !e.GroupKnown || (e.Group != nil && e.Group.Same(g))
}
