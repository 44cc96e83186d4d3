package checker

// Format names a schema format as contract.yaml's `format:` writes it: "avro",
// "protobuf", "json" (JSON Schema).
type Format string

// Engine is one schema format's compatibility engine. The engines of the binary are
// listed in one table, checker/formats; everything above the checker (the loader, the
// verdict, the registry, the pages) finds a subject's engine there by its Format and
// never names a format itself. An engine is pure: it reads only the bytes it is given
// and what ParseInput.Resolve returns, and it is safe for concurrent use.
type Engine interface {
	// Describe says what the format is called and how its files look.
	Describe() Description
	// Parse parses one schema file, keeping the source position of every element.
	// Unusable input is a *InputError, or several joined with errors.Join.
	Parse(src ParseInput) (Schema, error)
	// Check tests next against earlier versions (oldest first) at level, through
	// CheckLevel. ruleSet selects a stricter rule set where the format has them (one
	// of Description.RuleSets; "" for none). The result's Changes are left empty.
	Check(previous []Version, next Schema, level Level, ruleSet string) *Result
	// Diff lists the field-level changes from old to next, located in next (in old
	// for removals).
	Diff(old, next Schema) []Change
	// Imports lists the files a schema text imports, read without parsing it (for
	// indexes over history, which must not compile every version); nil when the
	// format has no imports.
	Imports(text []byte) []string
	// Compat parses files given on the command line and checks the last against the
	// others at opts.Level, with the field changes from the last earlier file: the
	// `compat` command. The error is unusable input (*InputError values).
	Compat(previous []Input, next Input, opts Options) (*Result, error)
	// RuleTables lists the engine's rules, table by table, in the order a listing
	// shows them.
	RuleTables() []RuleTable
}

// Description is what the callers of an engine need to know about its format.
type Description struct {
	// Format is the name contract.yaml's `format:` uses.
	Format Format
	// Name is the format's name in sentences ("Avro", "Protobuf").
	Name string
	// Extensions are the endings of its schema files, the usual one first (".avsc").
	Extensions []string
	// RegistryType is the Confluent Schema Registry's schemaType: AVRO, PROTOBUF or
	// JSON.
	RegistryType string
	// RuleSets are the stricter rule sets contract.yaml may select beside the level
	// (Protobuf: WIRE, WIRE_JSON); empty when there are none.
	RuleSets []string
	// ContractKeys are the keys of contract.yaml that only this format accepts
	// (Protobuf: protobuf_rules, message).
	ContractKeys []string
	// Imports says whether a schema may import other files of the tree (Protobuf);
	// callers then read Engine.Imports and Schema.Dependencies.
	Imports bool
	// Syntax names the text's syntax family for highlighting: SyntaxJSON,
	// SyntaxProtobuf, or "" for plain text.
	Syntax string
}

// The syntax families a highlighter knows.
const (
	SyntaxJSON     = "json"
	SyntaxProtobuf = "protobuf"
)

// ParseInput is one schema file handed to Engine.Parse with what it needs to read the
// files it refers to.
type ParseInput struct {
	// Path names the file in messages; Data is its text.
	Input
	// Name is the file's name as other files of the tree refer to it (a Protobuf
	// import path, relative to contracts/); "" means Path. Engines whose files
	// refer to others name the file by Name in findings.
	Name string
	// Resolve reads another file the schema refers to, by the name the schema uses
	// for it; the error wraps fs.ErrNotExist when there is no such file. nil when no
	// other file can be read. An engine may call it from several goroutines at once
	// (the Protobuf compiler resolves a file's imports in parallel), so it must be
	// safe for concurrent use.
	Resolve func(name string) ([]byte, error)
	// Record names the record type when one file defines several (contract.yaml's
	// `message:` for Protobuf); "" means the file's first.
	Record string
}

// FileName returns Name, or Path when Name is empty.
func (s ParseInput) FileName() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Path
}

// Schema is one parsed schema of any format. Parsed schemas are shared (a loaded
// subject keeps its schema for every evaluation that asks), so nothing may change
// one after Parse returns it; a version number travels beside it, in Version.
type Schema interface {
	// Format names the engine that parsed it.
	Format() Format
	// FieldPaths returns the dotted field paths consumers name in `reads` (nested
	// fields as "parent.child"), in an order of the engine's choosing.
	FieldPaths() []string
	// Pos locates a field path in the schema text (1-based), ok=false when the path
	// does not exist or has no position.
	Pos(fieldPath string) (line, col int, ok bool)
	// FieldGraph returns the schema's fields as a graph of its types, each once:
	// FieldGraph().Has resolves a dotted path however many paths the schema has
	// (FieldPaths stops at MaxFieldPaths).
	FieldGraph() *FieldGraph
	// FieldPathsCut says where and why FieldPaths stopped at MaxFieldPaths (at the
	// first field left out); nil when it lists every path.
	FieldPathsCut() *InputError
	// Dependencies lists the other files the schema was built from, directly or
	// through others, by the names ParseInput.Resolve was asked for, sorted; nil when
	// it stands alone. A change to one of them is a change to the schema.
	Dependencies() []string
}

// Version is an earlier version of a subject's schema, as a check compares with it.
type Version struct {
	// Schema is nil when that version does not parse; checks skip it.
	Schema Schema
	// Number is its version number in the subject's history; 0 when unknown, and
	// findings against it then name its 1-based position in the list.
	Number int
}

// RuleTable is one table of an engine's rules: the rules one kind of check applies.
type RuleTable struct {
	// Name says which check the table belongs to ("Avro schema resolution").
	Name string
	// Applies says when the rules run, in one sentence.
	Applies string
	Rules   []Rule
}

// Rule is one rule of a table: the id findings carry and its one-sentence purpose.
type Rule struct {
	ID      string `json:"id"`
	Purpose string `json:"purpose"`
}
