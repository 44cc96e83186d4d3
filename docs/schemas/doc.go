// Package schemas holds the JSON Schemas (draft 2020-12) of the contract repository's
// YAML files, for editors (yaml-language-server) and for tests:
//
//	teams.schema.json           contracts/teams.yaml
//	contract.schema.json        contracts/<domain>/<name>/contract.yaml
//	consumer.schema.json        contracts/<domain>/<name>/consumers/<consumer>.yaml
//	calendar-entry.schema.json  calendar/<yyyy-mm-dd>-<slug>.yaml
//	freezes.schema.json         calendar/freezes.yaml
//
// `contractbot init` writes them into a new repository's docs/schemas/ (the path every
// file's `$schema=` line names) and `contractbot serve` serves them at
// /schemas/<name>.schema.json.
//
// The schemas describe exactly the format of docs/contract-format.md. The loader in
// internal/contract is the reference for cross-file rules the schemas cannot express
// (owners exist, field paths exist in the schema, subjects are unique, end after start).
//
// schemas_test.go validates the example tree in contracts/ and calendar/ against these
// schemas, parses every Avro and Protobuf schema of the tree, and checks that every bad
// file in testdata/bad/ is rejected.
package schemas

import (
	"embed"
	"strings"
)

// FS holds the *.schema.json files.
//
//go:embed *.schema.json
var FS embed.FS

// ForFile names the schema file (in FS) for a repository-relative YAML path, or "" when
// the path is not a file of the contract format.
func ForFile(rel string) string {
	return roleOf(rel)
}

// roleOf maps a slash-separated, repository-relative path to its schema file name.
func roleOf(rel string) string {
	parts := strings.Split(rel, "/")
	switch {
	case rel == "contracts/teams.yaml":
		return "teams.schema.json"
	case len(parts) == 4 && parts[0] == "contracts" && parts[3] == "contract.yaml":
		return "contract.schema.json"
	case len(parts) == 5 && parts[0] == "contracts" && parts[3] == "consumers" && strings.HasSuffix(parts[4], ".yaml"):
		return "consumer.schema.json"
	case rel == "calendar/freezes.yaml":
		return "freezes.schema.json"
	case len(parts) == 2 && parts[0] == "calendar" && strings.HasSuffix(parts[1], ".yaml"):
		return "calendar-entry.schema.json"
	}
	return ""
}
