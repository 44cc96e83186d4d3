package web

import (
	"net/http"
	"strings"

	"github.com/contractbot/contractbot/docs/schemas"
)

// SchemasPath is where serve offers the JSON Schemas of the contract files, for
// editors: /schemas/contract.schema.json and so on (the same files `contractbot init`
// writes under docs/schemas/).
const SchemasPath = "/schemas/"

// serveSchema answers GET /schemas/{name} with one of the embedded JSON Schemas.
func serveSchema(w http.ResponseWriter, r *http.Request) {
	secure(w)
	name := r.PathValue("name")
	b, err := schemas.FS.ReadFile(name)
	if err != nil || !strings.HasSuffix(name, ".schema.json") {
		http.Error(w, "no such schema; the schemas are teams, contract, consumer, calendar-entry, freezes and change-event (.schema.json)", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Cache-Control", "max-age=3600")
	w.Header().Set("Access-Control-Allow-Origin", "*") // editors and web tools fetch them cross-origin
	w.Write(b)
}
