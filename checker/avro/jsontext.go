package avro

import "github.com/contractbot/contractbot/checker/jsontext"

// MaxSchemaBytes is the largest schema text Parse accepts (8 MiB).
const MaxSchemaBytes = 8 << 20

// MaxNestingDepth is the deepest nesting of JSON arrays and objects Parse accepts.
// The pre-pass refuses deeper text before hamba/avro (which recurses) sees it.
const MaxNestingDepth = jsontext.MaxNestingDepth

// jsonOptions gives the pre-pass the Avro way out of too-deep nesting.
var jsonOptions = jsontext.Options{DepthHint: "flatten it (define named types once and refer to them by name)"}

// parseJSON reads schema text with the offset of every value and key.
func parseJSON(data []byte) (*jsontext.Node, error) {
	return jsontext.Parse(data, jsonOptions)
}
