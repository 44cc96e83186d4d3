package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// StateEffect is what a change does to a field a stateful job keeps in its state
// (consumer files' `state:`): whether the job's state serializer can migrate the
// state it restores from a savepoint, by Flink's state schema evolution rules.
type StateEffect struct {
	Consumer   string `json:"consumer"`
	Owner      string `json:"owner"`
	Serializer string `json:"serializer"`
	// Field is the state field the change touches; Change the field change.
	Field  string             `json:"field"`
	Change checker.ChangeKind `json:"change"`
	// Migratable: the serializer migrates the state on restore; otherwise the job
	// cannot restore its savepoint (BREAKING).
	Migratable bool   `json:"migratable"`
	Why        string `json:"why"`
}

// stateKinds are the field changes that alter what a state serializer writes; docs,
// units and defaults of the wire schema do not.
var stateKinds = []checker.ChangeKind{
	checker.FieldAdded, checker.FieldRemoved, checker.FieldRenamed, checker.FieldMoved,
	checker.TypeChanged, checker.TypePromoted, checker.LogicalTypeChanged, checker.NullabilityChanged,
	checker.EnumSymbolsAdded, checker.EnumSymbolsRemoved, checker.EnumValueRenamed, checker.FixedSizeChanged,
	checker.NamespaceChanged, checker.PackageChanged, checker.CardinalityChanged, checker.UnionBranchesChange,
	checker.FieldRenumbered, checker.OneofChanged, checker.LabelChanged,
}

// stateEffects finds, for every consumer of the base's subject that keeps fields in
// state and restores it from savepoints, the changes to those fields and judges each
// by the consumer's serializer (JobStateEffects); the class rises to COMPATIBLE
// (migratable) or BREAKING (not). A job that rebuilds its state gets a note.
func stateEffects(b *contract.Subject, sr *SubjectReport) {
	for _, c := range b.Consumers {
		effects, notes := JobStateEffects(c, sr.Changes)
		sr.Notes = append(sr.Notes, notes...)
		sr.State = append(sr.State, effects...)
		for _, e := range effects {
			if e.Migratable {
				sr.Class = worst(sr.Class, Compatible)
			} else {
				sr.Class = Breaking
			}
		}
	}
}

// JobStateEffects judges a subject's field changes for one consumer that keeps fields
// of it in state: one effect per change to a state field, migratable or not by the
// consumer's serializer (Flink's state schema evolution rules). A job that rebuilds
// its state on upgrade gets a note per such change instead. A consumer without
// `state:` gets nothing. The verdict and the job's page both judge with it.
func JobStateEffects(c *contract.Consumer, changes []checker.Change) ([]StateEffect, []string) {
	st := c.State
	if st == nil || st.Serializer == "" {
		return nil, nil
	}
	var effects []StateEffect
	var notes []string
	for _, ch := range changes {
		if !slices.Contains(stateKinds, ch.Kind) {
			continue
		}
		field, ok := stateField(st.Fields, ch)
		if !ok {
			continue
		}
		if st.Savepoint == contract.SavepointRebuild {
			notes = append(notes, fmt.Sprintf("job %s (team %s) keeps %s in its state but rebuilds it from its input on upgrade: plan the replay", c.Name, c.Owner, field))
			continue
		}
		ok, why := migrates(st.Serializer, ch)
		effects = append(effects, StateEffect{Consumer: c.Name, Owner: c.Owner, Serializer: st.Serializer, Field: field, Change: ch.Kind, Migratable: ok, Why: why})
	}
	return effects, notes
}

// stateField returns the state field a change touches: the field itself, a field it
// is nested in, or a field nested in it ("*" holds every field).
func stateField(fields []string, ch checker.Change) (string, bool) {
	paths := []string{ch.Path}
	if ch.OldPath != "" {
		paths = append(paths, ch.OldPath)
	}
	for _, f := range fields {
		for _, p := range paths {
			switch {
			case f == "*":
				return p, true
			case p == f, strings.HasPrefix(p, f+"."), strings.HasPrefix(f, p+"."):
				return f, true
			}
		}
	}
	return "", false
}

