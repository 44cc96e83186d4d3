// Package jsonschema is contractbot's JSON Schema compatibility engine, with the
// Confluent Schema Registry's meaning of compatibility.
//
//   - Parse reads one schema and the files its $ref values name (through
//     ParseInput.Resolve, by their names from contracts/, as Protobuf imports and the
//     registry's schema references name them):
//     JSON with the position of every value (a small parser that keeps offsets and
//     refuses text over MaxSchemaBytes or nesting past MaxNestingDepth), the draft its
//     $schema declares (4, 6, 7, 2019-09, 2020-12; none means draft 7, as the registry
//     assumes; any other is refused), local $ref to $defs, definitions, pointers and
//     anchors, then santhosh-tekuri/jsonschema compiles every document against its
//     draft's meta-schema. Unusable input (invalid JSON, an unknown draft, a $ref to
//     nothing, a cycle of bare $ref, a schema the meta-schema refuses) is a
//     *checker.InputError with file, line and column.
//   - The schema is read into the model the registry compares (model.go, load.go):
//     the keywords of one schema object grouped by the type they constrain (string,
//     number, object, array), enum, const, not, combinations, references; several
//     at once make an allOf, a type list an anyOf, as the registry's loader does.
//   - Check runs the shared level loop (checker.CheckLevel): BACKWARD compares the
//     earlier version (the registry's "original") with the new one (its "update"),
//     FORWARD the other way round, FULL both, _TRANSITIVE against every earlier
//     version. The comparison (compare.go, compare_object.go) follows the registry's
//     SchemaDiff: open, partially open and closed content models
//     (additionalProperties, patternProperties, unevaluatedProperties, and the same
//     for items), combined schemas matched by a maximum matching of compatible
//     subschemas, numbers, strings, arrays, enums, const, not, dependencies. Each
//     difference has the registry's type as its rule id (rules.go, all 132 of them);
//     those outside the registry's compatible set (its STRICT policy) are findings,
//     at the registry's path (#/properties/foo), with a JSON pointer and
//     file:line:column in the new schema.
//   - Diff lists field-level changes by dotted path (nested objects, array items,
//     combinations and $ref are walked): added, removed, renamed (removed and added
//     under one parent with the same type), moved to another level, type, enum
//     values, nullability, requiredness, default, and description with the units it
//     names, each with its effect on a consumer of the field.
//
// Every example of the registry's own diff corpus (testdata/confluent, 150 examples)
// gives the registry's verdict and difference types (TestConfluentCorpus);
// docs/verdict.md lists where the engine knowingly departs from the registry.
package jsonschema
