package registry

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// contractDifferences names each difference between Git's data contract of a version
// and the registry's (metadata properties, tags, sensitive names, rules), one
// sentence each, in a fixed order; none when they are the same. An absent metadata or
// ruleSet is the same as an empty one.
func contractDifferences(gitMeta, regMeta *Metadata, gitRules, regRules *RuleSet) []string {
	var out []string
	gm, rm := orEmptyMeta(gitMeta), orEmptyMeta(regMeta)
	for _, k := range unionKeys(gm.Properties, rm.Properties) {
		g, inGit := gm.Properties[k]
		r, inReg := rm.Properties[k]
		switch {
		case !inReg:
			out = append(out, fmt.Sprintf("metadata property %s=%q is not in the registry", k, g))
		case !inGit:
			out = append(out, fmt.Sprintf("the registry has metadata property %s=%q, which contract.yaml does not", k, r))
		case g != r:
			out = append(out, fmt.Sprintf("metadata property %s is %q in the registry, %q in contract.yaml", k, r, g))
		}
	}
	for _, k := range unionKeys(gm.Tags, rm.Tags) {
		g, r := strings.Join(gm.Tags[k], ","), strings.Join(rm.Tags[k], ",")
		if g != r {
			out = append(out, fmt.Sprintf("metadata tags of %s are [%s] in the registry, [%s] in contract.yaml", k, r, g))
		}
	}
	if g, r := slices.Sorted(slices.Values(gm.Sensitive)), slices.Sorted(slices.Values(rm.Sensitive)); !slices.Equal(g, r) {
		out = append(out, fmt.Sprintf("sensitive properties are [%s] in the registry, [%s] in contract.yaml", strings.Join(r, ","), strings.Join(g, ",")))
	}
	gr, rr := orEmptyRules(gitRules), orEmptyRules(regRules)
	out = append(out, ruleDifferences("domain", gr.DomainRules, rr.DomainRules)...)
	return append(out, ruleDifferences("migration", gr.MigrationRules, rr.MigrationRules)...)
}

// ruleDifferences compares two lists of rules by name: a rule one side lacks, and the
// members of a rule that differ.
func ruleDifferences(kind string, git, reg []Rule) []string {
	var out []string
	byName := func(rs []Rule) map[string]Rule {
		m := map[string]Rule{}
		for _, r := range rs {
			m[r.Name] = r
		}
		return m
	}
	gm, rm := byName(git), byName(reg)
	for _, name := range unionKeys(gm, rm) {
		g, inGit := gm[name]
		r, inReg := rm[name]
		switch {
		case !inReg:
			out = append(out, fmt.Sprintf("%s rule %q (%s %s %s) is not in the registry", kind, name, g.Mode, g.Type, g.Kind))
		case !inGit:
			out = append(out, fmt.Sprintf("the registry has %s rule %q (%s %s %s), which contract.yaml does not", kind, name, r.Mode, r.Type, r.Kind))
		default:
			if fields := differingFields(g, r); len(fields) > 0 {
				out = append(out, fmt.Sprintf("%s rule %q differs in %s", kind, name, strings.Join(fields, ", ")))
			}
		}
	}
	return out
}

// differingFields names the JSON members in which two rules differ.
func differingFields(a, b Rule) []string {
	var out []string
	va, vb, t := reflect.ValueOf(a), reflect.ValueOf(b), reflect.TypeOf(a)
	for i := range t.NumField() {
		if emptyAsZero(va.Field(i)) != emptyAsZero(vb.Field(i)) {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
	}
	return out
}

// emptyAsZero is a value's JSON with the empty values (nil or empty maps and lists,
// "", false) as "", as omitempty leaves them out.
func emptyAsZero(v reflect.Value) string {
	if v.IsZero() || ((v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.Len() == 0) {
		return ""
	}
	return string(mustJSON(v.Interface()))
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func orEmptyMeta(m *Metadata) Metadata {
	if m == nil {
		return Metadata{}
	}
	return *m
}

func orEmptyRules(r *RuleSet) RuleSet {
	if r == nil {
		return RuleSet{}
	}
	return *r
}
