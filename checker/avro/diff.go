package avro

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// Diff lists the field-level changes from old to next, keyed by the dotted field path
// consumers use in `reads`: fields added, removed, renamed (through an alias), moved to
// another nesting level, and, for fields in both, changes of type, default, enum
// symbols, fixed size, logical type, nullability, doc and aliases. Each change has an
// Effect for a consumer reading the field and a position in next (old for removals).
//
// Only the fields listed (checker.MaxFieldPaths per schema) are compared. When either
// list is cut, one more change of kind checker.ChangesCut, at the field the list
// stopped before, says so; its path is the whole subject and its effect breaking,
// since what changed past the list is not known.
func Diff(old, next *Schema) []checker.Change {
	if old == nil || next == nil {
		return nil
	}
	d := &differ{old: old, next: next, newToOld: map[string]string{}, oldMatched: map[string]bool{}}
	d.match()
	d.moves()
	d.leftovers()
	if cut, doc := next.cut, next; cut != nil || old.cut != nil {
		if cut == nil {
			cut, doc = old.cut, old
		}
		d.add(checker.ChangesCut, checker.WholeSubject, "", "", "", checker.Breaks, doc, cut.ptr, fmt.Sprintf(
			"the field changes were compared for the first %d field paths only (the list stops before %s): record %s is used by more than one field, level after level. Every consumer of the subject is counted as reading a breaking change; check the rest by hand, or stop reusing records at every level.",
			checker.MaxFieldPaths, cut.path, cut.record.FullName()))
	}
	sort.SliceStable(d.out, func(i, j int) bool {
		if d.out[i].Path != d.out[j].Path {
			return d.out[i].Path < d.out[j].Path
		}
		return d.out[i].Kind < d.out[j].Kind
	})
	return d.out
}

type differ struct {
	old, next  *Schema
	newToOld   map[string]string // matched new path -> old path
	oldMatched map[string]bool
	unmatched  []*fieldInfo // new fields without an old counterpart
	out        []checker.Change
}

// match pairs new fields with old ones, parents first: by name under the parent's old
// path, then by the new field's aliases (a rename).
func (d *differ) match() {
	byDepth := slices.Clone(d.next.fields)
	sort.SliceStable(byDepth, func(i, j int) bool { return byDepth[i].depth < byDepth[j].depth })
	for _, nf := range byDepth {
		oldParent := ""
		if i := strings.LastIndex(nf.path, "."); i >= 0 {
			parent := nf.path[:i]
			oldParent = parent
			if op, ok := d.newToOld[parent]; ok {
				oldParent = op
			}
		}
		candidates := []string{nf.name}
		candidates = append(candidates, nf.field.Aliases()...)
		matched := false
		for _, name := range candidates {
			op := joinPath(oldParent, name)
			of, ok := d.old.byPath[op]
			if !ok || d.oldMatched[op] {
				continue
			}
			d.pair(of, nf)
			matched = true
			break
		}
		if !matched {
			d.unmatched = append(d.unmatched, nf)
		}
	}
}

func (d *differ) pair(of, nf *fieldInfo) {
	d.newToOld[nf.path] = of.path
	d.oldMatched[of.path] = true
	if of.path != nf.path {
		kind, msg := checker.FieldRenamed, fmt.Sprintf("field %q was renamed to %q; consumers reading %q must switch to the new name (the alias only helps readers of the new schema).", of.path, nf.path, of.path)
		if of.name == nf.name {
			msg = fmt.Sprintf("field %q is now %q because an enclosing field was renamed; consumers reading %q must switch to the new path.", of.path, nf.path, of.path)
		}
		d.add(kind, nf.path, of.path, of.name, nf.name, checker.Breaks, d.next, nf.ptr+"/name", msg)
	}
	d.compareField(of, nf)
}

// moves pairs a removed field with an added one of the same name and type at another
// nesting level.
func (d *differ) moves() {
	if len(d.unmatched) == 0 {
		return
	}
	byName := map[string][]*fieldInfo{}
	for _, of := range d.old.fields {
		if !d.oldMatched[of.path] {
			byName[of.name] = append(byName[of.name], of)
		}
	}
	var rest []*fieldInfo
	for _, nf := range d.unmatched {
		var found *fieldInfo
		for _, of := range byName[nf.name] {
			if d.oldMatched[of.path] || of.depth == nf.depth {
				continue
			}
			if typeKey(of.field.Type()) == typeKey(nf.field.Type()) {
				found = of
				break
			}
		}
		if found == nil {
			rest = append(rest, nf)
			continue
		}
		d.newToOld[nf.path] = found.path
		d.oldMatched[found.path] = true
		d.add(checker.FieldMoved, nf.path, found.path, found.path, nf.path, checker.Breaks, d.next, nf.ptr,
			fmt.Sprintf("field %q moved to %q (another nesting level); consumers reading %q must switch to the new path.", found.path, nf.path, found.path))
		d.compareField(found, nf)
	}
	d.unmatched = rest
}

