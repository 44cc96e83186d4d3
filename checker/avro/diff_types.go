package avro

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// compareType reports how a field's type changed: nullability first, then the type
// without its null branch, branch by branch for unions. within prefixes messages for
// types nested in arrays and maps ("the items of ").
func (d *differ) compareType(path string, o, n avro.Schema, ptr, within string) {
	on, oc := splitNull(o)
	nn, nc := splitNull(n)
	switch {
	case on && !nn:
		d.add(checker.NullabilityChanged, path, "", "nullable", "required", checker.Breaks, d.next, ptr,
			fmt.Sprintf("%sfield %q can no longer be null: readers of the new schema fail on old records holding null.", within, path))
	case !on && nn:
		d.add(checker.NullabilityChanged, path, "", "required", "nullable", checker.ChangesMeaning, d.next, ptr,
			fmt.Sprintf("%sfield %q may now be null: consumers must handle a missing value.", within, path))
	}
	if len(oc) == 1 && len(nc) == 1 {
		d.compareCore(path, oc[0], nc[0], ptr, within)
		return
	}
	usedNew := make([]bool, len(nc))
	var removed []avro.Schema
	for _, ob := range oc {
		j := slices.IndexFunc(nc, func(nb avro.Schema) bool { return branchKey(nb) == branchKey(ob) })
		if j < 0 || usedNew[j] {
			removed = append(removed, ob)
			continue
		}
		usedNew[j] = true
		d.compareCore(path, ob, nc[j], ptr, within)
	}
	for _, ob := range removed {
		j := -1
		for k, nb := range nc {
			if !usedNew[k] && promotes(kindOf(ob), kindOf(nb)) {
				j = k
				break
			}
		}
		if j >= 0 {
			usedNew[j] = true
			d.compareCore(path, ob, nc[j], ptr, within)
			continue
		}
		d.add(checker.UnionBranchesChange, path, "", label(ob), "", checker.Breaks, d.next, ptr,
			fmt.Sprintf("%sfield %q can no longer hold %s: readers of the new schema cannot read old records holding it.", within, path, label(ob)))
	}
	for k, nb := range nc {
		if usedNew[k] {
			continue
		}
		d.add(checker.UnionBranchesChange, path, "", "", label(nb), checker.ChangesMeaning, d.next, ptr,
			fmt.Sprintf("%sfield %q can now hold %s: consumers must handle the new type.", within, path, label(nb)))
	}
}

// branchKey identifies a union branch: named types by kind and full name, others by type.
func branchKey(s avro.Schema) string {
	if n, ok := s.(avro.NamedSchema); ok {
		return string(kindOf(s)) + " " + n.FullName()
	}
	return string(kindOf(s))
}

// compareCore compares two non-union types.
func (d *differ) compareCore(path string, o, n avro.Schema, ptr, within string) {
	ok, nk := kindOf(o), kindOf(n)
	if ok != nk {
		if promotes(ok, nk) {
			d.add(checker.TypePromoted, path, "", label(o), label(n), checker.ChangesMeaning, d.next, ptr,
				fmt.Sprintf("%sfield %q was widened from %s to %s: old data still reads, but the value's range changed.", within, path, label(o), label(n)))
			return
		}
		d.add(checker.TypeChanged, path, "", label(o), label(n), checker.Breaks, d.next, ptr,
			fmt.Sprintf("%sfield %q changed type from %s to %s, which Avro cannot convert.", within, path, label(o), label(n)))
		return
	}
	switch ok {
	case avro.Array:
		d.compareType(path, o.(*avro.ArraySchema).Items(), n.(*avro.ArraySchema).Items(), ptr+"/items", within+"the items of ")
		return
	case avro.Map:
		d.compareType(path, o.(*avro.MapSchema).Values(), n.(*avro.MapSchema).Values(), ptr+"/values", within+"the values of ")
		return
	}
	defPtr := d.next.pointerOf(n, ptr)
	if on, isNamed := o.(avro.NamedSchema); isNamed {
		nn := n.(avro.NamedSchema)
		switch {
		case on.FullName() == nn.FullName() || slices.Contains(nn.Aliases(), on.FullName()):
		case on.Name() == nn.Name():
			d.add(checker.NamespaceChanged, path, "", on.Namespace(), nn.Namespace(), checker.ChangesMeaning, d.next, defPtr+"/namespace",
				fmt.Sprintf("%sthe type of field %q moved from namespace %q to %q: the data still reads, but generated classes change package.", within, path, on.Namespace(), nn.Namespace()))
		default:
			d.add(checker.TypeChanged, path, "", label(o), label(n), checker.Breaks, d.next, defPtr+"/name",
				fmt.Sprintf("%sthe type of field %q was renamed from %q to %q without an alias; add %q to its \"aliases\".", within, path, on.FullName(), nn.FullName(), on.FullName()))
		}
	}
	switch ok {
	case avro.Enum:
		oe, ne := o.(*avro.EnumSchema), n.(*avro.EnumSchema)
		added, removed := symbolDiff(oe.Symbols(), ne.Symbols())
		if len(removed) > 0 {
			d.add(checker.EnumSymbolsRemoved, path, "", strings.Join(removed, ","), "", checker.Breaks, d.next, defPtr+"/symbols",
				fmt.Sprintf("%sfield %q (enum %q) lost symbol(s) %s.", within, path, ne.FullName(), strings.Join(removed, ", ")))
		}
		if len(added) > 0 {
			d.add(checker.EnumSymbolsAdded, path, "", "", strings.Join(added, ","), checker.ChangesMeaning, d.next, defPtr+"/symbols",
				fmt.Sprintf("%sfield %q (enum %q) gained symbol(s) %s: consumers must handle the new values.", within, path, ne.FullName(), strings.Join(added, ", ")))
		}
	case avro.Fixed:
		of, nf := o.(*avro.FixedSchema), n.(*avro.FixedSchema)
		if of.Size() != nf.Size() {
			d.add(checker.FixedSizeChanged, path, "", fmt.Sprint(of.Size()), fmt.Sprint(nf.Size()), checker.Breaks, d.next, defPtr+"/size",
				fmt.Sprintf("%sfield %q (fixed %q) changed size from %d to %d bytes.", within, path, nf.FullName(), of.Size(), nf.Size()))
		}
	}
	if ol, nl := logicalOf(o), logicalOf(n); ol != nl {
		d.add(checker.LogicalTypeChanged, path, "", orPlain(ol), orPlain(nl), checker.ChangesMeaning, d.next, defPtr,
			fmt.Sprintf("%sfield %q changed logical type from %s to %s: the bytes still decode, but the value means something else.", within, path, orPlain(ol), orPlain(nl)))
	}
}

// logicalOf names a type's logical type, including ones hamba/avro does not model
// (kept as the "logicalType" property).
func logicalOf(s avro.Schema) string {
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		return logicalString(l.Logical())
	}
	if p, ok := s.(avro.PropertySchema); ok {
		if lt, ok := p.Prop("logicalType").(string); ok {
			return lt
		}
	}
	return ""
}

func orPlain(l string) string {
	if l == "" {
		return "none"
	}
	return l
}

// symbolDiff lists the symbols next adds to old and those it removes, each in its
// list's order; sets keep it linear (a 40,000-symbol enum took 12 s with a scan per
// symbol).
func symbolDiff(old, next []string) (added, removed []string) {
	inOld, inNext := set(old), set(next)
	for _, s := range next {
		if !inOld[s] {
			added = append(added, s)
		}
	}
	for _, s := range old {
		if !inNext[s] {
			removed = append(removed, s)
		}
	}
	return added, removed
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
