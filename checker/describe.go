package checker

// FieldInfo describes one field of a schema for people: the subject page's fields
// table.
type FieldInfo struct {
	// Path is the dotted field path, as consumers' reads name it.
	Path string
	// Depth is how deep the field is nested (0 for a top-level field).
	Depth int
	// Type is the field's type as the format writes it, without null: "long",
	// "bytes (decimal(12,2))", "array of record LineItem", "map<string, int64>".
	Type string
	// Default is the default value as the format writes it; HasDefault says whether
	// there is one.
	Default    string
	HasDefault bool
	// Nullable: the field may hold no value (Avro: a union with null; Protobuf: a
	// field with presence, such as a message or an optional field).
	Nullable bool
	// Doc is the schema's own documentation of the field (Avro doc, Protobuf comments).
	Doc string
}

// FieldDescriber is implemented by schemas that can describe their fields; the pages
// show only the field paths of a schema that cannot.
type FieldDescriber interface {
	// DescribeFields lists the fields in the order the schema declares them, nested
	// fields after their parent, at most MaxFieldPaths of them.
	DescribeFields() []FieldInfo
}
