package protobuf

import "github.com/contractbot/contractbot/checker"

// registryRules are the registry's difference kinds that fail a check, each with its
// purpose, in the order a listing shows them. The other kinds (fields, messages, enum
// constants and oneofs added or removed, renames, string/bytes labels) keep a change
// compatible and are not rules.
var registryRules = []checker.Rule{
	{ID: PackageChanged, Purpose: "The file's package stays the same: every message's full name depends on it."},
	{ID: MessageRemoved, Purpose: "A message a reader knows is still defined (in a forward check, a message new to the writer counts as one earlier readers lack)."},
	{ID: FieldKindChanged, Purpose: "A field stays a scalar, a message or a map: the three encode differently."},
	{ID: FieldScalarKindChanged, Purpose: "A scalar field changes only within a group the wire encodes alike (int32, int64, uint32, uint64, bool and enums; sint32 and sint64; string and bytes; fixed32 and sfixed32; fixed64 and sfixed64)."},
	{ID: FieldNamedTypeChanged, Purpose: "A message-typed field keeps a message of the same name, and that message stays compatible."},
	{ID: FieldNumericLabelChanged, Purpose: "A numeric field does not change between optional, repeated and required (packed and unpacked encodings differ)."},
	{ID: RequiredFieldAdded, Purpose: "No required field is added: data written without it does not parse."},
	{ID: RequiredFieldRemoved, Purpose: "No required field is removed: readers that require it reject data without it."},
	{ID: OneofFieldRemoved, Purpose: "A field does not leave its oneof for nothing: readers of the oneof lose the case."},
	{ID: MultipleFieldsMovedToOneof, Purpose: "Several existing fields are not moved into one oneof: data that set them together loses all but one."},
	{ID: FieldMovedToExistingOneof, Purpose: "An existing field is not moved into an existing oneof: data that set it beside the oneof's fields loses one."},
}

// RegistryRules lists the registry's Protobuf rules that fail a check, with their
// purposes.
func RegistryRules() []checker.Rule { return append([]checker.Rule(nil), registryRules...) }
