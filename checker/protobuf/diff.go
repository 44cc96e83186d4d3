package protobuf

import (
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractbot/contractbot/checker"
)

// Diff lists the field-level changes from old to next in the record message, keyed by
// dotted field path (nested messages by field name, `items.sku`; map values and oneofs
// transparent). Fields are matched by number; a field whose name moved to another
// number is reported as renumbered.
//
// Each pair of messages is compared once, however many paths reach it; its changes
// are then listed under every path, up to checker.MaxChanges in all. Past that, one
// change of kind checker.ChangesCut, on the record message, counts the rest and
// carries their worst effect with the whole subject as its path, so every consumer
// counts as reading them.
func Diff(old, next *Schema) []checker.Change {
	if old == nil || next == nil || old.record == nil || next.record == nil {
		return nil
	}
	d := &differ{old: old, next: next, onStack: map[protoreflect.FullName]bool{}, memo: map[[2]protoreflect.FullName]*diffEntry{}}
	root := d.messages(old.record, next.record)
	l := &lister{budget: checker.MaxChanges}
	l.emit(root, "", "")
	if l.omitted > 0 {
		p := next.locate(next.record)
		l.out = append(l.out, checker.Change{Kind: checker.ChangesCut, Path: checker.WholeSubject, Effect: l.worst,
			New: fmt.Sprint(l.omitted), File: p.file, Line: p.line, Column: p.col,
			Message: fmt.Sprintf("%d more field changes are not listed: the list stops at %d (message %s is reached through many paths, and each path lists its changes); every consumer of the subject is counted as reading them.",
				l.omitted, checker.MaxChanges, next.record.FullName())})
	}
	sort.SliceStable(l.out, func(i, j int) bool {
		if l.out[i].Path != l.out[j].Path {
			return l.out[i].Path < l.out[j].Path
		}
		return l.out[i].Kind < l.out[j].Kind
	})
	return l.out
}

// Paths inside a diffEntry are relative to the pair of messages: oldMark and newMark
// stand for the old and the new path of the field that holds the pair, and are
// replaced when the entry is listed under a path.
const (
	oldMark = "\x01"
	newMark = "\x02"
)

type differ struct {
	old, next *Schema
	onStack   map[protoreflect.FullName]bool
	memo      map[[2]protoreflect.FullName]*diffEntry
	cur       *diffEntry
}

// diffEntry is what changed between one pair of messages: its own fields' changes and
// the nested pairs, each compared once.
type diffEntry struct {
	own      []checker.Change
	children []diffChild
	// total counts the changes under the pair, along every path (saturating); worst
	// is their worst effect.
	total int
	worst checker.Effect
}

// diffChild is a nested pair reached through a field, named as before and after.
type diffChild struct {
	oldName, newName string
	entry            *diffEntry
}

const saturated = 1 << 62

func (e *diffEntry) count(n int, eff checker.Effect) {
	e.total = min(e.total+n, saturated)
	if eff.Rank() > e.worst.Rank() || e.worst == "" {
		e.worst = eff
	}
}

func join(prefix string, name protoreflect.Name) string {
	if prefix == "" {
		return string(name)
	}
	return prefix + "." + string(name)
}

// add records a change located at the new field, or at the old one when there is no
// new one.
func (d *differ) add(c checker.Change, oldFd, newFd protoreflect.Descriptor) {
	var p pos
	if newFd != nil {
		p = d.next.locate(newFd)
	} else if oldFd != nil {
		p = d.old.locate(oldFd)
	}
	c.File, c.Line, c.Column = p.file, p.line, p.col
	d.cur.own = append(d.cur.own, c)
	d.cur.count(1, c.Effect)
}

