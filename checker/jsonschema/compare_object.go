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
	if len(o.required) == 0 && len(u.required) == 0 {
		return
	}
	for i, p := range o.props {
		q := u.propertyAt(i, p.name)
		if q == nil {
			continue
		}
		up := q.n
		was, is := o.required[p.name], u.required[p.name]
		switch {
		case was && !is:
			c.add(RequiredAttributeRemoved, "required/"+p.name, o, u, "required")
		case !was && is && up.hasDef:
			c.add(RequiredAttributeWithDefaultAdded, "required/"+p.name, o, u, "required")
		case !was && is:
			c.add(RequiredAttributeAdded, "required/"+p.name, o, u, "required")
		}
	}
}

// compareProperties compares the properties of both objects: the original's in its
// order, then those only the update has (findings are sorted afterwards).
func compareProperties(c *cmpCtx, o, u *node) {
	for i := range o.props {
		p := &o.props[i]
		q := u.propertyAt(i, p.name)
		if q != nil && p.sig != 0 && p.sig == q.sig {
			continue // the same leaf schema
		}
		depth := c.push("properties", p.name)
		if q == nil {
			propertyRemoved(c, p.name, p.n, u)
		} else {
			compare(c, p.n, q.n)
		}
		c.pop(depth)
	}
	for i, p := range u.props {
		if o.propertyAt(i, p.name) == nil {
			depth := c.push("properties", p.name)
			propertyAdded(c, p.name, o, p.n, u)
			c.pop(depth)
		}
	}
}

// propertyRemoved: only the update's content model decides whether a property may go.
func propertyRemoved(c *cmpCtx, name string, op, u *node) {
	memberRemoved(c, op, u, u.openObject(), u.partialObject(name), "properties", removalRules{
		open:       PropertyRemovedFromOpenContentModel,
		covered:    PropertyRemovedIsCoveredByPartiallyOpenContentModel,
		notCovered: PropertyRemovedNotCoveredByPartiallyOpenContentModel,
		falseGone:  PropertyWithFalseRemovedFromClosedContentModel,
		closed:     PropertyRemovedFromClosedContentModel,
	})
}

// removalRules are the rules for a property or an item the update no longer has,
// by the update's content model.
type removalRules struct {
	open, covered, notCovered, falseGone, closed string
}

// memberRemoved reports m, a property or item the update u no longer has: u's
// content model is open, or partially open (partial is the schema it admits
// further members by), or closed, where removing a false schema is told apart.
func memberRemoved(c *cmpCtx, m, u *node, open bool, partial *node, keyword string, r removalRules) {
	switch {
	case open:
		c.add(r.open, "", m, u, keyword)
	case partial != nil:
		c.add(coveredBy(c, m, partial, r.covered, r.notCovered), "", m, u, keyword)
	case m.kind == kFalse:
		c.add(r.falseGone, "", m, u, keyword)
	default:
		c.add(r.closed, "", m, u, keyword)
	}
}

// coveredBy compares a with b, one of them the schema a partially open content
// model admits further members by, keeps the findings, and returns covered when
// they are compatible, notCovered otherwise.
func coveredBy(c *cmpCtx, a, b *node, covered, notCovered string) string {
	s := c.compareSub(a, b)
	c.keep(s.diffs...)
	if s.compatible() {
		return covered
	}
	return notCovered
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
		c.add(coveredBy(c, partial, up, PropertyAddedIsCoveredByPartiallyOpenContentModel,
			PropertyAddedNotCoveredByPartiallyOpenContentModel), "", o, up, "")
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
	for _, k := range unionKeys(o.propDeps, u.propDeps) {
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
	for _, k := range unionKeys(o.schemaDeps, u.schemaDeps) {
		a, b := o.schemaDeps[k], u.schemaDeps[k]
		seg := "dependencies/" + k
		switch {
		case b == nil:
			c.add(DependencySchemaRemoved, seg, o, u, "dependencies")
		case a == nil:
			c.add(DependencySchemaAdded, seg, o, u, "dependencies")
		default:
			depth := c.push("dependencies", k)
			compare(c, a, b)
			c.pop(depth)
		}
	}
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(keys)
	return slices.Compact(keys)
}

// compareAdditional compares additionalProperties or additionalItems: permitted or
// not, then with a schema or without, then the schemas.
func compareAdditional(c *cmpCtx, key string, permitO, permitU bool, a, b, o, u *node, added, removed, narrowed, extended string) {
	defer c.pop(c.push(key))
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
	defer c.pop(c.push(key))
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
	depth := c.push("items")
	compare(c, o.items, u.items)
	c.pop(depth)
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
		depth := c.push("items/" + itoa(i))
		switch {
		case i < len(o.itemList) && i < len(u.itemList):
			compare(c, o.itemList[i], u.itemList[i])
		case i < len(o.itemList):
			itemRemoved(c, o.itemList[i], u)
		default:
			itemAdded(c, o, u.itemList[i])
		}
		c.pop(depth)
	}
}

func itemRemoved(c *cmpCtx, oi, u *node) {
	memberRemoved(c, oi, u, u.openArray(), u.partialArray(), "items", removalRules{
		open:       ItemRemovedFromOpenContentModel,
		covered:    ItemRemovedIsCoveredByPartiallyOpenContentModel,
		notCovered: ItemRemovedNotCoveredByPartiallyOpenContentModel,
		falseGone:  ItemWithFalseRemovedFromClosedContentModel,
		closed:     ItemRemovedFromClosedContentModel,
	})
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
		c.add(coveredBy(c, partial, ui, ItemAddedIsCoveredByPartiallyOpenContentModel,
			ItemAddedNotCoveredByPartiallyOpenContentModel), "", o, ui, "")
		return
	}
	c.add(ItemAddedToClosedContentModel, "", o, ui, "")
}
