package jsonschema

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/jsontext"
)

// Diff lists the field-level changes from old to next by dotted path: properties
// added, removed, renamed (removed and added under the same parent with the same type),
// moved to another nesting level, and, for properties in both, changes of type, enum
// values, nullability, requiredness, default and description (units named in it). Each
// change has an Effect for a consumer reading the property and a position in next (in
// old for removals).
func Diff(old, next *Schema) []checker.Change {
	if old == nil || next == nil {
		return nil
	}
	d := &differ{old: old, next: next, newToOld: map[string]string{}, oldMatched: map[string]bool{}}
	d.match()
	d.leftovers()
	if cut := next.cut; cut != nil || old.cut != nil {
		if cut == nil {
			cut = old.cut
		}
		d.add(checker.ChangesCut, checker.WholeSubject, "", "", "", checker.Breaks, cut, "", fmt.Sprintf(
			"the field changes were compared for the first %d field paths only (the list stops before %s): a definition is used by more than one property, level after level. Every consumer of the subject is counted as reading a breaking change; check the rest by hand, or stop reusing definitions at every level.",
			checker.MaxFieldPaths, cut.path))
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
	newToOld   map[string]string
	oldMatched map[string]bool
	unmatched  []*fieldInfo
	out        []checker.Change
}

func parentOf(path string) string {
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[:i]
	}
	return ""
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// match pairs new properties with old ones, shallow first: by name under the parent's
// old path, then a removed and an added property of one parent with the same type (a
// rename), then the same name and type at another level (a move).
func (d *differ) match() {
	byDepth := slices.Clone(d.next.fields)
	sort.SliceStable(byDepth, func(i, j int) bool { return byDepth[i].depth < byDepth[j].depth })
	for start := 0; start < len(byDepth); {
		end := start
		for end < len(byDepth) && byDepth[end].depth == byDepth[start].depth {
			end++
		}
		var rest []*fieldInfo
		for _, nf := range byDepth[start:end] {
			op := joinPath(d.oldParent(nf), nf.name)
			if of, ok := d.old.byPath[op]; ok && !d.oldMatched[op] {
				d.pair(of, nf, "")
				continue
			}
			rest = append(rest, nf)
		}
		var left []*fieldInfo
		for _, nf := range rest {
			if of := d.candidate(nf, true); of != nil {
				d.pair(of, nf, checker.FieldRenamed)
				continue
			}
			left = append(left, nf)
		}
		for _, nf := range left {
			if of := d.candidate(nf, false); of != nil {
				d.pair(of, nf, checker.FieldMoved)
				continue
			}
			d.unmatched = append(d.unmatched, nf)
		}
		start = end
	}
}

func (d *differ) oldParent(nf *fieldInfo) string {
	parent := parentOf(nf.path)
	if op, ok := d.newToOld[parent]; ok {
		return op
	}
	return parent
}

// candidate finds an unmatched old property of the same type: under the same parent
// with another name (sameParent), or with the same name under another parent.
func (d *differ) candidate(nf *fieldInfo, sameParent bool) *fieldInfo {
	key := typeKey(nf.n)
	for _, of := range d.old.fields {
		if d.oldMatched[of.path] || typeKey(of.n) != key {
			continue
		}
		if _, stays := d.next.byPath[of.path]; stays {
			continue
		}
		if sameParent && parentOf(of.path) == d.oldParent(nf) && of.name != nf.name {
			return of
		}
		if !sameParent && of.name == nf.name && parentOf(of.path) != d.oldParent(nf) {
			return of
		}
	}
	return nil
}

func (d *differ) pair(of, nf *fieldInfo, kind checker.ChangeKind) {
	d.newToOld[nf.path] = of.path
	d.oldMatched[of.path] = true
	switch {
	case kind == checker.FieldRenamed:
		d.add(kind, nf.path, of.path, of.name, nf.name, checker.Breaks, nf, "",
			fmt.Sprintf("property %q was renamed to %q (removed and added with the same type); consumers reading %q must switch to the new name.", of.path, nf.path, of.path))
	case kind == checker.FieldMoved:
		d.add(kind, nf.path, of.path, of.path, nf.path, checker.Breaks, nf, "",
			fmt.Sprintf("property %q moved to %q (another nesting level); consumers reading %q must switch to the new path.", of.path, nf.path, of.path))
	case of.path != nf.path:
		d.add(checker.FieldRenamed, nf.path, of.path, of.name, nf.name, checker.Breaks, nf, "",
			fmt.Sprintf("property %q is now %q because an enclosing property was renamed or moved; consumers reading %q must switch to the new path.", of.path, nf.path, of.path))
	}
	d.compareField(of, nf)
}

func (d *differ) leftovers() {
	for _, nf := range d.unmatched {
		if nf.required && !deref(nf.n).hasDef && !nf.n.hasDef {
			d.add(checker.FieldAdded, nf.path, "", "", label(nf.n), checker.ChangesMeaning, nf, "",
				fmt.Sprintf("required property %q was added: data written before this version lacks it.", nf.path))
			continue
		}
		d.add(checker.FieldAdded, nf.path, "", "", label(nf.n), checker.Harmless, nf, "",
			fmt.Sprintf("property %q was added.", nf.path))
	}
	for _, of := range d.old.fields {
		if d.oldMatched[of.path] {
			continue
		}
		d.add(checker.FieldRemoved, of.path, "", label(of.n), "", checker.Breaks, of, "",
			fmt.Sprintf("property %q was removed; consumers that read it lose it.", of.path))
	}
}

// add records a change located at a property (plus a keyword of its schema).
func (d *differ) add(kind checker.ChangeKind, path, oldPath, o, n string, effect checker.Effect, at *fieldInfo, key, msg string) {
	ptr := at.ptr
	if key != "" {
		if _, _, ok := jsontext.ResolvePointer(at.doc.text, ptr+"/"+key); ok {
			ptr += "/" + key
		}
	}
	line, col := at.doc.position(ptr)
	d.out = append(d.out, checker.Change{
		Kind: kind, Path: path, OldPath: oldPath, Old: o, New: n, Effect: effect,
		File: at.doc.file, Line: line, Column: col, Message: msg,
	})
}

// compareField reports what changed in a property present in both versions.
func (d *differ) compareField(of, nf *fieldInfo) {
	path := nf.path
	on, nn := deref(of.n), deref(nf.n)
	if on == nil || nn == nil {
		return
	}
	ov, nv := enumValues(on), enumValues(nn)
	switch {
	case ov != nil && nv != nil && !sameSet(ov, nv):
		if gone := minus(ov, nv); len(gone) > 0 {
			d.add(checker.EnumSymbolsRemoved, path, "", strings.Join(gone, ", "), "", checker.Breaks, nf, "enum",
				fmt.Sprintf("property %q no longer allows %s; consumers that branch on those values must handle their absence.", path, strings.Join(gone, ", ")))
		}
		if added := minus(nv, ov); len(added) > 0 {
			d.add(checker.EnumSymbolsAdded, path, "", "", strings.Join(added, ", "), checker.ChangesMeaning, nf, "enum",
				fmt.Sprintf("property %q now also allows %s; consumers that branch on its values must handle them.", path, strings.Join(added, ", ")))
		}
	case typeKey(on) != typeKey(nn):
		d.typeChange(path, on, nn, nf)
	default:
		if oc, nc := constraints(on), constraints(nn); oc != nc {
			d.add(checker.RangeChanged, path, "", orNone([]string{oc}), orNone([]string{nc}), checker.ChangesMeaning, nf, "",
				fmt.Sprintf("the values property %q may hold changed (%s before, %s now): check that readers accept the new range.", path, orAny(oc), orAny(nc)))
		}
	}
	switch {
	case of.required && !nf.required:
		d.add(checker.NullabilityChanged, path, "", "required", "optional", checker.ChangesMeaning, nf, "",
			fmt.Sprintf("property %q is no longer required: records may now lack it.", path))
	case !of.required && nf.required:
		d.add(checker.NullabilityChanged, path, "", "optional", "required", checker.Harmless, nf, "",
			fmt.Sprintf("property %q is now required.", path))
	}
	switch {
	case !of.n.hasDef && nf.n.hasDef:
		d.add(checker.DefaultAdded, path, "", "", shorten(nf.n.def), checker.ChangesMeaning, nf, "default",
			fmt.Sprintf("property %q now has the default %s.", path, shorten(nf.n.def)))
	case of.n.hasDef && !nf.n.hasDef:
		d.add(checker.DefaultRemoved, path, "", shorten(of.n.def), "", checker.ChangesMeaning, nf, "",
			fmt.Sprintf("property %q lost its default %s.", path, shorten(of.n.def)))
	case of.n.hasDef && of.n.def != nf.n.def:
		d.add(checker.DefaultChanged, path, "", shorten(of.n.def), shorten(nf.n.def), checker.ChangesMeaning, nf, "default",
			fmt.Sprintf("property %q changed its default from %s to %s.", path, shorten(of.n.def), shorten(nf.n.def)))
	}
	if od, nd := docOf(of.n), docOf(nf.n); od != nd {
		if ou, nu := checker.DocUnits(od), checker.DocUnits(nd); !slices.Equal(ou, nu) {
			d.add(checker.UnitChanged, path, "", strings.Join(ou, ","), strings.Join(nu, ","), checker.ChangesMeaning, nf, "description",
				fmt.Sprintf("the description of property %q names another unit (%s before, %s now): check that readers scale the value.", path, orNone(ou), orNone(nu)))
		} else {
			d.add(checker.DocChanged, path, "", shorten(od), shorten(nd), checker.Harmless, nf, "description",
				fmt.Sprintf("the description of property %q changed.", path))
		}
	}
}

// typeChange reports a property whose type changed: integer to number is a
// promotion, gaining or losing null a change of nullability, anything else a change
// of type.
func (d *differ) typeChange(path string, on, nn *node, nf *fieldInfo) {
	ol, nl := label(on), label(nn)
	switch {
	case on.kind == kNumber && nn.kind == kNumber && on.integer && !nn.integer:
		d.add(checker.TypePromoted, path, "", ol, nl, checker.ChangesMeaning, nf, "type",
			fmt.Sprintf("property %q widens from integer to number: readers may now see fractions.", path))
	case withoutNull(nn) == typeKey(on):
		d.add(checker.NullabilityChanged, path, "", ol, nl, checker.ChangesMeaning, nf, "type",
			fmt.Sprintf("property %q may now be null: readers must handle null.", path))
	case withoutNull(on) == typeKey(nn):
		d.add(checker.NullabilityChanged, path, "", ol, nl, checker.Harmless, nf, "type",
			fmt.Sprintf("property %q can no longer be null.", path))
	default:
		d.add(checker.TypeChanged, path, "", ol, nl, checker.Breaks, nf, "type",
			fmt.Sprintf("property %q changes type from %s to %s; consumers that read it must handle the new type.", path, ol, nl))
	}
}

// withoutNull is the type key of an anyOf with a null branch, without it; "" when n
// has no null branch.
func withoutNull(n *node) string {
	if n.kind != kCombined || n.crit == "allOf" {
		return ""
	}
	var rest []*node
	hasNull := false
	for _, s := range n.subs {
		if d := deref(s); d != nil && d.kind == kNull {
			hasNull = true
			continue
		}
		rest = append(rest, s)
	}
	if !hasNull || len(rest) != 1 {
		return ""
	}
	return typeKey(rest[0])
}

// enumValues returns the values an enum (or const) allows, also when the enum stands
// beside a type (an allOf the keywords made); nil when there is none.
func enumValues(n *node) []string {
	switch n.kind {
	case kEnum:
		return n.values
	case kConst:
		return []string{n.constVal}
	case kCombined:
		if n.crit == "allOf" {
			for _, s := range n.subs {
				if v := enumValues(deref(s)); v != nil {
					return v
				}
			}
		}
	}
	return nil
}

// constraints renders the keywords that limit a leaf's values ("maxLength 3,
// minimum 0"), also beside an enum or a type list; "" when there are none.
func constraints(n *node) string {
	var parts []string
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		n = deref(n)
		if n == nil || depth > 4 {
			return
		}
		addInt := func(k string, v optInt) {
			if v.ok {
				parts = append(parts, fmt.Sprintf("%s %d", k, v.v))
			}
		}
		addNum := func(k string, v optNum) {
			if v.ok() {
				parts = append(parts, k+" "+v.text)
			}
		}
		switch n.kind {
		case kString:
			addInt("minLength", n.minLen)
			addInt("maxLength", n.maxLen)
			if n.pattern != nil {
				parts = append(parts, "pattern "+*n.pattern)
			}
		case kNumber:
			addNum("minimum", n.min)
			addNum("maximum", n.max)
			addNum("exclusiveMinimum", n.exMin)
			addNum("exclusiveMaximum", n.exMax)
			addNum("multipleOf", n.multiple)
		case kArray:
			addInt("minItems", n.minItems)
			addInt("maxItems", n.maxItems)
		case kCombined:
			for _, s := range n.subs {
				walk(s, depth+1)
			}
		}
	}
	walk(n, 0)
	return strings.Join(parts, ", ")
}

func orAny(s string) string {
	if s == "" {
		return "any"
	}
	return s
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func docOf(n *node) string {
	if n.hasDesc {
		return n.desc
	}
	if d := deref(n); d != nil && d != n {
		return d.desc
	}
	return ""
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func orNone(s []string) string {
	if len(s) == 0 || len(s) == 1 && s[0] == "" {
		return "none"
	}
	return strings.Join(s, ", ")
}
