package avro

import (
	"github.com/contractbot/contractbot/checker"
)

// Format is the name contract.yaml uses for Avro subjects.
const Format checker.Format = "avro"

// Engine is the Avro engine behind checker.Engine; the zero value is ready to use.
type Engine struct{}

var _ checker.Engine = Engine{}

// Describe says what an Avro schema file looks like.
func (Engine) Describe() checker.Description {
	return checker.Description{
		Format:       Format,
		Name:         "Avro",
		Extensions:   []string{".avsc"},
		RegistryType: "AVRO",
		Syntax:       checker.SyntaxJSON,
	}
}

// Parse parses one Avro schema; an Avro schema refers to no other file, so only Path
// and Data are read.
func (Engine) Parse(src checker.ParseInput) (checker.Schema, error) {
	s, err := Parse(src.Input)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Check runs the shared level loop with the Avro specification's resolution rules.
// Avro has no rule sets beside the level: ruleSet is ignored.
func (Engine) Check(previous []checker.Version, next checker.Schema, level checker.Level, _ string) *checker.Result {
	n, ok := next.(*Schema)
	if !ok || n == nil {
		return &checker.Result{Compatible: true, Level: level}
	}
	return checker.CheckLevel(level, previous, n, checker.Pairwise{Compare: compare(n)})
}

// Diff lists the field changes between two Avro schemas; nil when either is not one.
func (Engine) Diff(old, next checker.Schema) []checker.Change {
	o, ok1 := old.(*Schema)
	n, ok2 := next.(*Schema)
	if !ok1 || !ok2 {
		return nil
	}
	return Diff(o, n)
}

// Imports returns nil: an Avro schema file imports nothing.
func (Engine) Imports([]byte) []string { return nil }

// Compat checks files for the `compat` command (see Compat).
func (Engine) Compat(previous []checker.Input, next checker.Input, opts checker.Options) (*checker.Result, error) {
	return Compat(previous, next, opts)
}

// RuleTables lists the resolution rules, the one table of the Avro engine.
func (Engine) RuleTables() []checker.RuleTable {
	return []checker.RuleTable{{
		Name:    "Avro schema resolution",
		Applies: "At every level but NONE, between the reader and the writer schema of each direction the level checks, as the Avro specification resolves them.",
		Rules:   Rules(),
	}}
}

// Format names the Avro format.
func (s *Schema) Format() checker.Format { return Format }

// Dependencies returns nil: an Avro schema stands alone.
func (s *Schema) Dependencies() []string { return nil }
