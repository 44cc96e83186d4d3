package protobuf

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
)

// Format is the name contract.yaml uses for Protobuf subjects.
const Format checker.Format = "protobuf"

// Engine is the Protobuf engine behind checker.Engine; the zero value is ready to use.
type Engine struct{}

var _ checker.Engine = Engine{}

// Describe says what a Protobuf schema file looks like.
func (Engine) Describe() checker.Description {
	return checker.Description{
		Format:       Format,
		Name:         "Protobuf",
		Extensions:   []string{".proto"},
		RegistryType: "PROTOBUF",
		RuleSets:     []string{RulesWire, RulesWireJSON},
		ContractKeys: []string{"protobuf_rules", "message"},
		Imports:      true,
		Syntax:       checker.SyntaxProtobuf,
	}
}

// Parse compiles one file under its import path (src.Name, else src.Path), reading
// its own text from src.Data when set and its imports through src.Resolve; findings
// and errors name files by import path. src.Record names the record message.
func (Engine) Parse(src checker.ParseInput) (checker.Schema, error) {
	self := src.FileName()
	resolve := func(name string) ([]byte, error) {
		if name == self && src.Data != nil {
			return src.Data, nil
		}
		if src.Resolve == nil {
			return nil, fmt.Errorf("import %q cannot be read here: %w", name, fs.ErrNotExist)
		}
		return src.Resolve(name)
	}
	s, err := Parse(self, resolve, src.Record)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Check runs the shared level loop with the registry's Protobuf rules and, when
// ruleSet names one (WIRE, WIRE_JSON), buf's breaking rules of that category.
func (Engine) Check(previous []checker.Version, next checker.Schema, level checker.Level, ruleSet string) *checker.Result {
	n, ok := next.(*Schema)
	if !ok || n == nil {
		return &checker.Result{Compatible: true, Level: level}
	}
	return checker.CheckLevel(level, previous, n, pairwise(n, ruleSet))
}

// Diff lists the field changes between two Protobuf schemas; nil when either is not
// one.
func (Engine) Diff(old, next checker.Schema) []checker.Change {
	o, ok1 := old.(*Schema)
	n, ok2 := next.(*Schema)
	if !ok1 || !ok2 {
		return nil
	}
	return Diff(o, n)
}

var importRE = regexp.MustCompile(`(?m)^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;`)

// Imports returns the paths of the `import "..."` lines of a .proto text, in order,
// the well-known types included, without compiling it.
func (Engine) Imports(text []byte) []string {
	var out []string
	for _, m := range importRE.FindAllSubmatch(text, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// Compat checks files for the `compat` command (see Compat).
func (Engine) Compat(previous []checker.Input, next checker.Input, opts checker.Options) (*checker.Result, error) {
	return Compat(previous, next, opts)
}

// RuleTables lists the registry's rules, then buf's WIRE and WIRE_JSON categories.
func (Engine) RuleTables() []checker.RuleTable {
	tables := []checker.RuleTable{{
		Name:    "Protobuf registry compatibility",
		Applies: "At every level but NONE, in each direction the level checks, as the Confluent Schema Registry compares Protobuf schemas.",
		Rules:   RegistryRules(),
	}}
	for _, cat := range []string{RulesWire, RulesWireJSON} {
		t := checker.RuleTable{
			Name:    "buf breaking, " + cat,
			Applies: "When contract.yaml sets protobuf_rules: " + cat + " (compat --rules " + cat + "), at every level, NONE included, against each earlier version the level reaches.",
		}
		for _, id := range RuleIDs(cat) {
			t.Rules = append(t.Rules, checker.Rule{ID: id, Purpose: RulePurpose(id)})
		}
		tables = append(tables, t)
	}
	return tables
}

// Format names the Protobuf format.
func (s *Schema) Format() checker.Format { return Format }

// Dependencies lists the files of the tree the schema imports, directly or through
// other imports (not the well-known types), sorted.
func (s *Schema) Dependencies() []string {
	seen := map[string]bool{}
	var walk func(fd protoreflect.FileDescriptor)
	walk = func(fd protoreflect.FileDescriptor) {
		imps := fd.Imports()
		for i := 0; i < imps.Len(); i++ {
			p := imps.Get(i).Path()
			if isWellKnown(p) || seen[p] {
				continue
			}
			seen[p] = true
			walk(imps.Get(i).FileDescriptor)
		}
	}
	walk(s.file)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
