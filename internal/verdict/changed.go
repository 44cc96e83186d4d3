package verdict

import (
	"bytes"

	"github.com/contractbot/contractbot/internal/contract"
)

// What changed about a subject from the base to the head is written here once, in
// three parts the evaluation asks about: whether the subject changed at all
// (changedSubjects: a Modified subject), whether its schema is checked again
// (assessSubject), and whether a new registry version carries the same schema with
// other metadata (dataContractChanges). A folder's move is not among them: a moved
// subject is Moved when nothing else changed.

// changed reports whether anything the verdict reads about a subject differs: its
// schema, its registry metadata, or the rest of contract.yaml (format, compatibility
// group, signoff_hours, removal policy, a field's unit, doc or deprecation, the table's keys, SLA,
// retention and partitions, the description).
func changed(b, h *contract.Subject) bool {
	return schemaChanged(b, h) || metadataChanged(b, h) ||
		b.Format != h.Format || !b.Group.Same(h.Group) || b.SignoffHours != h.SignoffHours || b.Policy != h.Policy || fieldMetaDiffers(b, h) ||
		tableChanged(b, h) || b.Description != h.Description
}

// schemaChanged reports whether what the registry check reads differs: the schema's
// text or a file it imports (the digest), the level, protobuf_rules, the record
// message, or a compatibility group the base's version was not in.
func schemaChanged(b, h *contract.Subject) bool {
	return b.Digest != h.Digest || !bytes.Equal(b.SchemaText, h.SchemaText) || b.Compatibility != h.Compatibility ||
		b.ProtobufRules != h.ProtobufRules || b.Message != h.Message || newGroup(b, h)
}

// metadataChanged reports whether what publishing sends beside the schema differs:
// owner, tier and topic (the registry's metadata), the data contract's rules and PII
// tags.
func metadataChanged(b, h *contract.Subject) bool {
	return b.Owner != h.Owner || b.Tier != h.Tier || b.Topic != h.Topic || dataContractDiffers(b, h)
}