// messages compares a pair of messages once; nil for a message already being compared
// further up (a recursive type: it stops there).
func (d *differ) messages(om, nm protoreflect.MessageDescriptor) *diffEntry {
	key := [2]protoreflect.FullName{om.FullName(), nm.FullName()}
	if e, ok := d.memo[key]; ok {
		return e
	}
	if d.onStack[om.FullName()] {
		return nil
	}
	d.onStack[om.FullName()] = true
	defer delete(d.onStack, om.FullName())
	e := &diffEntry{}
	outer := d.cur
	d.cur = e
	defer func() { d.cur = outer }()

	ofs, nfs := om.Fields(), nm.Fields()
	oix, nix := indexFields(ofs), indexFields(nfs)
	for i := 0; i < ofs.Len(); i++ {
		of := ofs.Get(i)
		oldPath := oldMark + string(of.Name())
		nf := nix.ByNumber(of.Number())
		if nf == nil {
			if moved := nix.ByName(of.Name()); moved != nil {
				d.add(checker.Change{Kind: checker.FieldRenumbered, Path: newMark + string(moved.Name()), OldPath: oldPath,
					Old: fmt.Sprint(of.Number()), New: fmt.Sprint(moved.Number()), Effect: checker.Breaks,
					Message: fmt.Sprintf("field %q moved from number %d to %d; readers of either version lose it. Keep the number.", of.Name(), of.Number(), moved.Number())}, of, moved)
				continue
			}
			d.add(checker.Change{Kind: checker.FieldRemoved, Path: oldPath, Old: typeName(of), Effect: checker.Breaks,
				Message: fmt.Sprintf("field \"%s\" (number %d) was removed; readers of it get nothing.", oldPath, of.Number())}, of, nil)
			continue
		}
		d.fields(of, nf, oldPath, newMark+string(nf.Name()))
	}
	for i := 0; i < nfs.Len(); i++ {
		nf := nfs.Get(i)
		if oix.ByNumber(nf.Number()) != nil {
			continue
		}
		if of := oix.ByName(nf.Name()); of != nil && nix.ByNumber(of.Number()) == nil {
			continue // reported as renumbered
		}
		path := newMark + string(nf.Name())
		d.add(checker.Change{Kind: checker.FieldAdded, Path: path, New: typeName(nf), Effect: checker.Harmless,
			Message: fmt.Sprintf("field \"%s\" (number %d) was added.", path, nf.Number())}, nil, nf)
	}
	d.memo[key] = e
	return e
}

// lister lists memoised changes under their paths, up to a budget.
type lister struct {
	budget  int
	out     []checker.Change
	omitted int
	worst   checker.Effect
}

func (l *lister) skip(n int, eff checker.Effect) {
	l.omitted = min(l.omitted+n, saturated)
	if eff.Rank() > l.worst.Rank() || l.worst == "" {
		l.worst = eff
	}
}

// emit lists e's changes with the marks replaced by the old and new paths of the
// field holding the pair ("" at the record message).
func (l *lister) emit(e *diffEntry, oldPrefix, newPrefix string) {
	if e == nil || e.total == 0 {
		return
	}
	op, np := dotted(oldPrefix), dotted(newPrefix)
	for _, c := range e.own {
		if len(l.out) >= l.budget {
			l.skip(1, c.Effect)
			continue
		}
		c.Path, c.OldPath, c.Message = unmark(c.Path, op, np), unmark(c.OldPath, op, np), unmark(c.Message, op, np)
		l.out = append(l.out, c)
	}
	for _, ch := range e.children {
		if ch.entry.total == 0 {
			continue
		}
		if len(l.out) >= l.budget {
			l.skip(ch.entry.total, ch.entry.worst)
			continue
		}
		l.emit(ch.entry, join(oldPrefix, protoreflect.Name(ch.oldName)), join(newPrefix, protoreflect.Name(ch.newName)))
	}
}

// unmark replaces the marks in s by the old and the new prefix.
func unmark(s, oldPrefix, newPrefix string) string {
	if !strings.ContainsAny(s, oldMark+newMark) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*max(len(oldPrefix), len(newPrefix)))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case oldMark[0]:
			b.WriteString(oldPrefix)
		case newMark[0]:
			b.WriteString(newPrefix)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// dotted is a prefix as it stands before a field name: "a.b." ("" at the root).
func dotted(prefix string) string {
	if prefix == "" {
		return ""
	}
	return prefix + "."
}

