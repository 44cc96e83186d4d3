package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/impact"
)

// The rule of a new compatibility group's migration (issue 33).
const (
	// RuleMigrationMissing: a field a reader of the old group reads changes, and no
	// migration rule of that direction names it.
	RuleMigrationMissing = "MIGRATION_RULE_MISSING"
	// RuleMigrationInvalid: a migration rule does not type-check against the schema
	// of the records it runs on (UPGRADE: the old group's; DOWNGRADE: the new one's).
	RuleMigrationInvalid = "MIGRATION_RULE_INVALID"
)

// GroupChange is a new compatibility group (a new major version): the registry checks
// it against no earlier version, and readers of the old group get its records through
// the migration rules until they move.
type GroupChange struct {
	// Key is the metadata property (the subject's compatibilityGroup config); Old is
	// the base's value ("" when the base declared no group), New the head's.
	Key string `json:"key"`
	Old string `json:"old,omitempty"`
	New string `json:"new"`
	// Readers are the subject's direct consumers and the group each reads.
	Readers []GroupReader `json:"readers"`
	// Migration lists what the migration rules lack; empty when they cover every
	// changed field the old group's readers read.
	Migration []MigrationFinding `json:"migration,omitempty"`

	// covered are the changes (by old path) that the rules migrate both ways.
	covered map[string]bool
}

// GroupReader is one direct consumer and the group value it reads.
type GroupReader struct {
	Consumer string `json:"consumer"`
	Owner    string `json:"owner"`
	Group    string `json:"group"`
	// Declared: the consumer file says so (group:); otherwise it is taken to read the
	// old group, which it has not moved from.
	Declared bool `json:"declared"`
}

// MigrationFinding is a gap in a new group's migration rules.
type MigrationFinding struct {
	Rule string `json:"rule"`
	// Field is the changed field (its old path); Direction UPGRADE or DOWNGRADE.
	Field     string   `json:"field,omitempty"`
	Direction string   `json:"direction"`
	Consumers []string `json:"consumers,omitempty"`
	// DataRule names the migration rule at fault (RuleMigrationInvalid).
	DataRule string `json:"data_rule,omitempty"`
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Message  string `json:"message"`
}

// newGroup reports whether the head's version starts a compatibility group the base's
// was not in.
func newGroup(b, h *contract.Subject) bool {
	return h.Group != nil && !b.Group.Same(h.Group)
}

// groupChange judges a new compatibility group: which readers are on which group,
// whether the migration rules cover every changed field the old group's readers read
// (checked: an UPGRADE rule type-checks against the base's schema and names the old
// field, a DOWNGRADE rule against the head's and names the new one; UPDOWN counts
// both ways), and what that makes of each reader. Consumers that already read the new
// group are not affected. Covered changes reach their readers as a change of meaning
// (records arrive migrated), uncovered ones stay breaking.
func groupChange(b, h *contract.Subject, sr *SubjectReport) {
	g := &GroupChange{Key: h.Group.Key, New: h.Group.Value, covered: map[string]bool{}}
	if b.Group != nil && b.Group.Key == h.Group.Key {
		g.Old = b.Group.Value
	}
	onNew := map[string]bool{}
	for _, c := range b.Consumers {
		group := c.Group
		if group == "" {
			group = g.Old
		}
		if c.Group != "" && c.Group == g.New {
			onNew[c.Name] = true
		}
		g.Readers = append(g.Readers, GroupReader{Consumer: c.Name, Owner: c.Owner, Group: group, Declared: c.Group != ""})
	}
	up, down, bad := migrationRules(b, h, g)
	g.Migration = bad
	readers := map[string][]string{} // old path -> old-group readers
	for _, a := range sr.Affected {
		if a.Direct && !onNew[a.Name] {
			for _, hit := range a.Hits {
				p := oldPath(hit.Change)
				if !slices.Contains(readers[p], a.Name) {
					readers[p] = append(readers[p], a.Name)
				}
			}
		}
	}
	for _, c := range sr.Changes {
		if _, ok := breakingKinds[c.Kind]; !ok || c.Path == impact.WholeSubject {
			continue
		}
		p := oldPath(c)
		okUp := slices.ContainsFunc(up, func(n ruleNames) bool { return n.names(p) })
		okDown := slices.ContainsFunc(down, func(n ruleNames) bool { return n.names(c.Path) || n.names(p) })
		if okUp && okDown {
			g.covered[p] = true
			continue
		}
		if len(readers[p]) == 0 {
			continue // nobody on the old group reads it: the removal policy judges it
		}
		for _, d := range []struct {
			ok        bool
			dir, what string
		}{{okUp, "UPGRADE", "turns a record of group " + orNone(g.Old) + " into one of group " + g.New},
			{okDown, "DOWNGRADE", "turns a record of group " + g.New + " into one of group " + orNone(g.Old)}} {
			if d.ok {
				continue
			}
			g.Migration = append(g.Migration, MigrationFinding{
				Rule: RuleMigrationMissing, Field: p, Direction: d.dir, Consumers: readers[p], File: h.ContractPath(),
				Line: h.Group.Pos.Line, Column: h.Group.Pos.Column,
				Message: fmt.Sprintf("field %s %s in group %s, and %s read it on group %s, but no %s rule (one that %s) names it. Add a %s or UPDOWN migration rule to %s whose expression reads or writes %s, or keep the field.",
					p, changeVerb(c), g.New, strings.Join(readers[p], ", "), orNone(g.Old), d.dir, d.what, d.dir, h.ContractPath(), p),
			})
		}
	}
	kept := sr.Affected[:0]
	for _, a := range sr.Affected {
		if onNew[a.Name] {
			continue
		}
		a.Effect = checker.Harmless
		for i, hit := range a.Hits {
			if g.covered[oldPath(hit.Change)] && hit.Effect == checker.Breaks {
				a.Hits[i].Effect = checker.ChangesMeaning
			}
			if a.Hits[i].Effect.Rank() > a.Effect.Rank() {
				a.Effect = a.Hits[i].Effect
			}
		}
		kept = append(kept, a)
	}
	sr.Affected = kept
	sr.Group = g
	var undeclared []string
	for _, a := range kept {
		if a.Direct && a.Consumer != nil && a.Consumer.Group == "" && g.Old != "" {
			undeclared = append(undeclared, a.Name)
		}
	}
	if len(undeclared) > 0 {
		// After the merge the tree holds group New's schema: a reader staying on the
		// old group says so, or lint checks its reads against the new schema.
		sr.Notes = append(sr.Notes, fmt.Sprintf("%s read changed fields on group %s without declaring it: until they move, each consumer file should say group: %q, or lint checks its reads against group %s's schema once this merges",
			strings.Join(undeclared, ", "), g.Old, g.Old, g.New))
	}
	sr.Notes = append(sr.Notes, fmt.Sprintf("new compatibility group %s=%s (was %s): the registry checks it against no earlier version, as Confluent's compatibilityGroup does; publish sets the subject's compatibilityGroup to %s", g.Key, g.New, orNone(g.Old), g.Key))
	sr.Governance = append(sr.Governance, fmt.Sprintf("a new major version (%s %s -> %s): readers on group %s get its records through the migration rules until they move to group %s (use.latest.with.metadata %s=%s)", g.Key, orNone(g.Old), g.New, orNone(g.Old), g.New, g.Key, g.New))
	sr.governs = append(sr.governs, "group:"+g.Key+":"+g.Old+"->"+g.New) // what sign-off fingerprints hash
}

