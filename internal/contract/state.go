package contract

// JobState is a consumer file's `state:`: what a stateful job (a Flink job) keeps of
// the subject in its state, how it serializes it, and how it restarts after an upgrade.
// A change to a field kept in state is judged by what the serializer can migrate
// when the job restores from a savepoint (docs/contract-format.md).
type JobState struct {
	// Serializer is the state serializer: avro, protobuf, pojo, kryo or row.
	Serializer string `json:"serializer"`
	// Fields are the subject's fields the state holds ("*": every field).
	Fields []string `json:"fields"`
	// Savepoint is the upgrade policy: restore (the job restores its state from a
	// savepoint: the serializer must migrate it) or rebuild (the job starts empty
	// and replays its input).
	Savepoint string `json:"savepoint"`
}

// State serializers, as Flink names them.
const (
	SerializerAvro     = "avro"
	SerializerProtobuf = "protobuf"
	SerializerPOJO     = "pojo"
	SerializerKryo     = "kryo"
	SerializerRow      = "row"
)

// Serializers lists the allowed `state: {serializer:}` values.
var Serializers = []string{SerializerAvro, SerializerProtobuf, SerializerPOJO, SerializerKryo, SerializerRow}

// Savepoint policies.
const (
	SavepointRestore = "restore"
	SavepointRebuild = "rebuild"
)

// SavepointPolicies lists the allowed `state: {savepoint:}` values.
var SavepointPolicies = []string{SavepointRestore, SavepointRebuild}

// jobState reads a consumer's optional `state:`; its fields are checked against the
// subject's schema.
func jobState(f *file, o *object, s *Subject) *JobState {
	so := o.child("state", "state")
	if so == nil {
		return nil
	}
	so.expect("state", []string{"serializer", "fields"}, []string{"savepoint"})
	st := &JobState{Savepoint: SavepointRestore}
	if v, ok := so.str("serializer"); ok && so.oneOfValue("serializer", v, Serializers) {
		st.Serializer = v
	}
	if v, ok := so.str("savepoint"); ok && so.oneOfValue("savepoint", v, SavepointPolicies) {
		st.Savepoint = v
	}
	if items, ok := so.strList("fields"); ok {
		if len(items) == 0 {
			f.report(so.valuePos("fields"), CodeInvalidValue, "state: fields is empty; list the fields of %s the job keeps in its state, or [\"*\"].", s.Subject)
		}
		paths := s.FieldPaths()
		for _, it := range items {
			st.Fields = append(st.Fields, it.val)
			if it.val != "*" && paths != nil && !s.HasFieldPath(it.val) {
				f.reportField(it.pos, it.val, CodeUnknownField, "state field %q does not exist in %s.%s", it.val, s.SchemaFile, fieldHint(it.val, paths))
			}
		}
	}
	return st
}

// SignoffRequired is a consumer file's `signoff: required`: the consumer's team signs
// off changes that reach it through lineage too, as a direct consumer's does (by
// default an indirect consumer's team is only told).
const SignoffRequired = "required"