// fields compares one field present (by number) on both sides.
func (d *differ) fields(of, nf protoreflect.FieldDescriptor, oldPath, newPath string) {
	if of.Name() != nf.Name() {
		d.add(checker.Change{Kind: checker.FieldRenamed, Path: newPath, OldPath: oldPath, Old: string(of.Name()), New: string(nf.Name()), Effect: checker.Breaks,
			Message: fmt.Sprintf("field \"%s\" was renamed to \"%s\"; the binary encoding is unchanged but readers by name (JSON, code) break.", oldPath, newPath)}, of, nf)
	} else if of.JSONName() != nf.JSONName() {
		d.add(checker.Change{Kind: checker.JSONNameChanged, Path: newPath, Old: of.JSONName(), New: nf.JSONName(), Effect: checker.Breaks,
			Message: fmt.Sprintf("field \"%s\" changed its JSON name from %q to %q; JSON readers break.", newPath, of.JSONName(), nf.JSONName())}, of, nf)
	}
	d.types(of, nf, newPath)
	oneofMoved := oneofName(of) != oneofName(nf)
	if oc, nc := cardinalityOf(of), cardinalityOf(nf); oc != nc && !(oneofMoved && wireCardinalityGroup[oc] == wireCardinalityGroup[nc]) {
		eff := checker.Breaks
		if wireCardinalityGroup[oc] == wireCardinalityGroup[nc] || lengthDelimited(of) && lengthDelimited(nf) && oc != cardinalityRequired && nc != cardinalityRequired {
			eff = checker.ChangesMeaning
		}
		d.add(checker.Change{Kind: checker.LabelChanged, Path: newPath, Old: oc.String(), New: nc.String(), Effect: eff,
			Message: fmt.Sprintf("field \"%s\" changed from %s to %s.", newPath, oc, nc)}, of, nf)
	}
	if oo, no := oneofName(of), oneofName(nf); oo != no {
		d.add(checker.Change{Kind: checker.OneofChanged, Path: newPath, Old: oo, New: no, Effect: checker.ChangesMeaning,
			Message: fmt.Sprintf("field \"%s\" moved %s; which fields can be set together changed.", newPath, oneofMove(oo, no))}, of, nf)
	}
	if canHaveDefault(of) && canHaveDefault(nf) && of.Kind() == nf.Kind() &&
		(of.HasDefault() != nf.HasDefault() || of.HasDefault() && !defaultsEqual(defaultOf(of), defaultOf(nf))) {
		kind := checker.DefaultChanged
		switch {
		case !of.HasDefault():
			kind = checker.DefaultAdded
		case !nf.HasDefault():
			kind = checker.DefaultRemoved
		}
		d.add(checker.Change{Kind: kind, Path: newPath, Old: defaultString(of), New: defaultString(nf), Effect: checker.ChangesMeaning,
			Message: fmt.Sprintf("field \"%s\" changed its default from %s to %s; readers see another value when it is absent.", newPath, defaultString(of), defaultString(nf))}, of, nf)
	}
	if oc, nc := d.old.comment(of), d.next.comment(nf); oc != nc {
		d.add(checker.Change{Kind: checker.DocChanged, Path: newPath, Old: oc, New: nc, Effect: checker.Harmless,
			Message: fmt.Sprintf("the comment on field \"%s\" changed.", newPath)}, of, nf)
	}
	if om, nm := valueMessage(of), valueMessage(nf); om != nil && nm != nil && (om.FullName() == nm.FullName() || localName(om) == localName(nm)) {
		if sub := d.messages(om, nm); sub != nil {
			d.cur.children = append(d.cur.children, diffChild{oldName: string(of.Name()), newName: string(nf.Name()), entry: sub})
			d.cur.count(sub.total, sub.worst)
		}
	}
}

// types reports a change of the field's type (the map value's for maps).
func (d *differ) types(of, nf protoreflect.FieldDescriptor, path string) {
	ot, nt := typeName(of), typeName(nf)
	if ot == nt {
		if oe, ne := valueEnum(of), valueEnum(nf); oe != nil && ne != nil {
			d.enumValues(oe, ne, of, nf, path)
		}
		return
	}
	eff := checker.Breaks
	kind := checker.TypeChanged
	ok, nk := valueKind(of), valueKind(nf)
	switch {
	case ok == protoreflect.EnumKind && nk == protoreflect.EnumKind:
		if oe, ne := valueEnum(of), valueEnum(nf); oe.Name() == ne.Name() && enumIsSubset(oe, ne) {
			eff = checker.ChangesMeaning
		}
	case ok == protoreflect.MessageKind && nk == protoreflect.MessageKind:
		if localName(valueMessage(of)) == localName(valueMessage(nf)) {
			eff = checker.ChangesMeaning // same message moved to another package
		}
	case of.IsMap() != nf.IsMap():
	case wireTypeGroup[ok] == wireTypeGroup[nk] || ok == protoreflect.StringKind && nk == protoreflect.BytesKind:
		eff = checker.ChangesMeaning
		if widens(ok, nk) {
			kind = checker.TypePromoted
		}
	}
	verb := "changed type"
	if eff != checker.Breaks {
		verb = "changed type compatibly on the wire"
	}
	d.add(checker.Change{Kind: kind, Path: path, Old: ot, New: nt, Effect: eff,
		Message: fmt.Sprintf("field \"%s\" %s from %s to %s.", path, verb, ot, nt)}, of, nf)
}

