package jsonschema

import "slices"

// The keywords of strings, numbers and enums, compared as the registry's
// StringSchemaDiff, NumberSchemaDiff and EnumSchemaDiff do.

func compareString(c *cmpCtx, o, u *node) {
	compareInt(c, "maxLength", o.maxLen, u.maxLen, o, u, MaxLengthAdded, MaxLengthRemoved, MaxLengthIncreased, MaxLengthDecreased)
	compareInt(c, "minLength", o.minLen, u.minLen, o, u, MinLengthAdded, MinLengthRemoved, MinLengthIncreased, MinLengthDecreased)
	switch {
	case o.pattern == nil && u.pattern != nil:
		c.add(PatternAdded, "pattern", o, u, "pattern")
	case o.pattern != nil && u.pattern == nil:
		c.add(PatternRemoved, "pattern", o, u, "pattern")
	case o.pattern != nil && *o.pattern != *u.pattern:
		c.add(PatternChanged, "pattern", o, u, "pattern")
	}
}

// compareInt reports a change of an integer keyword: added, removed, increased or
// decreased.
func compareInt(c *cmpCtx, key string, a, b optInt, o, u *node, added, removed, increased, decreased string) {
	switch {
	case !a.ok && !b.ok:
	case !a.ok:
		c.add(added, key, o, u, key)
	case !b.ok:
		c.add(removed, key, o, u, key)
	case a.v < b.v:
		c.add(increased, key, o, u, key)
	case a.v > b.v:
		c.add(decreased, key, o, u, key)
	}
}

func compareNum(c *cmpCtx, key string, a, b optNum, o, u *node, added, removed, increased, decreased string) {
	switch {
	case !a.ok() && !b.ok():
	case !a.ok():
		c.add(added, key, o, u, key)
	case !b.ok():
		c.add(removed, key, o, u, key)
	case a.v.Cmp(b.v) < 0:
		c.add(increased, key, o, u, key)
	case a.v.Cmp(b.v) > 0:
		c.add(decreased, key, o, u, key)
	}
}

func compareNumber(c *cmpCtx, o, u *node) {
	compareNum(c, "maximum", o.max, u.max, o, u, MaximumAdded, MaximumRemoved, MaximumIncreased, MaximumDecreased)
	compareNum(c, "minimum", o.min, u.min, o, u, MinimumAdded, MinimumRemoved, MinimumIncreased, MinimumDecreased)
	compareNum(c, "exclusiveMaximum", o.exMax, u.exMax, o, u, ExclusiveMaximumAdded, ExclusiveMaximumRemoved, ExclusiveMaximumIncreased, ExclusiveMaximumDecreased)
	compareNum(c, "exclusiveMinimum", o.exMin, u.exMin, o, u, ExclusiveMinimumAdded, ExclusiveMinimumRemoved, ExclusiveMinimumIncreased, ExclusiveMinimumDecreased)
	a, b := o.multiple, u.multiple
	switch {
	case !a.ok() && !b.ok():
	case !a.ok():
		c.add(MultipleOfAdded, "multipleOf", o, u, "multipleOf")
	case !b.ok():
		c.add(MultipleOfRemoved, "multipleOf", o, u, "multipleOf")
	case a.v.Cmp(b.v) != 0:
		// The registry compares the integer parts: the update a multiple of the
		// original expands the constraint, a divisor of it reduces it.
		ai, bi := truncInt(a), truncInt(b)
		switch {
		case ai != 0 && bi%ai == 0:
			c.add(MultipleOfExpanded, "multipleOf", o, u, "multipleOf")
		case bi != 0 && ai%bi == 0:
			c.add(MultipleOfReduced, "multipleOf", o, u, "multipleOf")
		default:
			c.add(MultipleOfChanged, "multipleOf", o, u, "multipleOf")
		}
	}
	if o.integer != u.integer {
		if o.integer {
			c.add(TypeExtended, "", o, u, "type")
		} else {
			c.add(TypeNarrowed, "", o, u, "type")
		}
	}
}

func truncInt(n optNum) int64 {
	q := n.v.Num()
	if n.v.IsInt() {
		return q.Int64()
	}
	f, _ := n.v.Float64()
	return int64(f)
}

func compareEnum(c *cmpCtx, o, u *node) {
	if sameSet(o.values, u.values) {
		return
	}
	switch {
	case containsAll(u.values, o.values):
		c.add(EnumArrayExtended, "enum", o, u, "enum")
	case containsAll(o.values, u.values):
		c.add(EnumArrayNarrowed, "enum", o, u, "enum")
	default:
		c.add(EnumArrayChanged, "enum", o, u, "enum")
	}
}

func sameSet(a, b []string) bool { return containsAll(a, b) && containsAll(b, a) }

func containsAll(set, sub []string) bool {
	for _, s := range sub {
		if !slices.Contains(set, s) {
			return false
		}
	}
	return true
}
