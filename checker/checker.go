// Package checker holds what the schema compatibility engines share: the format seam
// (Engine, Schema, Version, ParseInput, rule tables), the one level loop every engine
// runs (CheckLevel), compatibility levels, findings, field changes and the result of a
// check. The engines live in checker/avro, checker/protobuf and checker/jsonschema and
// are listed in one table, checker/formats; they are pure (no I/O beyond the bytes
// they are given and what ParseInput.Resolve returns) and report every problem they
// find, each with a location (a located.Span, the place every located message of the
// project shares: checker/located).
package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker/located"
)

// Level is a compatibility level with the Confluent Schema Registry's meaning.
type Level string

// The compatibility levels.
const (
	None               Level = "NONE"
	Backward           Level = "BACKWARD"
	BackwardTransitive Level = "BACKWARD_TRANSITIVE"
	Forward            Level = "FORWARD"
	ForwardTransitive  Level = "FORWARD_TRANSITIVE"
	Full               Level = "FULL"
	FullTransitive     Level = "FULL_TRANSITIVE"
)

// Levels lists every level, strictest last.
func Levels() []Level {
	return []Level{None, Backward, Forward, Full, BackwardTransitive, ForwardTransitive, FullTransitive}
}

// ParseLevel reads a level name, case-insensitively.
func ParseLevel(s string) (Level, error) {
	u := Level(strings.ToUpper(strings.TrimSpace(s)))
	for _, l := range Levels() {
		if l == u {
			return l, nil
		}
	}
	names := make([]string, 0, 7)
	for _, l := range Levels() {
		names = append(names, string(l))
	}
	return "", fmt.Errorf("unknown compatibility level %q: use one of %s", s, strings.Join(names, ", "))
}

// Backward reports whether the new schema must read data written with earlier ones.
func (l Level) Backward() bool {
	return l == Backward || l == BackwardTransitive || l == Full || l == FullTransitive
}

// Forward reports whether earlier schemas must read data written with the new one.
func (l Level) Forward() bool {
	return l == Forward || l == ForwardTransitive || l == Full || l == FullTransitive
}

// Transitive reports whether the check runs against every earlier version rather than
// only the latest.
func (l Level) Transitive() bool { return strings.HasSuffix(string(l), "_TRANSITIVE") }

// Strictness orders levels for governance: a change to a lower number loosens the
// contract. NONE is 0; transitive levels rank above their plain forms.
func (l Level) Strictness() int {
	switch l {
	case Backward, Forward:
		return 1
	case Full:
		return 2
	case BackwardTransitive, ForwardTransitive:
		return 3
	case FullTransitive:
		return 4
	}
	return 0
}

// Direction names which side reads which in a failed check.
type Direction string

// Directions of a check.
const (
	// NewReadsOld: a consumer on the new schema reads data written with an earlier one.
	NewReadsOld Direction = "backward"
	// OldReadsNew: a consumer on an earlier schema reads data written with the new one.
	OldReadsNew Direction = "forward"
)

// Finding is one incompatibility: the change breaks the level's promise at one place.
type Finding struct {
	// Rule is the rule id, e.g. TYPE_MISMATCH or FIELD_SCALAR_KIND_CHANGED.
	Rule string `json:"rule"`
	// Path is the dotted field path consumers use in `reads` (Avro), or the registry's
	// path (`#/Order/items/3`) for Protobuf.
	Path string `json:"path"`
	// Pointer is a JSON pointer into the schema document (Avro), empty for Protobuf.
	Pointer string `json:"pointer,omitempty"`
	// Span locates the finding in the schema text (1-based line and column).
	located.Span
	// Against is the 1-based index of the earlier version the check failed against.
	Against int `json:"against"`
	// Direction says which side could not read which.
	Direction Direction `json:"direction,omitempty"`
	// Message is a sentence a person can act on.
	Message string `json:"message"`
}

// Located is the finding as a located message: an error titled with its rule and,
// where it has one, its path (`TYPE_MISMATCH at amount`).
func (f Finding) Located() located.Message {
	title := f.Rule
	if f.Path != "" {
		title += " at " + f.Path
	}
	return located.Message{Span: f.Span, Severity: located.Error, Title: title, Message: f.Message}
}

// ChangeKind names one kind of field-level change between two versions.
type ChangeKind string

