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
func Diff(old, next *Schema) []checker.Change {
	if old == nil || next == nil || old.record == nil || next.record == nil {
		return nil
	}
	d := &differ{old: old, next: next, onStack: map[protoreflect.FullName]bool{}}
	d.messages(old.record, next.record, "", "")
	sort.SliceStable(d.out, func(i, j int) bool {
		if d.out[i].Path != d.out[j].Path {
			return d.out[i].Path < d.out[j].Path
		}
		return d.out[i].Kind < d.out[j].Kind
	})
	return d.out
}

type differ struct {
	old, next *Schema
	onStack   map[protoreflect.FullName]bool
	out       []checker.Change
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
	d.out = append(d.out, c)
}

func (d *differ) messages(om, nm protoreflect.MessageDescriptor, oldPrefix, newPrefix string) {
	if d.onStack[om.FullName()] {
		return
	}
	d.onStack[om.FullName()] = true
	defer delete(d.onStack, om.FullName())

	ofs, nfs := om.Fields(), nm.Fields()
	for i := 0; i < ofs.Len(); i++ {
		of := ofs.Get(i)
		oldPath := join(oldPrefix, of.Name())
		nf := nfs.ByNumber(of.Number())
		if nf == nil {
			if moved := nfs.ByName(of.Name()); moved != nil {
				d.add(checker.Change{Kind: checker.FieldRenumbered, Path: join(newPrefix, moved.Name()), OldPath: oldPath,
					Old: fmt.Sprint(of.Number()), New: fmt.Sprint(moved.Number()), Effect: checker.Breaks,
					Message: fmt.Sprintf("field %q moved from number %d to %d; readers of either version lose it. Keep the number.", of.Name(), of.Number(), moved.Number())}, of, moved)
				continue
			}
			d.add(checker.Change{Kind: checker.FieldRemoved, Path: oldPath, Old: typeName(of), Effect: checker.Breaks,
				Message: fmt.Sprintf("field %q (number %d) was removed; readers of it get nothing.", oldPath, of.Number())}, of, nil)
			continue
		}
		d.fields(of, nf, oldPath, join(newPrefix, nf.Name()))
	}
	for i := 0; i < nfs.Len(); i++ {
		nf := nfs.Get(i)
		if ofs.ByNumber(nf.Number()) != nil {
			continue
		}
		if of := ofs.ByName(nf.Name()); of != nil && nfs.ByNumber(of.Number()) == nil {
			continue // reported as renumbered
		}
		path := join(newPrefix, nf.Name())
		d.add(checker.Change{Kind: checker.FieldAdded, Path: path, New: typeName(nf), Effect: checker.Harmless,
			Message: fmt.Sprintf("field %q (number %d) was added.", path, nf.Number())}, nil, nf)
	}
}

// fields compares one field present (by number) on both sides.
func (d *differ) fields(of, nf protoreflect.FieldDescriptor, oldPath, newPath string) {
	if of.Name() != nf.Name() {
		d.add(checker.Change{Kind: checker.FieldRenamed, Path: newPath, OldPath: oldPath, Old: string(of.Name()), New: string(nf.Name()), Effect: checker.Breaks,
			Message: fmt.Sprintf("field %q was renamed to %q; the binary encoding is unchanged but readers by name (JSON, code) break.", oldPath, newPath)}, of, nf)
	} else if of.JSONName() != nf.JSONName() {
		d.add(checker.Change{Kind: checker.JSONNameChanged, Path: newPath, Old: of.JSONName(), New: nf.JSONName(), Effect: checker.Breaks,
			Message: fmt.Sprintf("field %q changed its JSON name from %q to %q; JSON readers break.", newPath, of.JSONName(), nf.JSONName())}, of, nf)
	}
	d.types(of, nf, newPath)
	oneofMoved := oneofName(of) != oneofName(nf)
	if oc, nc := cardinalityOf(of), cardinalityOf(nf); oc != nc && !(oneofMoved && wireCardinalityGroup[oc] == wireCardinalityGroup[nc]) {
		eff := checker.Breaks
		if wireCardinalityGroup[oc] == wireCardinalityGroup[nc] || lengthDelimited(of) && lengthDelimited(nf) && oc != cardinalityRequired && nc != cardinalityRequired {
			eff = checker.ChangesMeaning
		}
		d.add(checker.Change{Kind: checker.LabelChanged, Path: newPath, Old: oc.String(), New: nc.String(), Effect: eff,
			Message: fmt.Sprintf("field %q changed from %s to %s.", newPath, oc, nc)}, of, nf)
	}
	if oo, no := oneofName(of), oneofName(nf); oo != no {
		d.add(checker.Change{Kind: checker.OneofChanged, Path: newPath, Old: oo, New: no, Effect: checker.ChangesMeaning,
			Message: fmt.Sprintf("field %q moved %s; which fields can be set together changed.", newPath, oneofMove(oo, no))}, of, nf)
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
			Message: fmt.Sprintf("field %q changed its default from %s to %s; readers see another value when it is absent.", newPath, defaultString(of), defaultString(nf))}, of, nf)
	}
	if oc, nc := d.old.comment(of), d.next.comment(nf); oc != nc {
		d.add(checker.Change{Kind: checker.DocChanged, Path: newPath, Old: oc, New: nc, Effect: checker.Harmless,
			Message: fmt.Sprintf("the comment on field %q changed.", newPath)}, of, nf)
	}
	if om, nm := valueMessage(of), valueMessage(nf); om != nil && nm != nil && (om.FullName() == nm.FullName() || localName(om) == localName(nm)) {
		d.messages(om, nm, oldPath, newPath)
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
		Message: fmt.Sprintf("field %q %s from %s to %s.", path, verb, ot, nt)}, of, nf)
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
			Message: fmt.Sprintf("enum %s of field %q gained values %s; readers may see values they do not know.", ne.Name(), path, strings.Join(added, ", "))}, of, nf)
	}
	if len(removed) > 0 {
		d.add(checker.Change{Kind: checker.EnumSymbolsRemoved, Path: path, Old: strings.Join(removed, ","), Effect: checker.Breaks,
			Message: fmt.Sprintf("enum %s of field %q lost values %s; data holding them reads as unknown numbers.", ne.Name(), path, strings.Join(removed, ", "))}, of, nf)
	}
	if len(renamed) > 0 {
		d.add(checker.Change{Kind: checker.EnumValueRenamed, Path: path, Old: strings.Join(renamed, ","), Effect: checker.ChangesMeaning,
			Message: fmt.Sprintf("enum %s of field %q renamed values %s; the numbers are unchanged but JSON readers see other names.", ne.Name(), path, strings.Join(renamed, ", "))}, of, nf)
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
