package checker

// Budgets: a schema is input from anyone who can open a pull request, and a few
// hundred bytes of named types reused at every level of a deep tree have more field
// paths than there are atoms in a disk. Every walk over a schema's types visits each
// type once (per pair of types, for a comparison); every listing built from such a
// walk stops at a fixed size and says so where it stops, with a location.
const (
	// MaxFieldPaths bounds a schema's listing of dotted field paths. A path past it
	// still resolves (FieldGraph.Has walks the types); only the listing is cut.
	MaxFieldPaths = 10_000
	// MaxChanges bounds the field changes an engine lists between two versions. Past
	// it one change of kind ChangesCut counts the rest.
	MaxChanges = 10_000
	// MaxFindings bounds the findings of one check (all versions and directions). Past
	// it one finding of rule RuleFindingsCut, at the first finding left out, counts the
	// rest.
	MaxFindings = 10_000
)

// RuleFindingsCut is the rule of the finding that says a list of findings stopped.
const RuleFindingsCut = "FINDINGS_CUT"

// ChangesCut is the kind of the change that closes a list cut at MaxChanges: New
// holds how many changes were left out, Effect their worst effect, and Path is
// WholeSubject, so every consumer of the subject counts as reading them.
const ChangesCut ChangeKind = "changes_cut"

// WholeSubject is the Path of a change to a subject as a whole (deleted, its format
// changed, its change list cut): it touches every reader.
const WholeSubject = ""
