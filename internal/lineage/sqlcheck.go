package lineage

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/flinksql"
)

// Severities of a Finding: errors fail `lineage check`, warnings are shown.
const (
	SevError   = "error"
	SevWarning = "warning"
)

// The rules of `lineage check`, each a sentence of what the DDL must agree with.
const (
	RuleParse          = "sql-parse"              // a statement does not parse
	RuleNotInSchema    = "column-not-in-schema"   // a physical column (or ROW field) the schema lacks
	RuleType           = "column-type"            // a type the format does not map the field's type to
	RuleNarrower       = "narrower-type"          // a numeric type that loses the field's values
	RuleNotNull        = "not-null-over-optional" // NOT NULL over a field that may be null
	RuleNullable       = "nullable-over-required" // a sink writes nulls where the field is required
	RuleRequired       = "required-not-written"   // a sink lacks a field its subject requires
	RuleFormat         = "value-format"           // the table's format is not the contract's
	RuleKeyFields      = "key-fields"             // key.fields is not the contract's business key
	RulePrimaryKey     = "primary-key"            // PRIMARY KEY is not the contract's business key
	RuleConsumerFile   = "consumer-file"          // the job's consumer file differs from the SQL
	maxSuggestedFields = 8
)

// Finding is one disagreement between a job's Flink SQL and the contracts, located in
// the SQL (or in the consumer file, for RuleConsumerFile).
type Finding struct {
	located.Span
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Table    string `json:"table,omitempty"`
	Subject  string `json:"subject,omitempty"`
	Message  string `json:"message"`
}

// MappedTable is a table of the SQL and the subject it was checked against.
type MappedTable struct {
	Table   string `json:"table"`
	Subject string `json:"subject"`
	Sink    bool   `json:"sink"`
}

// SQLCheck is what CheckSQL found.
type SQLCheck struct {
	Findings []Finding     `json:"findings"`
	Tables   []MappedTable `json:"tables"`
	// Notes say what was not checked and why.
	Notes []string `json:"notes,omitempty"`
}

// Errors counts the findings of severity error.
func (c *SQLCheck) Errors() int {
	n := 0
	for _, f := range c.Findings {
		if f.Severity == SevError {
			n++
		}
	}
	return n
}

// CheckSQL checks a job's Flink SQL against the contracts (lineage check): every Kafka
// table whose topic (or its format's subject option) maps to a subject has its columns
// checked against the subject's schema (names, nested ROW fields, types as the format
// maps them, nullability), its key options and PRIMARY KEY against the contract's
// business key; a sink table also writes every field its schema requires. With job
// set, the job's consumer files are compared with the SQL as lineage sync --check
// does.
func CheckSQL(a *flinksql.Analyzer, tree *contract.Tree, job string) *SQLCheck {
	res := a.Result()
	c := &sqlChecker{tree: tree, out: &SQLCheck{Findings: []Finding{}, Tables: []MappedTable{}}, byTopic: subjectsByTopic(tree)}
	for _, e := range res.Errors {
		c.out.Findings = append(c.out.Findings, Finding{Span: located.Span{File: e.File, Line: e.Line, Column: e.Column}, Severity: SevError, Rule: RuleParse, Message: e.Message})
	}
	sinks := map[string]bool{}
	for _, st := range res.Statements {
		sinks[st.Sink] = true
	}
	for _, d := range a.Defs() {
		c.table(d, sinks[d.Name.String()])
	}
	if job != "" && len(res.Errors) == 0 {
		decls, _ := Plan(res, tree, job)
		for _, d := range decls {
			for _, line := range Diff(d) {
				c.out.Findings = append(c.out.Findings, Finding{Span: located.Span{File: d.File, Line: 1, Column: 1}, Severity: SevError, Rule: RuleConsumerFile, Subject: d.Subject,
					Message: strings.TrimPrefix(line, d.File+": ") + " Run 'contractbot lineage sync' to update it."})
			}
		}
	}
	slices.SortStableFunc(c.out.Findings, func(x, y Finding) int {
		return located.Compare(x.Span, y.Span)
	})
	return c.out
}

