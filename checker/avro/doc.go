// Package avro is contractbot's Avro compatibility engine. It parses schemas with
// hamba/avro (a fresh name cache per schema, so subjects never see each other's
// names), keeps where every element stands in the text, and applies the schema
// resolution rules of the Avro specification itself, reporting every
// incompatibility with a rule id, a JSON pointer, the dotted field path consumers use,
// file:line:column, the earlier version it fails against and a sentence to act on.
//
//   - Parse reads one schema; unusable input is a *checker.InputError with a position.
//     A pre-pass over the JSON text (a small parser that keeps offsets) rejects text
//     over MaxSchemaBytes (8 MiB), nesting deeper than MaxNestingDepth (256), duplicate
//     object members and unions directly inside unions before hamba/avro sees it;
//     hamba's own errors, which carry no position, are mapped to the offending value
//     (an unknown type name, the second definition of a name, a field's default, ...).
//     A record-typed default that leaves out fields with their own defaults is
//     completed from them before hamba/avro reads it (the specification's rule, which
//     Avro Java follows; hamba/avro refuses it when a left-out field is bytes or fixed).
//     hamba's model is built from that pre-parsed text through hamba's own
//     constructors (build.go, hamba's parser step by step without its second JSON
//     decoding and its mapstructure pass, a third of lint's time); a text that parser
//     would refuse or read in its own way (a member of another JSON kind or letter
//     case) goes to hamba's ParseBytesWithCache, so errors are hamba's. The tests
//     compare the two on every schema they parse.
//   - Canonical prints the text the Confluent Schema Registry stores for a schema.
//   - Check applies a level with the Confluent Schema Registry's meaning (BACKWARD,
//     FORWARD, FULL, their _TRANSITIVE forms, NONE).
//   - Diff lists field-level changes with their effect on a consumer of the field.
//   - Compat does all three for the `contractbot compat` command.
//
// Lines and columns are 1-based; columns count bytes, as Go's own tools do.
//
// # Rules
//
// The rules are a table (rules.go); their ids are the incompatibility kinds of the
// reference implementation, Java's org.apache.avro.SchemaCompatibility, which the
// Confluent Schema Registry reports: NAME_MISMATCH, FIXED_SIZE_MISMATCH,
// MISSING_ENUM_SYMBOLS, READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH and
// MISSING_UNION_BRANCH. The walker (walk.go) pairs reader and writer elements (fields
// by name, then by the reader field's aliases; writer union branches one by one; a
// reader union by its first matching branch) and memoises named-type pairs, so
// recursive types end: a pair met again while in progress counts as compatible, as
// in the reference implementation. The rule bodies live by element in named.go,
// enums.go, records.go, primitives.go and unions.go.
//
// The engine matches the reference implementation on all 182 reader/writer vectors
// (testdata/reference, transcribed from the Apache Avro test suites), including the
// kinds, messages and locations of the 83 cases that list them, and on the 32
// Confluent level vectors. Like the reference implementation it compares the
// unqualified names of named types (namespaces are ignored), applies aliases from the
// reader side only, ignores logical types (decimal precision, timestamp units), lets
// an enum default absorb unknown symbols, and, for a reader field of an enum type with
// an enum default but no field default that the writer lacks, compares the enum with
// the writer record (a TYPE_MISMATCH). Where it differs:
//
//   - Locations. The reference implementation's location mixes reader field indexes
//     with writer union branch indexes and follows named-type references, so it is not
//     always a pointer into either file. A Finding's Pointer is a real JSON pointer
//     into the file it names (a named type's findings point into its definition), and
//     the reference location is kept internally and asserted by the reference tests.
//   - Reuse. A named-type pair found incompatible is reported at every place it is
//     used (each with its own field path), not once; identical findings are merged.
//     At most 10,000 issues are reported per reader/writer pair.
//   - Diff reports logical type changes (decimal precision or scale,
//     timestamp-millis vs -micros) and units named in docs as changes of meaning,
//     though the compatibility check, like the reference, ignores them.
//
// # hamba/avro's own check
//
// hamba/avro's SchemaCompatibility serves as a second opinion in the tests
// (hamba_test.go). With a fresh instance per check it agrees with the reference
// implementation on all 182 vectors. It differs in three ways, each pinned by a test:
// it stops at the first problem and gives no location; to pair a reader field it takes
// the first writer field (in writer order) whose name equals the reader field's name
// or one of its aliases, where the reference implementation looks for the name first
// (a reader field "a" with alias "b" against writer fields b:string, a:int is
// compatible, hamba says not); and its cache is keyed by the canonical-form
// fingerprints, which leave out defaults and aliases, so a reused instance answers a
// later check with an earlier one's result.
//
// # Field paths
//
// A field's path joins field names with dots from the top-level record. Unions,
// arrays and maps are transparent: field `items` of type array of record with field
// `sku` gives "items" and "items.sku". A record already being expanded on the way
// down is not expanded again (recursive types stop at the first repeat); at most
// 100,000 paths are listed.
package avro