// The field change kinds shared by the engines.
const (
	FieldAdded          ChangeKind = "added"
	FieldRemoved        ChangeKind = "removed"
	FieldRenamed        ChangeKind = "renamed"
	TypeChanged         ChangeKind = "type_changed"
	TypePromoted        ChangeKind = "promoted"
	DefaultAdded        ChangeKind = "default_added"
	DefaultChanged      ChangeKind = "default_changed"
	DefaultRemoved      ChangeKind = "default_removed"
	EnumSymbolsAdded    ChangeKind = "enum_symbols_added"
	EnumSymbolsRemoved  ChangeKind = "enum_symbols_removed"
	EnumValueRenamed    ChangeKind = "enum_value_renamed"
	FixedSizeChanged    ChangeKind = "fixed_size_changed"
	LogicalTypeChanged  ChangeKind = "logical_type_changed"
	DocChanged          ChangeKind = "doc_changed"
	NullabilityChanged  ChangeKind = "nullability_changed"
	FieldMoved          ChangeKind = "moved"
	FieldRenumbered     ChangeKind = "renumbered"
	OneofChanged        ChangeKind = "oneof_changed"
	LabelChanged        ChangeKind = "label_changed"
	JSONNameChanged     ChangeKind = "json_name_changed"
	NamespaceChanged    ChangeKind = "namespace_changed"
	PackageChanged      ChangeKind = "package_changed"
	MessageAddedOrGone  ChangeKind = "message_changed"
	ReservedChanged     ChangeKind = "reserved_changed"
	AliasesChanged      ChangeKind = "aliases_changed"
	OrderChanged        ChangeKind = "order_changed"
	UnitChanged         ChangeKind = "unit_changed"
	OptionChanged       ChangeKind = "option_changed"
	CardinalityChanged  ChangeKind = "cardinality_changed"
	UnionBranchesChange ChangeKind = "union_branches_changed"
	// RangeChanged: the values a field may hold changed without its type (JSON Schema
	// maxLength, minimum, pattern, ...).
	RangeChanged ChangeKind = "range_changed"
)

// Effect says what a change means for a consumer that reads the field.
type Effect string

// Effects, from worst to harmless.
const (
	// Breaks: a reader of the field fails or silently loses it.
	Breaks Effect = "breaking"
	// ChangesMeaning: the bytes still decode, but the value's meaning or range changed
	// (a promotion, a new default, new enum symbols, another logical type or unit).
	ChangesMeaning Effect = "meaning"
	// Harmless: nothing a reader of the field must act on (docs, an added field).
	Harmless Effect = "harmless"
)

// Rank orders effects: higher is worse.
func (e Effect) Rank() int {
	switch e {
	case Breaks:
		return 2
	case ChangesMeaning:
		return 1
	}
	return 0
}

// Change is one field-level difference between the previous and the new version.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Path is the dotted field path in the new version (in the old one for removals).
	Path string `json:"path"`
	// OldPath is the path before a rename or move; empty otherwise.
	OldPath string `json:"old_path,omitempty"`
	// Old and New are short renderings of what changed ("int", "long").
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Effect is what the change means for a consumer reading Path.
	Effect Effect `json:"effect"`
	// File, Line and Column locate the change in the new schema (old for removals).
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Message describes the change in one sentence.
	Message string `json:"message"`
}

// Result is the outcome of checking a new schema against earlier versions.
type Result struct {
	Compatible bool      `json:"compatible"`
	Level      Level     `json:"level"`
	Findings   []Finding `json:"findings"`
	Changes    []Change  `json:"changes"`
}

// Sort puts findings and changes in a stable order: by line, column, rule, path.
func (r *Result) Sort() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Against < b.Against
	})
	sort.SliceStable(r.Changes, func(i, j int) bool {
		a, b := r.Changes[i], r.Changes[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Kind < b.Kind
	})
}

// Input is one schema file handed to an engine.
type Input struct {
	// Path is the name used in messages (a file path as the user gave it).
	Path string
	Data []byte
	// Canonical is Data's canonical form (Canonical) when whoever read Data already
	// computed it, so that it is not computed again; nil when unknown.
	Canonical []byte
}

// InputError is unusable input: a schema that does not parse, an unresolved import.
// It carries the place so a person can fix it.
type InputError struct {
	located.Span
	Message string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Message)
}

// Options configure a compatibility check from files (the `compat` command).
type Options struct {
	Level Level
	// Rules selects stricter rule sets where the engine has them (Protobuf: WIRE,
	// WIRE_JSON); empty for none.
	Rules string
	// ImportPaths are directories searched for imports (Protobuf), in order.
	ImportPaths []string
}
