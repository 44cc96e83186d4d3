package registry

import (
	"slices"

	"github.com/contractbot/contractbot/internal/contract"
)

// TagPII is the tag of fields contract.yaml marks `pii: true`, as Confluent's data
// contracts name it.
const TagPII = "PII"

// MetadataOf is the data-contract metadata of a subject as contract.yaml declares it:
// properties owner, tier and topic (when set); a PII tag on every field marked
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