// ruleNames is what one migration rule names: the fields its expression reads and
// its string literals (a CEL_FIELD guard's name == "amount").
type ruleNames struct {
	fields, literals []string
}

func (n ruleNames) names(path string) bool {
	leaf := path[strings.LastIndexByte(path, '.')+1:]
	return slices.ContainsFunc(n.fields, func(f string) bool { return f == path || strings.HasPrefix(path, f+".") }) ||
		slices.Contains(n.literals, path) || slices.Contains(n.literals, leaf)
}

// migrationRules type-checks the head's migration rules against the schema of the
// records they run on and returns what the valid ones name, per direction, and a
// finding for each that does not check.
func migrationRules(b, h *contract.Subject, g *GroupChange) (up, down []ruleNames, bad []MigrationFinding) {
	for _, r := range h.Rules {
		if !r.Migration() || r.Disabled {
			continue
		}
		for _, d := range []struct {
			mode   string
			s      *contract.Subject
			group  string
			target *[]ruleNames
		}{{"UPGRADE", b, orNone(g.Old), &up}, {"DOWNGRADE", h, g.New, &down}} {
			if !r.MigrationRule(d.mode) {
				continue
			}
			fields, probs, ok := d.s.CheckRule(r)
			if !ok {
				continue
			}
			if len(probs) > 0 {
				bad = append(bad, MigrationFinding{
					Rule: RuleMigrationInvalid, Direction: d.mode, DataRule: r.Name, File: h.ContractPath(), Line: r.Pos.Line, Column: r.Pos.Column,
					Message: fmt.Sprintf("migration rule %q runs %s on records of group %s (%s), but does not type-check against that schema: %s Correct its expression.", r.Name, d.mode, d.group, d.s.SchemaFile, probs[0].Message),
				})
				continue
			}
			*d.target = append(*d.target, ruleNames{fields: fields, literals: r.Literals()})
		}
	}
	return up, down, bad
}

// oldPath is the path of a changed field in the old schema.
func oldPath(c checker.Change) string {
	if c.OldPath != "" {
		return c.OldPath
	}
	return c.Path
}

func changeVerb(c checker.Change) string {
	switch c.Kind {
	case checker.FieldRenamed, checker.FieldMoved:
		return "is " + string(c.Kind) + " to " + c.Path
	case checker.TypeChanged:
		return "changes its type from " + c.Old + " to " + c.New
	}
	return "is " + string(c.Kind)
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// groupReaders lists the readers and their groups: " gmv-dashboard (analytics) on 1,
// doris-gmv-1min (data-warehouse) on 2 (declared)".
func groupReaders(g *GroupChange) string {
	if len(g.Readers) == 0 {
		return " none"
	}
	parts := make([]string, 0, len(g.Readers))
	for _, r := range g.Readers {
		p := fmt.Sprintf("%s (%s) on %s", r.Consumer, r.Owner, orNone(r.Group))
		if r.Declared {
			p += " (declared)"
		}
		parts = append(parts, p)
	}
	return " " + strings.Join(parts, ", ")
}