func (d *differ) enumValues(oe, ne protoreflect.EnumDescriptor, of, nf protoreflect.FieldDescriptor, path string) {
	ov, nv := valuesByNumber(oe), valuesByNumber(ne)
	var added, removed, renamed []string
	for _, n := range sortedKeys(nv) {
		if _, ok := ov[n]; !ok {
			added = append(added, string(nv[n][0].Name()))
		}
	}
	for _, n := range sortedKeys(ov) {
		cur, ok := nv[n]
		switch {
		case !ok:
			removed = append(removed, string(ov[n][0].Name()))
		case ov[n][0].Name() != cur[0].Name():
			renamed = append(renamed, fmt.Sprintf("%s->%s", ov[n][0].Name(), cur[0].Name()))
		}
	}
	if len(added) > 0 {
		d.add(checker.Change{Kind: checker.EnumSymbolsAdded, Path: path, New: strings.Join(added, ","), Effect: checker.ChangesMeaning,
			Message: fmt.Sprintf("enum %s of field \"%s\" gained values %s; readers may see values they do not know.", ne.Name(), path, strings.Join(added, ", "))}, of, nf)
	}
	if len(removed) > 0 {
		d.add(checker.Change{Kind: checker.EnumSymbolsRemoved, Path: path, Old: strings.Join(removed, ","), Effect: checker.Breaks,
			Message: fmt.Sprintf("enum %s of field \"%s\" lost values %s; data holding them reads as unknown numbers.", ne.Name(), path, strings.Join(removed, ", "))}, of, nf)
	}
	if len(renamed) > 0 {
		d.add(checker.Change{Kind: checker.EnumValueRenamed, Path: path, Old: strings.Join(renamed, ","), Effect: checker.ChangesMeaning,
			Message: fmt.Sprintf("enum %s of field \"%s\" renamed values %s; the numbers are unchanged but JSON readers see other names.", ne.Name(), path, strings.Join(renamed, ", "))}, of, nf)
	}
}

// widens reports a change to a wider type of the same encoding.
func widens(o, n protoreflect.Kind) bool {
	switch o {
	case protoreflect.Int32Kind:
		return n == protoreflect.Int64Kind
	case protoreflect.Uint32Kind:
		return n == protoreflect.Uint64Kind || n == protoreflect.Int64Kind
	case protoreflect.Sint32Kind:
		return n == protoreflect.Sint64Kind
	case protoreflect.BoolKind:
		return n != protoreflect.BoolKind
	}
	return false
}

func lengthDelimited(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return !fd.IsMap()
	}
	return false
}

func oneofName(fd protoreflect.FieldDescriptor) string {
	if od := realOneof(fd); od != nil {
		return string(od.Name())
	}
	return ""
}

func oneofMove(o, n string) string {
	switch {
	case o == "":
		return fmt.Sprintf("into oneof %q", n)
	case n == "":
		return fmt.Sprintf("out of oneof %q", o)
	}
	return fmt.Sprintf("from oneof %q to oneof %q", o, n)
}

func valueKind(fd protoreflect.FieldDescriptor) protoreflect.Kind {
	if fd.IsMap() {
		return fd.MapValue().Kind()
	}
	if fd.Kind() == protoreflect.GroupKind {
		return protoreflect.MessageKind
	}
	return fd.Kind()
}

func valueEnum(fd protoreflect.FieldDescriptor) protoreflect.EnumDescriptor {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	return fd.Enum()
}

// typeName renders a field's type as written: `int32`, `shop.Item`, `map<string, int64>`.
func typeName(fd protoreflect.FieldDescriptor) string {
	if fd.IsMap() {
		return fmt.Sprintf("map<%s, %s>", typeName(fd.MapKey()), typeName(fd.MapValue()))
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return string(fd.Message().FullName())
	case protoreflect.EnumKind:
		return string(fd.Enum().FullName())
	}
	return fd.Kind().String()
}

func defaultString(fd protoreflect.FieldDescriptor) string {
	if !fd.HasDefault() {
		return "(none)"
	}
	return fmt.Sprintf("%v", defaultOf(fd))
}

// comment returns the comments attached to a descriptor, trimmed.
func (s *Schema) comment(d protoreflect.Descriptor) string {
	f := d.ParentFile()
	if f == nil {
		return ""
	}
	loc := f.SourceLocations().ByDescriptor(d)
	return strings.TrimSpace(loc.LeadingComments + "\n" + loc.TrailingComments)
}