type sqlChecker struct {
	tree    *contract.Tree
	out     *SQLCheck
	byTopic map[string]*contract.Subject
}

// tableCheck is one table under check.
type tableCheck struct {
	*sqlChecker
	def     flinksql.TableDef
	subject *contract.Subject
	fam     string // the value format's family
	sink    bool
	legacy  bool // Avro timestamps: TIMESTAMP and TIMESTAMP_LTZ both map to timestamp-*
}

func (t *tableCheck) add(pos flinksql.Pos, sev, rule, format string, args ...any) {
	t.out.Findings = append(t.out.Findings, Finding{Span: located.Span{File: t.def.File, Line: pos.Line, Column: pos.Col}, Severity: sev, Rule: rule,
		Table: t.def.Name.String(), Subject: t.subject.Subject, Message: fmt.Sprintf(format, args...)})
}

// subjectOf maps a Kafka table to its subject: a format's subject option
// ('value.avro-confluent.subject'), else its topic.
func (c *sqlChecker) subjectOf(d flinksql.TableDef) (*contract.Subject, string) {
	conn := strings.ToLower(d.Connector())
	if conn != "kafka" && conn != "upsert-kafka" {
		return nil, ""
	}
	for _, kv := range d.Options {
		k := strings.ToLower(kv[0])
		if strings.HasSuffix(k, ".subject") && !strings.HasPrefix(k, "key.") {
			if s := c.tree.Subject(kv[1]); s != nil {
				return s, ""
			}
			return nil, fmt.Sprintf("table %s: option '%s' names subject %q, which no contract declares; not checked.", d.Name, kv[0], kv[1])
		}
	}
	topic := d.Topic()
	switch {
	case topic == "":
		return nil, fmt.Sprintf("table %s: a Kafka table without a 'topic' option (a topic-pattern?); not checked.", d.Name)
	case strings.Contains(topic, ";"):
		return nil, fmt.Sprintf("table %s reads several topics (%s); not checked.", d.Name, topic)
	case c.byTopic[topic] == nil:
		return nil, fmt.Sprintf("table %s: no contract names its topic %q; not checked.", d.Name, topic)
	}
	return c.byTopic[topic], ""
}

func (c *sqlChecker) table(d flinksql.TableDef, sink bool) {
	s, note := c.subjectOf(d)
	if note != "" {
		c.out.Notes = append(c.out.Notes, note)
	}
	if s == nil {
		return
	}
	c.out.Tables = append(c.out.Tables, MappedTable{Table: d.Name.String(), Subject: s.Subject, Sink: sink})
	format := either(d.Option("value.format"), d.Option("format"))
	t := &tableCheck{sqlChecker: c, def: d, subject: s, fam: formatFamily(format), sink: sink,
		legacy: !strings.EqualFold(either(d.Option("value."+format+".timestamp_mapping.legacy"), d.Option(format+".timestamp_mapping.legacy")), "false")}
	if want := contractFamily(s.Format); t.fam != want {
		t.add(d.Pos, SevError, RuleFormat, "table %s reads %s with format '%s', but the contract's schema is %s: write 'value.format' = '%s'.",
			d.Name, s.Subject, format, s.Format, map[string]string{"avro": "avro-confluent", "protobuf": "protobuf", "json": "json"}[want])
		t.fam = "" // compare names only
	}
	t.keys()
	sch, err := s.Schema()
	if err != nil {
		c.out.Notes = append(c.out.Notes, fmt.Sprintf("table %s: the schema of %s does not parse (contractbot lint says why); its columns are not checked.", d.Name, s.Subject))
		return
	}
	root := schemaRoot(sch)
	if root != nil && isChangelog(format) && root.field != nil {
		if after, ok := root.field("after"); ok && after.field != nil {
			root = after // the change envelope's row
		}
	}
	keyOnly := t.keyOnlyColumns()
	written := map[string]bool{}
	for _, col := range d.Columns {
		if col.Computed != nil || col.Metadata || col.Type == nil || keyOnly[col.Name] {
			continue // computed and metadata columns are no fields of the value
		}
		written[col.Name] = true
		t.column(col, root, keyOnly)
	}
	if sink && root != nil && root.fields != nil {
		for _, f := range root.fields() {
			if f.Required && !written[f.FieldOf] && !keyOnly[f.FieldOf] {
				t.add(d.Pos, SevError, RuleRequired, "sink %s never writes %s, which %s requires (no default, not nullable): add the column %s %s.",
					d.Name, f.FieldOf, s.Subject, f.FieldOf, orText(suggest(t.fam, f), "of its type"))
			}
		}
	}
}

