// Package protobuf checks Protobuf schema changes for contractbot.
//
// Schemas are compiled with github.com/bufbuild/protocompile with source info kept,
// so every finding and change has a file, line and column. Imports are read only
// through the caller's Resolver (the contract tree: a subject's file importing
// another subject's file is a schema reference in registry terms) plus the
// well-known types; import paths that are absolute or contain ".." are refused.
// Files written with `edition = ...` are refused. The compiler resolves a file's
// imports on several goroutines, so a Resolver must be safe for concurrent use (the
// one Compat builds records disk paths under a lock); a compiled Schema is only read
// afterwards and may be shared between goroutines. An import that imports nothing but
// the well-known types is compiled once per content and shared by later compilations
// (imports.go).
//
// Three views of a change:
//
//   - The compatibility level, with the Confluent Schema Registry's Protobuf
//     semantics (SchemaDiff, MessageSchemaDiff, FieldSchemaDiff): the registry diffs
//     whole files and a level passes when every difference is of a compatible kind.
//     BACKWARD diffs the earlier version (original) against the new one (update);
//     FORWARD diffs the new one against the earlier one, so a message added in the
//     new version fails FORWARD as MESSAGE_REMOVED, as it does in the registry. FULL
//     does both; _TRANSITIVE forms compare with every earlier version, the others
//     with the latest. Findings carry the registry's difference kind as their rule
//     and its path (`#/Order/items_oneof/3`), located in the new file when the element
//     is there and in the old one otherwise.
//   - Optional stricter rules: buf's breaking rules of the WIRE or WIRE_JSON category
//     (buf v1.75.0, v2 configuration), with buf's rule ids and positions. Each rule
//     is a small function in the table built by breakingRules; elements are paired
//     once per check in pair.go. A differential test runs buf itself on generated
//     edits of single files (TestBufDifferential) and of modules of 2 to 4 files
//     importing each other (TestBufDifferentialModules) and requires the same rule
//     ids, files and positions; set CONTRACTBOT_BUF to a buf v1.75.0 binary.
//   - Diff: the field-level change list of the record message, keyed by dotted field
//     path (`items.sku`), each change with an effect for consumers reading the field.
package protobuf
