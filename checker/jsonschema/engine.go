package jsonschema

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/jsontext"
	"github.com/contractbot/contractbot/checker/located"
)

// Format is the name contract.yaml uses for JSON Schema subjects.
const Format checker.Format = "json"

// Engine is the JSON Schema engine behind checker.Engine; the zero value is ready to
// use.
type Engine struct{}

var _ checker.Engine = Engine{}

// Describe says what a JSON Schema file looks like.
func (Engine) Describe() checker.Description {
	return checker.Description{
		Format:       Format,
		Name:         "JSON Schema",
		Extensions:   []string{".json"},
		RegistryType: "JSON",
		Imports:      true,
		Syntax:       checker.SyntaxJSON,
	}
}

// Parse parses one JSON Schema and the files its $ref values name (see Parse).
func (Engine) Parse(src checker.ParseInput) (checker.Schema, error) {
	s, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Check runs the shared level loop with the registry's JSON Schema differences: a
// direction fails on every difference the registry does not count compatible. JSON
// Schema has no rule sets beside the level: ruleSet is ignored.
func (Engine) Check(previous []checker.Version, next checker.Schema, level checker.Level, _ string) *checker.Result {
	n, ok := next.(*Schema)
	if !ok || n == nil {
		return &checker.Result{Compatible: true, Level: level}
	}
	return checker.CheckLevel(level, previous, n, checker.Pairwise{Compare: compareWith(n)})
}

// Check tests next against earlier versions (oldest first) at level; nil entries are
// skipped.
func Check(previous []*Schema, next *Schema, level checker.Level) *checker.Result {
	vs := make([]checker.Version, len(previous))
	for i, s := range previous {
		if s != nil {
			vs[i].Schema = s
		}
	}
	return Engine{}.Check(vs, next, level, "")
}

// compareWith is the engine's step of the level loop. Backward: the earlier version
// is the registry's original and next its update; forward: the other way round.
// Findings are located in next.
func compareWith(next *Schema) func(prev checker.Schema, dir checker.Direction, against int) []checker.Finding {
	return func(prev checker.Schema, dir checker.Direction, against int) []checker.Finding {
		old, ok := prev.(*Schema)
		if !ok {
			return nil
		}
		orig, upd := old.root, next.root
		if dir == checker.OldReadsNew {
			orig, upd = next.root, old.root
		}
		var out []checker.Finding
		for _, d := range differences(orig, upd) {
			if compatibleChange(d.typ) {
				continue
			}
			out = append(out, finding(d, dir, against))
		}
		return out
	}
}

// finding turns an incompatible difference into a Finding located in the new schema.
func finding(d difference, dir checker.Direction, against int) checker.Finding {
	at, other := d.upd, d.orig
	if dir == checker.OldReadsNew {
		at, other = d.orig, d.upd
	}
	if at == nil {
		at = other
	}
	ptr := at.ptr
	switch {
	case d.key != "" && exists(at, ptr+"/"+d.key):
		ptr += "/" + d.key
	case at.kind == kObject && strings.Contains(d.path, "/properties/") && exists(at, ptr+"/properties"):
		// A property the new schema lacks: point at the object's properties.
		ptr += "/properties"
	}
	line, col := at.doc.position(ptr)
	return checker.Finding{
		Rule: d.typ, Path: d.path, Pointer: ptr, Span: located.Span{File: at.doc.file, Line: line, Column: col},
		Against: against, Direction: dir, Message: findingMessage(d, dir, against),
	}
}

// hints say what to do about the most common findings; the rest get the general one.
var hints = map[string]string{
	OptionalPropertyAddedToOpenContentModel:   "Close the object (additionalProperties: false) in a version before adding properties, or use a FORWARD level if producers upgrade first.",
	RequiredPropertyAddedToOpenContentModel:   "Make the property optional and close the object first, or use a FORWARD level if producers upgrade first.",
	RequiredPropertyAddedToUnopenContentModel: "Make the property optional, or give it a default.",
	RequiredAttributeAdded:                    "Keep the property optional, or give it a default.",
	PropertyRemovedFromClosedContentModel:     "Keep the property, or open the object in an earlier version.",
	TypeChanged:                               "Keep the type, or add a new property with the new type and retire the old one later.",
	EnumArrayNarrowed:                         "Keep the values until no data carries them.",
}

func exists(n *node, ptr string) bool {
	_, _, ok := jsontext.ResolvePointer(n.doc.text, ptr)
	return ok
}

// findingMessage is the sentence of a finding: what the registry found, where, who
// cannot read what, and what to do.
func findingMessage(d difference, dir checker.Direction, against int) string {
	what := d.typ
	if r := ruleByID[d.typ]; r != nil {
		what = r.purpose
	}
	who := fmt.Sprintf("consumers on the new schema cannot read every message written with version %d", against)
	if dir == checker.OldReadsNew {
		who = fmt.Sprintf("consumers still on version %d cannot read every message written with the new schema", against)
	}
	if dir == checker.OldReadsNew && (d.typ == OptionalPropertyAddedToOpenContentModel || d.typ == RequiredPropertyAddedToOpenContentModel) {
		// Forward, the registry compares the new schema (original) with the earlier
		// one (update): a property the earlier version declares is gone from the new.
		name := d.path[strings.LastIndex(d.path, "/")+1:]
		return fmt.Sprintf("at %s: the new schema no longer declares %q in an open object, so new messages may hold %q with any value, and consumers still on version %d, which declares it, may refuse them. Keep the property in the new schema (deprecated) until its readers have moved, or plan the change with a calendar entry and the consumers' sign-off.",
			d.path, name, name, against)
	}
	if dir == checker.OldReadsNew {
		what = "(the earlier version compared as the registry's update of the new one) " + what
	}
	hint, ok := hints[d.typ]
	if !ok {
		hint = "Undo the change, or plan it with a calendar entry and the consumers' sign-off."
	}
	return fmt.Sprintf("at %s: %s So %s. %s", d.path, what, who, hint)
}

// Diff lists the field changes between two JSON Schemas; nil when either is not one.
func (Engine) Diff(old, next checker.Schema) []checker.Change {
	o, ok1 := old.(*Schema)
	n, ok2 := next.(*Schema)
	if !ok1 || !ok2 {
		return nil
	}
	return Diff(o, n)
}

// refPattern finds $ref values in a text without parsing it.
var refPattern = regexp.MustCompile(`"\$ref"\s*:\s*"([^"#]+)(?:#[^"]*)?"`)

// Imports lists the other files a schema text's $ref values name (the part before
// '#', a name from contracts/), sorted; references with a scheme (https://...) are
// left out.
func (Engine) Imports(text []byte) []string {
	var out []string
	for _, m := range refPattern.FindAllSubmatch(text, -1) {
		ref := string(m[1])
		if ref == "" || containsScheme(ref) {
			continue
		}
		out = append(out, path.Clean(ref))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func containsScheme(ref string) bool {
	for i, c := range ref {
		switch c {
		case ':':
			return i > 0
		case '/', '.':
			return false
		}
	}
	return false
}

// Compat parses the inputs, checks next against previous (oldest first) at
// opts.Level, and lists the field changes from the last previous version to next. A
// $ref to another file is read from the first of opts.ImportPaths that has it, else
// from the working directory.
func (Engine) Compat(previous []checker.Input, next checker.Input, opts checker.Options) (*checker.Result, error) {
	level := opts.Level
	if level == "" {
		level = checker.Backward
	}
	var errs []error
	prev := make([]*Schema, len(previous))
	for i, in := range previous {
		s, err := Parse(fileSource(in, opts.ImportPaths))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		prev[i] = s
	}
	cur, err := Parse(fileSource(next, opts.ImportPaths))
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	res := Check(prev, cur, level)
	if len(prev) > 0 {
		res.Changes = Diff(prev[len(prev)-1], cur)
	}
	res.Sort()
	return res, nil
}

// RuleTables lists the registry's difference types, the one table of the engine.
func (Engine) RuleTables() []checker.RuleTable {
	t := checker.RuleTable{
		Name:    "JSON Schema differences (Confluent Schema Registry)",
		Applies: "At every level but NONE: for each direction the level checks, the earlier schema is compared with the later as the registry's SchemaDiff does, and every difference the registry does not count compatible is a finding.",
	}
	for _, r := range append(slices.Clone(rules), engineRules...) {
		p := r.purpose
		if r.compatible {
			p += " Compatible."
		} else {
			p += " Incompatible."
		}
		t.Rules = append(t.Rules, checker.Rule{ID: r.id, Purpose: p})
	}
	return []checker.RuleTable{t}
}

// Format names the JSON Schema format.
func (s *Schema) Format() checker.Format { return Format }

// Dependencies lists the other files the schema's $ref values reached, sorted.
func (s *Schema) Dependencies() []string { return s.deps }

// fileSource is a file given on the command line; the files its $ref values name are
// read from disk, under the first import path that has them, else as named.
func fileSource(in checker.Input, importPaths []string) checker.ParseInput {
	return checker.ParseInput{Input: in, Resolve: func(name string) ([]byte, error) {
		for _, dir := range importPaths {
			if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				return data, nil
			}
		}
		return os.ReadFile(name)
	}}
}
