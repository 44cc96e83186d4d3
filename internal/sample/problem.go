package sample

// Kind is what is wrong with a message; each kind is one row of Kinds.
type Kind string

// The kinds of problem a message can have.
const (
	// UnknownSchemaID: the message's schema id is none of the subject's versions in
	// the contract's history (nor, when a registry was asked, one it knows).
	UnknownSchemaID Kind = "unknown-schema-id"
	// IDNotInContract: the registry knows the id but the contract's history never had
	// it: a schema registered behind the repository's back.
	IDNotInContract Kind = "id-not-in-contract"
	// DecodeError: the payload does not decode with the schema its id names, or is
	// neither Confluent-framed nor JSON.
	DecodeError Kind = "decode-error"
	// UndeclaredField: a JSON property the contract's schema does not declare.
	UndeclaredField Kind = "undeclared-field"
	// MissingField: a required field is absent.
	MissingField Kind = "missing-field"
	// TypeMismatch: a value of another type than the contract says.
	TypeMismatch Kind = "type-mismatch"
	// InvalidValue: a value of the right type that the schema's constraints refuse
	// (an enum symbol it lacks, a JSON Schema minimum, pattern, length).
	InvalidValue Kind = "invalid-value"
	// RuleViolation: a value for which one of the contract's CEL CONDITION rules is
	// false (or fails).
	RuleViolation Kind = "rule-violation"
	// TooLarge: a message over the byte budget; it is not judged further.
	TooLarge Kind = "too-large"
)

// KindInfo describes a kind: its purpose and what to do about it.
type KindInfo struct {
	Kind    Kind
	Purpose string
	Advice  string
}

// Kinds lists every kind in the order results print them.
var Kinds = []KindInfo{
	{UnknownSchemaID, "the schema id is no version of the subject in the contract's history",
		"Register the schema through a pull request to the contract repository, or point the producer's serializer at the subject's schema."},
	{IDNotInContract, "the registry knows the schema id, but the contract never had it",
		"Someone registered this schema behind the repository's back: add it to the contract through a pull request (the bot asks the consumers), or delete it from the registry and fix the producer."},
	{DecodeError, "the payload does not decode with the schema its id names",
		"Fix the producer: the bytes must be what the contract's schema says (written with the schema whose id they carry, or valid JSON of the schema)."},
	{UndeclaredField, "a field the contract's schema does not declare",
		"Add the field to the contract through a pull request (its consumers are asked), or stop producing it."},
	{MissingField, "a required field is absent",
		"Produce the field, or make it optional in the contract through a pull request."},
	{TypeMismatch, "a value of another type than the contract says",
		"Produce the type the contract says, or change the contract through a pull request."},
	{InvalidValue, "a value the schema's constraints refuse",
		"Produce a value the schema allows, or change the schema through a pull request."},
	{RuleViolation, "a value for which a CEL condition of the contract is false",
		"Fix the producer, or change the rule through a pull request."},
	{TooLarge, "a message over the byte budget, not judged",
		"Keep messages under the budget, or raise --max-bytes if they are meant to be this large."},
}

// info returns the row of k.
func info(k Kind) KindInfo {
	for _, ki := range Kinds {
		if ki.Kind == k {
			return ki
		}
	}
	return KindInfo{Kind: k}
}

// rank orders kinds as Kinds lists them.
func rank(k Kind) int {
	for i, ki := range Kinds {
		if ki.Kind == k {
			return i
		}
	}
	return len(Kinds)
}

// Problem is one thing wrong with one message.
type Problem struct {
	Kind Kind
	// Key is true for a problem of the record's key.
	Key bool
	// Field is the dotted field path ("product_info.price"), "" when the problem is
	// the message's as a whole.
	Field string
	// Detail is a sentence saying what is wrong with this message (without advice).
	Detail string
	// ID is the schema id of unknown-schema-id and id-not-in-contract.
	ID int
}
