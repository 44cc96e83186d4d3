package contract

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
	return s
}
