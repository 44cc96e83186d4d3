package checker

// ValueKind is the kind of a value as a data rule's expression sees it (the types of
// the Common Expression Language that Confluent's rule executors give a record's
// values).
type ValueKind uint8

// The kinds of values. ValueDyn is any value: the expression may use it as anything,
// and the format cannot say more (a union of several types, a logical type clients
// decode differently).
const (
	ValueDyn ValueKind = iota
	ValueBool
	ValueInt
	ValueUint
	ValueDouble
	ValueString
	ValueBytes
	ValueNull
	ValueRecord
	ValueList
	ValueMap
)

// ValueType is the type of one value: a field's, a list's items, a map's values.
type ValueType struct {
	Kind ValueKind
	// Record is the full name of a ValueRecord's record, a key of ValueTypes.Records.
	Record string
	// Elem is a ValueList's items or a ValueMap's values; Key is a ValueMap's keys.
	Elem, Key *ValueType
	// Nullable: the value may be null (an Avro union with null).
	Nullable bool
}

// RecordField is one field of a record: its name and type.
type RecordField struct {
	Name string
	Type ValueType
}

// ValueTypes are the records of a schema with the types of their fields, for
// type-checking the expressions of data rules; Root is the type of the values the
// schema describes (usually a record).
type ValueTypes struct {
	Root    ValueType
	Records map[string][]RecordField
}

// ValueTyper is implemented by schemas that can give the types of their record's
// values (Avro, JSON Schema). Protobuf schemas give their message descriptor instead.
type ValueTyper interface {
	ValueTypes() ValueTypes
}
