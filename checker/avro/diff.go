package avro

import "github.com/contractbot/contractbot/checker"

// Diff lists the field-level changes from old to next, keyed by dotted field path.
func Diff(old, next *Schema) []checker.Change { return nil }
