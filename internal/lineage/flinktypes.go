package lineage

import (
	"strconv"
	"strings"

	"github.com/contractbot/contractbot/internal/lineage/flinksql"
)

// typeRule is which Flink SQL types a format maps one schema type to, after the
// type mapping tables of Flink's format documentation (avro / avro-confluent, json,
// protobuf; the debezium-, canal-, maxwell- and ogg- formats map their row as json or
// avro-confluent do). docs/lineage.md has the tables.
type typeRule struct {
	// exact are the types the format reads and writes the schema type as; the first
	// is what a finding suggests.
	exact []string
	// read are also accepted in a source table: the format widens the value on read
	// (Avro's schema resolution promotes int to long, float and double).
	read []string
	// write are also accepted in a sink table: the value fits (SMALLINT into int).
	write []string
	// narrower are types that lose values: a finding of their own.
	narrower []string
}

var (
	strs   = []string{"STRING", "VARCHAR", "CHAR"}
	binary = []string{"BYTES", "VARBINARY", "BINARY"}
)

// typeRules maps a format family and a schema type (sType.Kind) to its rule.
var typeRules = map[string]map[string]typeRule{
	"avro": {
		"boolean":                {exact: []string{"BOOLEAN"}},
		"int":                    {exact: []string{"INT"}, read: []string{"BIGINT", "FLOAT", "DOUBLE"}, write: []string{"SMALLINT", "TINYINT"}, narrower: []string{"SMALLINT", "TINYINT"}},
		"long":                   {exact: []string{"BIGINT"}, read: []string{"FLOAT", "DOUBLE"}, narrower: []string{"INT", "SMALLINT", "TINYINT"}},
		"float":                  {exact: []string{"FLOAT"}, read: []string{"DOUBLE"}},
		"double":                 {exact: []string{"DOUBLE"}, narrower: []string{"FLOAT"}},
		"string":                 {exact: strs},
		"enum":                   {exact: strs},
		"uuid":                   {exact: strs},
		"bytes":                  {exact: binary},
		"fixed":                  {exact: binary},
		"decimal":                {exact: []string{"DECIMAL"}},
		"date":                   {exact: []string{"DATE"}},
		"time-millis":            {exact: []string{"TIME"}},
		"time-micros":            {exact: []string{"TIME"}},
		"timestamp-millis":       {exact: []string{"TIMESTAMP_LTZ", "TIMESTAMP"}},
		"timestamp-micros":       {exact: []string{"TIMESTAMP_LTZ", "TIMESTAMP"}},
		"local-timestamp-millis": {exact: []string{"TIMESTAMP"}},
		"local-timestamp-micros": {exact: []string{"TIMESTAMP"}},
		"record":                 {exact: []string{"ROW"}},
		"array":                  {exact: []string{"ARRAY"}},
		"map":                    {exact: []string{"MAP"}},
	},
	"json": {
		"boolean": {exact: []string{"BOOLEAN"}},
		"integer": {exact: []string{"BIGINT", "INT", "SMALLINT", "TINYINT", "DECIMAL"}, read: []string{"FLOAT", "DOUBLE"}},
		"string":  {exact: append(append([]string{}, strs...), "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "BYTES", "VARBINARY", "BINARY")},
		"object":  {exact: []string{"ROW", "MAP"}},
		"map":     {exact: []string{"MAP", "ROW"}},
		"array":   {exact: []string{"ARRAY", "MULTISET"}},
	},
	"protobuf": {
		"bool":     {exact: []string{"BOOLEAN"}},
		"int32":    {exact: []string{"INT"}},
		"sint32":   {exact: []string{"INT"}},
		"uint32":   {exact: []string{"INT"}},
		"fixed32":  {exact: []string{"INT"}},
		"sfixed32": {exact: []string{"INT"}},
		"int64":    {exact: []string{"BIGINT"}, narrower: []string{"INT"}},
		"sint64":   {exact: []string{"BIGINT"}, narrower: []string{"INT"}},
		"uint64":   {exact: []string{"BIGINT"}, narrower: []string{"INT"}},
		"fixed64":  {exact: []string{"BIGINT"}, narrower: []string{"INT"}},
		"sfixed64": {exact: []string{"BIGINT"}, narrower: []string{"INT"}},
		"float":    {exact: []string{"FLOAT"}},
		"double":   {exact: []string{"DOUBLE"}},
		"string":   {exact: strs},
		"bytes":    {exact: binary},
		"enum":     {exact: append(append([]string{}, strs...), "INT", "BIGINT", "SMALLINT", "TINYINT")},
		"message":  {exact: []string{"ROW"}},
		"array":    {exact: []string{"ARRAY"}},
		"map":      {exact: []string{"MAP"}},
	},
}

// formatFamily is the family of a Flink format ('value.format' or 'format'):
// avro, json or protobuf; "" for formats that are none (raw, csv, ...).
func formatFamily(format string) string {
	f := strings.ToLower(format)
	switch {
	case f == "avro" || strings.HasSuffix(f, "avro-confluent"):
		return "avro"
	case f == "json" || strings.HasSuffix(f, "-json"):
		return "json"
	case f == "protobuf":
		return "protobuf"
	}
	return ""
}

// contractFamily is the family of a contract's schema format.
func contractFamily(format string) string {
	switch format {
	case "avro", "protobuf":
		return format
	}
	return "json"
}

// isChangelog reports whether a format wraps the row in a change envelope
// (before/after): debezium-json, canal-json, ...
func isChangelog(format string) bool {
	f := strings.ToLower(format)
	return strings.HasPrefix(f, "debezium-") || strings.HasPrefix(f, "canal-") ||
		strings.HasPrefix(f, "maxwell-") || strings.HasPrefix(f, "ogg-")
}

// flinkBase is the name of a Flink type's root, as the rules name it (INTEGER is INT,
// TIMESTAMP WITH LOCAL TIME ZONE is TIMESTAMP_LTZ, ...).
func flinkBase(t *flinksql.Type) string {
	switch n := t.Name; n {
	case "INTEGER":
		return "INT"
	case "DEC", "NUMERIC":
		return "DECIMAL"
	case "CHARACTER":
		return "CHAR"
	case "REAL":
		return "FLOAT"
	case "BOOL":
		return "BOOLEAN"
	case "TIMESTAMP":
		if t.LocalTZ {
			return "TIMESTAMP_LTZ"
		}
		return n
	default:
		return n
	}
}

// suggest is the Flink type a finding tells to write for a schema type.
func suggest(fam string, st *sType) string {
	r, ok := typeRules[fam][st.Kind]
	if !ok || len(r.exact) == 0 {
		return ""
	}
	switch st.Kind {
	case "decimal":
		return "DECIMAL(" + strconv.Itoa(st.Precision) + ", " + strconv.Itoa(st.Scale) + ")"
	case "timestamp-millis", "local-timestamp-millis", "time-millis":
		return r.exact[0] + "(3)"
	case "timestamp-micros", "local-timestamp-micros", "time-micros":
		return r.exact[0] + "(6)"
	case "record", "message", "object":
		return "ROW<...> with the fields of " + st.Name
	case "array":
		if e := suggest(fam, st.elem()); e != "" && !strings.Contains(e, " ") {
			return "ARRAY<" + e + ">"
		}
	case "map":
		if e := suggest(fam, st.elem()); e != "" && !strings.Contains(e, " ") {
			return "MAP<STRING, " + e + ">"
		}
	}
	return r.exact[0]
}
