package jsonschema

import (
	"maps"
	"slices"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

// compareObject is ObjectSchemaDiff: required, properties against the content model,
// dependencies, additional and unevaluated properties, then the counts.
func compareObject(c *cmpCtx, o, u *node) {
	compareRequired(c, o, u)
	compareProperties(c, o, u)
	compareDependencies(c, o, u)
	compareAdditional(c, "additionalProperties", !o.addlClosed, !u.addlClosed, o.addl, u.addl, o, u,
		AdditionalPropertiesAdded, AdditionalPropertiesRemoved, AdditionalPropertiesNarrowed, AdditionalPropertiesExtended)
	compareUnevaluated(c, "unevaluatedProperties", o.uneval, u.uneval, o, u,
		UnevaluatedPropertiesAdded, UnevaluatedPropertiesRemoved, UnevaluatedPropertiesNarrowed, UnevaluatedPropertiesExtended)
	compareInt(c, "maxProperties", o.maxProps, u.maxProps, o, u, MaxPropertiesAdded, MaxPropertiesRemoved, MaxPropertiesIncreased, MaxPropertiesDecreased)
	compareInt(c, "minProperties", o.minProps, u.minProps, o, u, MinPropertiesAdded, MinPropertiesRemoved, MinPropertiesIncreased, MinPropertiesDecreased)
}

func compareRequired(c *cmpCtx, o, u *node) {
	for _, p := range o.props {
		up := u.property(p.name)
		if up == nil {
			continue
		}
		was, is := o.required[p.name], u.required[p.name]
		seg := "required/" + p.name
		switch {
		case was && !is:
			c.add(RequiredAttributeRemoved, seg, o, u, "required")
		case !was && is && up.hasDef:
			c.add(RequiredAttributeWithDefaultAdded, seg, o, u, "required")
		case !was && is:
			c.add(RequiredAttributeAdded, seg, o, u, "required")
		}
	}
}

// propertyNames lists the names of both objects' properties, sorted.
func propertyNames(o, u *node) []string {
	names := map[string]bool{}
	for _, p := range o.props {
		names[p.name] = true
	}
	for _, p := range u.props {
		names[p.name] = true
	}
	return slices.Sorted(maps.Keys(names))
}

func compareProperties(c *cmpCtx, o, u *node) {
	for _, name := range propertyNames(o, u) {
		op, up := o.property(name), u.property(name)
		done := c.enter("properties", name)
		switch {
		case up == nil:
			propertyRemoved(c, name, op, u)
		case op == nil:
			propertyAdded(c, name, o, up, u)
		default:
			compare(c, op, up)
		}
		done()
	}
}

// propertyRemoved: only the update's content model decides whether a property may go.
func propertyRemoved(c *cmpCtx, name string, op, u *node) {
	if u.openObject() {
		c.add(PropertyRemovedFromOpenContentModel, "", op, u, "properties")
		return
	}
	if partial := u.partialObject(name); partial != nil {
		s := c.sub()
		compare(s, op, partial)
		c.diffs = append(c.diffs, s.diffs...)
		if s.compatible() {
			c.add(PropertyRemovedIsCoveredByPartiallyOpenContentModel, "", op, u, "properties")
		} else {
			c.add(PropertyRemovedNotCoveredByPartiallyOpenContentModel, "", op, u, "properties")
		}
		return
	}
	if op.kind == kFalse {
		c.add(PropertyWithFalseRemovedFromClosedContentModel, "", op, u, "properties")
		return
	}
	c.add(PropertyRemovedFromClosedContentModel, "", op, u, "properties")
}

// propertyAdded: only the original's content model decides whether a property may
// come.
func propertyAdded(c *cmpCtx, name string, o, up, u *node) {
	required := u.required[name]
	if o.openObject() {
		switch {
		case up.isEmptyLike():
			c.add(PropertyWithEmptySchemaAddedToOpenContentModel, "", o, up, "")
		case required && up.hasDef:
			c.add(RequiredPropertyWithDefaultAddedToOpenContentModel, "", o, up, "")
		case required:
			c.add(RequiredPropertyAddedToOpenContentModel, "", o, up, "")
		default:
			c.add(OptionalPropertyAddedToOpenContentModel, "", o, up, "")
		}
		return
	}
	if partial := o.partialObject(name); partial != nil {
		s := c.sub()
		compare(s, partial, up)
		c.diffs = append(c.diffs, s.diffs...)
		if s.compatible() {
			c.add(PropertyAddedIsCoveredByPartiallyOpenContentModel, "", o, up, "")
		} else {
			c.add(PropertyAddedNotCoveredByPartiallyOpenContentModel, "", o, up, "")
		}
	}
	switch {
	case required && up.hasDef:
		c.add(RequiredPropertyWithDefaultAddedToUnopenContentModel, "", o, up, "")
	case required:
		c.add(RequiredPropertyAddedToUnopenContentModel, "", o, up, "")
	default:
		c.add(OptionalPropertyAddedToUnopenContentModel, "", o, up, "")
	}
}

func compareDependencies(c *cmpCtx, o, u *node) {
	keys := map[string]bool{}
	for k := range o.propDeps {
		keys[k] = true
	}
	for k := range u.propDeps {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		a, inA := o.propDeps[k]
		b, inB := u.propDeps[k]
		seg := "dependencies/" + k
		switch {
		case !inB:
			c.add(DependencyArrayRemoved, seg, o, u, "dependencies")
		case !inA:
			c.add(DependencyArrayAdded, seg, o, u, "dependencies")
		case sameSet(a, b):
		case containsAll(b, a):
			c.add(DependencyArrayExtended, seg, o, u, "dependencies")
		case containsAll(a, b):
			c.add(DependencyArrayNarrowed, seg, o, u, "dependencies")
		default:
			c.add(DependencyArrayChanged, seg, o, u, "dependencies")
		}
	}
	keys = map[string]bool{}
	for k := range o.schemaDeps {
		keys[k] = true
	}
	for k := range u.schemaDeps {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		a, b := o.schemaDeps[k], u.schemaDeps[k]
		seg := "dependencies/" + k
		switch {
		case b == nil:
			c.add(DependencySchemaRemoved, seg, o, u, "dependencies")
		case a == nil:
			c.add(DependencySchemaAdded, seg, o, u, "dependencies")
		default:
			done := c.enter("dependencies", k)
			compare(c, a, b)
			done()
		}
	}
}

// compareAdditional compares additionalProperties or additionalItems: permitted or
// not, then with a schema or without, then the schemas.
func compareAdditional(c *cmpCtx, key string, permitO, permitU bool, a, b, o, u *node, added, removed, narrowed, extended string) {
	done := c.enter(key)
	defer done()
	switch {
	case permitO != permitU && permitU:
		c.add(added, "", o, u, key)
	case permitO != permitU:
		c.add(removed, "", o, u, key)
	case a == nil && b != nil:
		c.add(narrowed, "", o, u, key)
	case b == nil && a != nil:
		c.add(extended, "", o, u, key)
	default:
		compare(c, a, b)
	}
}

// compareUnevaluated compares unevaluatedProperties or unevaluatedItems.
func compareUnevaluated(c *cmpCtx, key string, a, b, o, u *node, added, removed, narrowed, extended string) {
	if a == nil && b == nil {
		return
	}
	done := c.enter(key)
	defer done()
	isFalse := func(n *node) bool { return n != nil && n.kind == kFalse }
	isEmpty := func(n *node) bool { return n != nil && n.isEmptyLike() }
	switch {
	case a == nil && isFalse(b):
		c.add(removed, "", o, u, key)
	case a == nil:
		c.add(narrowed, "", o, u, key)
	case b == nil && isFalse(a):
		c.add(added, "", o, u, key)
	case b == nil:
		c.add(extended, "", o, u, key)
	case isFalse(a) && !isFalse(b):
		c.add(added, "", o, u, key)
	case !isFalse(a) && isFalse(b):
		c.add(removed, "", o, u, key)
	case isEmpty(a) && !isEmpty(b):
		c.add(narrowed, "", o, u, key)
	case !isEmpty(a) && isEmpty(b):
		c.add(extended, "", o, u, key)
	default:
		compare(c, a, b)
	}
}

// compareArray is ArraySchemaDiff: the schema of all items, the schemas by position
// against the content model, additional and unevaluated items, then the counts.
func compareArray(c *cmpCtx, o, u *node) {
	done := c.enter("items")
	compare(c, o.items, u.items)
	done()
	compareItemList(c, o, u)
	compareAdditional(c, "additionalItems", !o.addlItemsClosed, !u.addlItemsClosed, o.addlItems, u.addlItems, o, u,
		AdditionalItemsAdded, AdditionalItemsRemoved, AdditionalItemsNarrowed, AdditionalItemsExtended)
	compareUnevaluated(c, "unevaluatedItems", o.unevalItems, u.unevalItems, o, u,
		UnevaluatedItemsAdded, UnevaluatedItemsRemoved, UnevaluatedItemsNarrowed, UnevaluatedItemsExtended)
	compareInt(c, "maxItems", o.maxItems, u.maxItems, o, u, MaxItemsAdded, MaxItemsRemoved, MaxItemsIncreased, MaxItemsDecreased)
	compareInt(c, "minItems", o.minItems, u.minItems, o, u, MinItemsAdded, MinItemsRemoved, MinItemsIncreased, MinItemsDecreased)
	if o.unique != u.unique {
		if o.unique {
			c.add(UniqueItemsRemoved, "uniqueItems", o, u, "uniqueItems")
		} else {
			c.add(UniqueItemsAdded, "uniqueItems", o, u, "uniqueItems")
		}
	}
	compareInt(c, "maxContains", o.maxContains, u.maxContains, o, u, MaxContainsAdded, MaxContainsRemoved, MaxContainsIncreased, MaxContainsDecreased)
	compareInt(c, "minContains", o.minContains, u.minContains, o, u, MinContainsAdded, MinContainsRemoved, MinContainsIncreased, MinContainsDecreased)
}

func compareItemList(c *cmpCtx, o, u *node) {
	n := max(len(o.itemList), len(u.itemList))
	for i := range n {
		done := c.enter("items/" + itoa(i))
		switch {
		case i < len(o.itemList) && i < len(u.itemList):
			compare(c, o.itemList[i], u.itemList[i])
		case i < len(o.itemList):
			itemRemoved(c, o.itemList[i], u)
		default:
			itemAdded(c, o, u.itemList[i])
		}
		done()
	}
}

func itemRemoved(c *cmpCtx, oi, u *node) {
	if u.openArray() {
		c.add(ItemRemovedFromOpenContentModel, "", oi, u, "items")
		return
	}
	if partial := u.partialArray(); partial != nil {
		s := c.sub()
		compare(s, oi, partial)
		c.diffs = append(c.diffs, s.diffs...)
		if s.compatible() {
			c.add(ItemRemovedIsCoveredByPartiallyOpenContentModel, "", oi, u, "items")
		} else {
			c.add(ItemRemovedNotCoveredByPartiallyOpenContentModel, "", oi, u, "items")
		}
		return
	}
	if oi.kind == kFalse {
		c.add(ItemWithFalseRemovedFromClosedContentModel, "", oi, u, "items")
		return
	}
	c.add(ItemRemovedFromClosedContentModel, "", oi, u, "items")
}

func itemAdded(c *cmpCtx, o, ui *node) {
	if o.openArray() {
		if ui.isEmptyLike() {
			c.add(ItemWithEmptySchemaAddedToOpenContentModel, "", o, ui, "")
		} else {
			c.add(ItemAddedToOpenContentModel, "", o, ui, "")
		}
		return
	}
	if partial := o.partialArray(); partial != nil {
		s := c.sub()
		compare(s, partial, ui)
		c.diffs = append(c.diffs, s.diffs...)
		if s.compatible() {
			c.add(ItemAddedIsCoveredByPartiallyOpenContentModel, "", o, ui, "")
		} else {
			c.add(ItemAddedNotCoveredByPartiallyOpenContentModel, "", o, ui, "")
		}
		return
	}
	c.add(ItemAddedToClosedContentModel, "", o, ui, "")
}