func either(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// column checks a physical column against the schema's field of its name.
func (t *tableCheck) column(col flinksql.ColumnDef, root *sType, keyOnly map[string]bool) {
	if root == nil || root.field == nil {
		if !t.subject.HasFieldPath(col.Name) {
			t.notInSchema(col.Pos, col.Name, keyOnly)
		}
		return
	}
	st, ok := root.field(col.Name)
	if !ok {
		t.notInSchema(col.Pos, col.Name, keyOnly)
		return
	}
	t.match(col.Type, st, col.Name, slices.Contains(t.def.PrimaryKey, col.Name))
}

func (t *tableCheck) notInSchema(pos flinksql.Pos, path string, keyOnly map[string]bool) {
	var top []string
	for _, p := range t.subject.FieldPaths() {
		if !strings.Contains(p, ".") && len(top) < maxSuggestedFields {
			top = append(top, p)
		}
	}
	hint := "declare it as METADATA (Kafka's timestamp, headers, ...) or computed (AS ...) if it is not a field, or remove it"
	if t.isKeyColumn(path) {
		hint = "it is a key column: set 'value.fields-include' = 'EXCEPT_KEY' so that it is read from the key only"
	}
	t.add(pos, SevError, RuleNotInSchema, "column %s: %s's schema has no field %s (its fields: %s); %s.",
		path, t.subject.Subject, path, strings.Join(top, ", "), hint)
}

// match checks a Flink type against the schema type at path, recursing into ROW
// fields, array elements and map values.
func (t *tableCheck) match(ft *flinksql.Type, st *sType, path string, key bool) {
	if ft == nil || st == nil {
		return
	}
	base := flinkBase(ft)
	pos := ft.Pos
	switch {
	case !t.sink && ft.NotNull && st.Nullable:
		t.add(pos, SevError, RuleNotNull, "column %s is %s NOT NULL, but %s's field %s may be null: the job fails on the first null. Drop NOT NULL.",
			path, base, t.subject.Subject, path)
	case t.sink && !ft.NotNull && !key && !st.Nullable && st.Kind != "union" && t.fam == "avro" && t.def.Option("value.avro-confluent.schema") == "" && t.def.Option("avro-confluent.schema") == "":
		t.add(pos, SevWarning, RuleNullable, "sink column %s may be null, but %s's field %s is required: Flink writes it as a union with null, which the contract does not have. Declare it %s NOT NULL.",
			path, t.subject.Subject, path, ft)
	}
	rule, ok := typeRules[t.fam][st.Kind]
	if !ok {
		return // a union, a format without types: nothing to compare
	}
	switch {
	case slices.Contains(rule.exact, base), !t.sink && slices.Contains(rule.read, base), t.sink && slices.Contains(rule.write, base):
	case slices.Contains(rule.narrower, base):
		t.add(pos, SevError, RuleNarrower, "column %s is %s, narrower than %s's %s (%s): values would be cut. Write %s.",
			path, base, t.subject.Subject, path, st.Kind, suggest(t.fam, st))
		return
	default:
		t.add(pos, SevError, RuleType, "column %s is %s, but %s's field %s is %s, which %s reads as %s. Write %s.",
			path, ft, t.subject.Subject, path, st.Kind, t.fam, orWords(rule.exact), suggest(t.fam, st))
		return
	}
	switch {
	case base == "DECIMAL" && st.Kind == "decimal" && len(ft.Params) == 2:
		if ft.Params[0] != fmt.Sprint(st.Precision) || ft.Params[1] != fmt.Sprint(st.Scale) {
			t.add(pos, SevError, RuleType, "column %s is %s, but %s's field %s is decimal(%d, %d). Write %s.",
				path, ft, t.subject.Subject, path, st.Precision, st.Scale, suggest(t.fam, st))
		}
	case base == "TIMESTAMP" && !t.legacy && strings.HasPrefix(st.Kind, "timestamp-"):
		t.add(pos, SevError, RuleType, "column %s is TIMESTAMP, but %s's field %s is %s, which Avro's non-legacy timestamp mapping reads as TIMESTAMP_LTZ. Write %s.",
			path, t.subject.Subject, path, st.Kind, suggest(t.fam, st))
	case base == "ROW" && st.field != nil:
		for _, f := range ft.Fields {
			child, ok := st.field(f.Name)
			if !ok {
				t.add(f.Pos, SevError, RuleNotInSchema, "ROW field %s.%s: %s's schema has no field %s.%s; remove it or correct its name.",
					path, f.Name, t.subject.Subject, path, f.Name)
				continue
			}
			t.match(f.Type, child, path+"."+f.Name, false)
		}
	case (base == "ARRAY" || base == "MULTISET") && st.elem != nil:
		t.match(ft.Elem, st.elem(), path, false)
	case base == "MAP" && st.elem != nil:
		t.match(ft.Elem, st.elem(), path, false)
	}
}

func orWords(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// keyFields are the columns the Kafka key is made of: 'key.fields', or the PRIMARY
// KEY of an upsert-kafka table.
func (t *tableCheck) keyFields() []string {
	if kf := t.def.Option("key.fields"); kf != "" {
		var out []string
		for _, f := range strings.Split(kf, ";") {
			out = append(out, strings.TrimSpace(f))
		}
		return out
	}
	if strings.EqualFold(t.def.Connector(), "upsert-kafka") {
		return t.def.PrimaryKey
	}
	return nil
}

func (t *tableCheck) isKeyColumn(name string) bool { return slices.Contains(t.keyFields(), name) }

// keyOnlyColumns are the key columns that are not in the value
// ('value.fields-include' = 'EXCEPT_KEY').
func (t *tableCheck) keyOnlyColumns() map[string]bool {
	out := map[string]bool{}
	if strings.EqualFold(t.def.Option("value.fields-include"), "EXCEPT_KEY") {
		for _, k := range t.keyFields() {
			out[k] = true
		}
	}
	return out
}

// keys checks 'key.fields' and PRIMARY KEY against the contract's business key.
func (t *tableCheck) keys() {
	k := t.subject.Keys
	if k == nil || len(k.Business) == 0 {
		return
	}
	business := strings.Join(k.Business, ", ")
	prefix := t.def.Option("key.fields-prefix")
	if kf := t.def.Option("key.fields"); kf != "" {
		var names []string
		for _, f := range strings.Split(kf, ";") {
			names = append(names, strings.TrimPrefix(strings.TrimSpace(f), prefix))
		}
		if !sameSet(names, k.Business) {
			t.add(t.def.Pos, SevError, RuleKeyFields, "table %s: 'key.fields' = '%s' is not %s's business key (%s): write 'key.fields' = '%s'.",
				t.def.Name, kf, t.subject.Subject, business, prefix+strings.Join(k.Business, ";"+prefix))
		}
	}
	switch {
	case len(t.def.PrimaryKey) > 0 && !sameSet(t.def.PrimaryKey, k.Business):
		t.add(t.def.KeyPos, SevError, RulePrimaryKey, "table %s: PRIMARY KEY (%s) is not %s's business key (%s): write PRIMARY KEY (%s) NOT ENFORCED.",
			t.def.Name, strings.Join(t.def.PrimaryKey, ", "), t.subject.Subject, business, business)
	case len(t.def.PrimaryKey) == 0 && strings.EqualFold(t.def.Connector(), "upsert-kafka"):
		t.add(t.def.Pos, SevError, RulePrimaryKey, "table %s: an upsert-kafka table needs a PRIMARY KEY, and %s's business key is (%s): write PRIMARY KEY (%s) NOT ENFORCED.",
			t.def.Name, t.subject.Subject, business, business)
	}
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}