// migrates says whether a serializer migrates state through a change, with the rule
// (Flink's documentation, "State Schema Evolution"): POJO state may drop and add
// fields but not change a declared type or the class's name; Avro state evolves as
// Avro's schema resolution allows, but not to another namespace; Kryo and Flink's
// Row serializer do not evolve at all; Protobuf messages are serialized through Kryo,
// where Protobuf's own rules let fields be added and removed and nothing else.
func migrates(serializer string, ch checker.Change) (bool, string) {
	switch serializer {
	case contract.SerializerPOJO:
		switch ch.Kind {
		case checker.FieldAdded:
			return true, "POJO state takes a new field, initialised to its Java default"
		case checker.FieldRemoved:
			return true, "POJO state drops a removed field (its values are lost at the next savepoint)"
		case checker.EnumSymbolsAdded:
			return true, "an enum in POJO state takes appended constants"
		case checker.FieldRenamed, checker.FieldMoved:
			return false, "POJO state matches fields by name: a renamed or moved field is a removed one and a new one, and its values are lost"
		case checker.NamespaceChanged, checker.PackageChanged:
			return false, "POJO state cannot change the class name or its namespace"
		}
		return false, "POJO state cannot change a field's declared type"
	case contract.SerializerAvro:
		if ch.Kind == checker.NamespaceChanged {
			return false, "Avro state cannot move to another namespace (the generated class is relocated)"
		}
		if ch.Effect == checker.Breaks {
			return false, "Avro state evolves only as Avro's schema resolution allows, and it does not allow this change"
		}
		return true, "Avro state migrates by Avro's schema resolution"
	case contract.SerializerProtobuf:
		if ch.Kind == checker.FieldAdded || ch.Kind == checker.FieldRemoved {
			return true, "Protobuf state (through Kryo's Protobuf serializer) reads messages with fields added or removed"
		}
		return false, "Protobuf state is serialized through Kryo, which migrates nothing but the fields Protobuf itself skips"
	case contract.SerializerKryo:
		return false, "Kryo state has no schema evolution: any change to a kept field makes the savepoint unreadable"
	case contract.SerializerRow:
		return false, "Flink's Row serializer has no schema evolution: the state of a changed row cannot be restored"
	}
	return false, "unknown serializer"
}

// stateMigrationEntry returns the head's state-migration calendar entry for a subject
// whose window is not over, or "".
func stateMigrationEntry(in Input, subject string) string {
	for _, e := range in.Head.Entries {
		if e.Kind == "state-migration" && slices.Contains(e.Subjects, subject) && e.End.After(in.Now) {
			return e.File
		}
	}
	return ""
}

// FYI is a team to tell, without asking it to sign off: the owner of indirect
// consumers a change reaches through lineage (issue 18: everyone affected hears of
// it), or of consumers that read a field the change deprecates. The bot tells each of these teams once per change on Slack (internal/bot/notify_fyi.go).
type FYI struct {
	Team string `json:"team"`
	// Consumers are the team's indirect consumers the change reaches, with the
	// subject each reads.
	Consumers []ConsumerRef `json:"consumers"`
	// Deprecated are the team's consumers that read a field the change deprecates.
	Deprecated []ConsumerRef `json:"deprecated,omitempty"`
}

// fyis lists, by team, the indirect consumers that a change breaks or changes the
// meaning for, and the consumers that read a field it deprecates, whose team does not
// sign off already.
func fyis(r *Report) []FYI {
	signing := map[string]bool{}
	for _, so := range r.SignOffs {
		signing[so.Team] = true
	}
	byTeam := map[string]*FYI{}
	var teams []string
	for _, sr := range r.Subjects {
		for _, a := range sr.Affected {
			if a.Direct || signing[a.Owner] || a.Effect.Rank() < checker.ChangesMeaning.Rank() {
				continue
			}
			f := byTeam[a.Owner]
			if f == nil {
				f = &FYI{Team: a.Owner}
				byTeam[a.Owner] = f
				teams = append(teams, a.Owner)
			}
			var fields []string
			for _, h := range a.Hits {
				if !slices.Contains(fields, h.Field) {
					fields = append(fields, h.Field)
				}
			}
			f.Consumers = append(f.Consumers, ConsumerRef{Subject: a.Subject, Consumer: a.Name, Effect: a.Effect, Fields: fields,
				Reason: fmt.Sprintf("%s changes %d hop(s) upstream", sr.Subject, a.Hops), Chains: chains(a)})
		}
	}
	for _, sr := range r.Subjects {
		for _, d := range sr.Deprecated {
			if signing[d.Team] {
				continue
			}
			f := byTeam[d.Team]
			if f == nil {
				f = &FYI{Team: d.Team, Consumers: []ConsumerRef{}}
				byTeam[d.Team] = f
				teams = append(teams, d.Team)
			}
			f.Deprecated = append(f.Deprecated, d.ConsumerRef)
		}
	}
	slices.Sort(teams)
	out := make([]FYI, 0, len(teams))
	for _, t := range teams {
		out = append(out, *byTeam[t])
	}
	return out
}