// leftovers reports fields only in next as added and fields only in old as removed.
func (d *differ) leftovers() {
	for _, nf := range d.unmatched {
		if nf.field.HasDefault() {
			d.add(checker.FieldAdded, nf.path, "", "", label(nf.field.Type()), checker.Harmless, d.next, nf.ptr,
				fmt.Sprintf("field %q was added, with a default.", nf.path))
			continue
		}
		d.add(checker.FieldAdded, nf.path, "", "", label(nf.field.Type()), checker.ChangesMeaning, d.next, nf.ptr,
			fmt.Sprintf("field %q was added without a default: data written before this version has no value for it.", nf.path))
	}
	for _, of := range d.old.fields {
		if d.oldMatched[of.path] {
			continue
		}
		d.add(checker.FieldRemoved, of.path, "", label(of.field.Type()), "", checker.Breaks, d.old, of.ptr,
			fmt.Sprintf("field %q was removed; consumers that read it lose it.", of.path))
	}
}

func (d *differ) add(kind checker.ChangeKind, path, oldPath, o, n string, effect checker.Effect, doc *Schema, ptr, msg string) {
	line, col := doc.position(ptr)
	d.out = append(d.out, checker.Change{
		Kind: kind, Path: path, OldPath: oldPath, Old: o, New: n, Effect: effect,
		File: doc.File, Line: line, Column: col, Message: msg,
	})
}

// compareField reports what changed in a field present in both versions.
func (d *differ) compareField(of, nf *fieldInfo) {
	path := nf.path
	at := func(member string) string { return nf.ptr + member }
	d.compareType(path, of.field.Type(), nf.field.Type(), at("/type"), "")

	switch {
	case !of.field.HasDefault() && nf.field.HasDefault():
		d.add(checker.DefaultAdded, path, "", "", renderValue(nf.field.Default()), checker.ChangesMeaning, d.next, at("/default"),
			fmt.Sprintf("field %q now has the default %s: readers fill it in where the data lacks the field.", path, renderValue(nf.field.Default())))
	case of.field.HasDefault() && !nf.field.HasDefault():
		d.add(checker.DefaultRemoved, path, "", renderValue(of.field.Default()), "", checker.ChangesMeaning, d.next, nf.ptr,
			fmt.Sprintf("field %q lost its default %s.", path, renderValue(of.field.Default())))
	case of.field.HasDefault() && nf.field.HasDefault() && !reflect.DeepEqual(of.field.Default(), nf.field.Default()):
		d.add(checker.DefaultChanged, path, "", renderValue(of.field.Default()), renderValue(nf.field.Default()), checker.ChangesMeaning, d.next, at("/default"),
			fmt.Sprintf("field %q changed its default from %s to %s: records without the field now read differently.", path, renderValue(of.field.Default()), renderValue(nf.field.Default())))
	}

	if od, nd := of.field.Doc(), nf.field.Doc(); od != nd {
		if ou, nu := checker.DocUnits(od), checker.DocUnits(nd); !slices.Equal(ou, nu) {
			d.add(checker.UnitChanged, path, "", strings.Join(ou, ","), strings.Join(nu, ","), checker.ChangesMeaning, d.next, at("/doc"),
				fmt.Sprintf("the doc of field %q names another unit (%s before, %s now): check that readers scale the value.", path, orNone(ou), orNone(nu)))
		} else {
			d.add(checker.DocChanged, path, "", shorten(od), shorten(nd), checker.Harmless, d.next, at("/doc"),
				fmt.Sprintf("the doc of field %q changed.", path))
		}
	}
	if oa, na := sortedCopy(of.field.Aliases()), sortedCopy(nf.field.Aliases()); !slices.Equal(oa, na) && of.path == nf.path {
		d.add(checker.AliasesChanged, path, "", strings.Join(oa, ","), strings.Join(na, ","), checker.Harmless, d.next, at("/aliases"),
			fmt.Sprintf("the aliases of field %q changed.", path))
	}
	if of.field.Order() != nf.field.Order() {
		d.add(checker.OrderChanged, path, "", string(of.field.Order()), string(nf.field.Order()), checker.Harmless, d.next, at("/order"),
			fmt.Sprintf("the sort order of field %q changed from %s to %s.", path, of.field.Order(), nf.field.Order()))
	}
}

func renderValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return shorten(string(b))
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// typeKey is a short identity of a type for matching moved fields and union branches.
func typeKey(s avro.Schema) string { return labelDepth(deref(s), 0) }

// splitNull returns whether a type admits null, and the type without its null branch.
func splitNull(s avro.Schema) (nullable bool, core []avro.Schema) {
	s = deref(s)
	u, ok := s.(*avro.UnionSchema)
	if !ok {
		return s.Type() == avro.Null, []avro.Schema{s}
	}
	for _, b := range u.Types() {
		b = deref(b)
		if b.Type() == avro.Null {
			nullable = true
			continue
		}
		core = append(core, b)
	}
	return nullable, core
}
