package registry

import (
	"slices"

	"github.com/contractbot/contractbot/internal/contract"
)

// TagPII is the tag of fields contract.yaml marks `pii: true`, as Confluent's data
// contracts name it.
const TagPII = "PII"

// MetadataOf is the data-contract metadata of a subject as contract.yaml declares it:
// properties owner, tier and topic (when set) and the compatibility group's key with
// this version's value (when declared); a PII tag on every field marked
// `pii: true`, keyed "**.<field path>" (Confluent matches tag keys as patterns against
// a field's full name, which ends with the dotted path contract.yaml uses). nil for a
// nil subject.
func MetadataOf(s *contract.Subject) *Metadata {
	if s == nil {
		return nil
	}
	m := &Metadata{Properties: map[string]string{"owner": s.Owner, "tier": s.Tier}}
	if s.Topic != "" {
		m.Properties["topic"] = s.Topic
	}
	if s.Group != nil && s.Group.Key != "" {
		// the version's compatibility group (the subject's compatibilityGroup config
		// names the property)
		m.Properties[s.Group.Key] = s.Group.Value
	}
	for path, f := range s.Fields {
		if f.PII {
			if m.Tags == nil {
				m.Tags = map[string][]string{}
			}
			m.Tags["**."+path] = []string{TagPII}
		}
	}
	for k := range m.Tags {
		slices.Sort(m.Tags[k])
	}
	return m
}

// GroupOf is the compatibility group key (Confluent's compatibilityGroup config) of a
// subject's contract.yaml, "" when it declares none.
func GroupOf(s *contract.Subject) string {
	if s == nil || s.Group == nil {
		return ""
	}
	return s.Group.Key
}

// RuleSetOf is the ruleSet of a subject's contract.yaml `rules:`, split into domain
// and migration rules as Confluent takes them; nil when it declares none.
func RuleSetOf(s *contract.Subject) *RuleSet {
	if s == nil || len(s.Rules) == 0 {
		return nil
	}
	rs := &RuleSet{}
	for _, r := range s.Rules {
		out := Rule{Name: r.Name, Doc: r.Doc, Kind: r.Kind, Mode: r.Mode, Type: r.Type, Tags: r.Tags, Params: r.Params,
			Expr: r.Expr, OnSuccess: r.OnSuccess, OnFailure: r.OnFailure, Disabled: r.Disabled}
		if r.Migration() {
			rs.MigrationRules = append(rs.MigrationRules, out)
		} else {
			rs.DomainRules = append(rs.DomainRules, out)
		}
	}
	return rs
}
