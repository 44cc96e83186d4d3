package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// DecodeDataContract reads the data-contract keys of the contract.yaml at path
// (owner, tier, topic, the fields' pii, doc and unit, and the rules, not compiled)
// with the loader's rules, for
// readers that need them without loading the folder (the embedded registry, at the
// commit where each version first appeared). Values that do not decode are left
// empty; the loader reports them. nil when the file does not parse.
func DecodeDataContract(path string, data []byte) *Subject {
	var ds Diagnostics
	f := &file{path: path, diags: &ds}
	o := f.parse(data)
	if o == nil {
		return nil
	}
	return dataContractOf(o)
}

func dataContractOf(o *object) *Subject {
	s := &Subject{}
	s.Subject, _ = o.str("subject")
	s.Owner, _ = o.str("owner")
	s.Tier, _ = o.str("tier")
	s.Topic, _ = o.str("topic")
	if fo := o.child("fields", "fields"); fo != nil {
		s.Fields = map[string]FieldMeta{}
		for _, name := range fo.names() {
			fm := fo.child(name, "field "+name)
			if fm == nil {
				continue
			}
			var meta FieldMeta
			meta.PII, _ = fm.boolean("pii")
			meta.Doc, _ = fm.str("doc")
			meta.Unit, _ = fm.str("unit")
			s.Fields[name] = meta
		}
	}
	s.Rules = rules(o)
	if g := o.child("compatibility_group", "compatibility_group"); g != nil {
		s.Group = &Group{}
		s.Group.Key, _ = g.str("key")
		s.Group.Value, _ = g.str("value")
	}
	return s
}

// DataContractKey identifies the data contract of a decoded contract.yaml: what a
// schema registry receives as the schema's metadata and ruleSet (the owner, tier and
// topic, the fields marked pii, the compatibility group's value, the rules). Two files with the same key send the same
// metadata and ruleSet; "" for nil.
func DataContractKey(s *Subject) string {
	if s == nil {
		return ""
	}
	var pii []string
	for path, f := range s.Fields {
		if f.PII {
			pii = append(pii, path)
		}
	}
	slices.Sort(pii)
	rs, _ := json.Marshal(s.Rules)
	parts := []string{s.Owner, s.Tier, s.Topic, strings.Join(pii, "\x01"), string(rs)}
	if s.Group != nil {
		// the group's value is a metadata property (its key is the subject's config)
		parts = append(parts, s.Group.Key+"="+s.Group.Value)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}
