package jsonschema

import "github.com/contractbot/contractbot/checker/jsontext"

// MaxSchemaBytes is the largest schema text Parse accepts (8 MiB).
const MaxSchemaBytes = 8 << 20

// MaxNestingDepth is the deepest nesting of JSON arrays and objects Parse accepts.
// Deeper text is refused before anything recurses over it.
const MaxNestingDepth = jsontext.MaxNestingDepth

// jsonOptions gives the reader the JSON Schema way out of too-deep nesting.
var jsonOptions = jsontext.Options{DepthHint: "flatten it (define the nested part once under $defs and refer to it with $ref)"}

// parseJSON reads schema text with the offset of every value and key.
func parseJSON(data []byte) (*jsontext.Node, error) {
	return jsontext.Parse(data, jsonOptions)
}
