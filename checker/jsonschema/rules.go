// Code written from the Confluent Schema Registry's Difference.Type enum and the
// COMPATIBLE_CHANGES set of its SchemaDiff (json-schema-provider): the ids are its names.

package jsonschema

// The difference types, named as the registry names them.
const (
	IDChanged                                            = "ID_CHANGED"
	DescriptionChanged                                   = "DESCRIPTION_CHANGED"
	TitleChanged                                         = "TITLE_CHANGED"
	DefaultChanged                                       = "DEFAULT_CHANGED"
	SchemaAdded                                          = "SCHEMA_ADDED"
	SchemaRemoved                                        = "SCHEMA_REMOVED"
	TypeExtended                                         = "TYPE_EXTENDED"
	TypeNarrowed                                         = "TYPE_NARROWED"
	TypeChanged                                          = "TYPE_CHANGED"
	MaxLengthAdded                                       = "MAX_LENGTH_ADDED"
	MaxLengthRemoved                                     = "MAX_LENGTH_REMOVED"
	MaxLengthIncreased                                   = "MAX_LENGTH_INCREASED"
	MaxLengthDecreased                                   = "MAX_LENGTH_DECREASED"
	MinLengthAdded                                       = "MIN_LENGTH_ADDED"
	MinLengthRemoved                                     = "MIN_LENGTH_REMOVED"
	MinLengthIncreased                                   = "MIN_LENGTH_INCREASED"
	MinLengthDecreased                                   = "MIN_LENGTH_DECREASED"
	PatternAdded                                         = "PATTERN_ADDED"
	PatternRemoved                                       = "PATTERN_REMOVED"
	PatternChanged                                       = "PATTERN_CHANGED"
	MaximumAdded                                         = "MAXIMUM_ADDED"
	MaximumRemoved                                       = "MAXIMUM_REMOVED"
	MaximumIncreased                                     = "MAXIMUM_INCREASED"
	MaximumDecreased                                     = "MAXIMUM_DECREASED"
	MinimumAdded                                         = "MINIMUM_ADDED"
	MinimumRemoved                                       = "MINIMUM_REMOVED"
	MinimumIncreased                                     = "MINIMUM_INCREASED"
	MinimumDecreased                                     = "MINIMUM_DECREASED"
	ExclusiveMaximumAdded                                = "EXCLUSIVE_MAXIMUM_ADDED"
	ExclusiveMaximumRemoved                              = "EXCLUSIVE_MAXIMUM_REMOVED"
	ExclusiveMaximumIncreased                            = "EXCLUSIVE_MAXIMUM_INCREASED"
	ExclusiveMaximumDecreased                            = "EXCLUSIVE_MAXIMUM_DECREASED"
	ExclusiveMinimumAdded                                = "EXCLUSIVE_MINIMUM_ADDED"
	ExclusiveMinimumRemoved                              = "EXCLUSIVE_MINIMUM_REMOVED"
	ExclusiveMinimumIncreased                            = "EXCLUSIVE_MINIMUM_INCREASED"
	ExclusiveMinimumDecreased                            = "EXCLUSIVE_MINIMUM_DECREASED"
	MultipleOfAdded                                      = "MULTIPLE_OF_ADDED"
	MultipleOfRemoved                                    = "MULTIPLE_OF_REMOVED"
	MultipleOfExpanded                                   = "MULTIPLE_OF_EXPANDED"
	MultipleOfReduced                                    = "MULTIPLE_OF_REDUCED"
	MultipleOfChanged                                    = "MULTIPLE_OF_CHANGED"
	RequiredAttributeAdded                               = "REQUIRED_ATTRIBUTE_ADDED"
	RequiredAttributeWithDefaultAdded                    = "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED"
	RequiredAttributeRemoved                             = "REQUIRED_ATTRIBUTE_REMOVED"
	MaxPropertiesAdded                                   = "MAX_PROPERTIES_ADDED"
	MaxPropertiesRemoved                                 = "MAX_PROPERTIES_REMOVED"
	MaxPropertiesIncreased                               = "MAX_PROPERTIES_INCREASED"
	MaxPropertiesDecreased                               = "MAX_PROPERTIES_DECREASED"
	MinPropertiesAdded                                   = "MIN_PROPERTIES_ADDED"
	MinPropertiesRemoved                                 = "MIN_PROPERTIES_REMOVED"
	MinPropertiesIncreased                               = "MIN_PROPERTIES_INCREASED"
	MinPropertiesDecreased                               = "MIN_PROPERTIES_DECREASED"
	AdditionalPropertiesAdded                            = "ADDITIONAL_PROPERTIES_ADDED"
	AdditionalPropertiesRemoved                          = "ADDITIONAL_PROPERTIES_REMOVED"
	AdditionalPropertiesExtended                         = "ADDITIONAL_PROPERTIES_EXTENDED"
	AdditionalPropertiesNarrowed                         = "ADDITIONAL_PROPERTIES_NARROWED"
	DependencyArrayAdded                                 = "DEPENDENCY_ARRAY_ADDED"
	DependencyArrayRemoved                               = "DEPENDENCY_ARRAY_REMOVED"
	DependencyArrayExtended                              = "DEPENDENCY_ARRAY_EXTENDED"
	DependencyArrayNarrowed                              = "DEPENDENCY_ARRAY_NARROWED"
	DependencyArrayChanged                               = "DEPENDENCY_ARRAY_CHANGED"
	DependencySchemaAdded                                = "DEPENDENCY_SCHEMA_ADDED"
	DependencySchemaRemoved                              = "DEPENDENCY_SCHEMA_REMOVED"
	PropertyAddedToOpenContentModel                      = "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
	RequiredPropertyAddedToOpenContentModel              = "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
	RequiredPropertyWithDefaultAddedToOpenContentModel   = "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL"
	OptionalPropertyAddedToOpenContentModel              = "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
	PropertyWithEmptySchemaAddedToOpenContentModel       = "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
	RequiredPropertyAddedToUnopenContentModel            = "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"
	RequiredPropertyWithDefaultAddedToUnopenContentModel = "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL"
	OptionalPropertyAddedToUnopenContentModel            = "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"
	PropertyRemovedFromOpenContentModel                  = "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL"
	PropertyWithFalseRemovedFromClosedContentModel       = "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
	PropertyRemovedFromClosedContentModel                = "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"
	PropertyRemovedIsCoveredByPartiallyOpenContentModel  = "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	PropertyRemovedNotCoveredByPartiallyOpenContentModel = "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	PropertyAddedIsCoveredByPartiallyOpenContentModel    = "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	PropertyAddedNotCoveredByPartiallyOpenContentModel   = "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	ReservedPropertyRemoved                              = "RESERVED_PROPERTY_REMOVED"
	ReservedPropertyConflictsWithProperty                = "RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY"
	UnevaluatedPropertiesAdded                           = "UNEVALUATED_PROPERTIES_ADDED"
	UnevaluatedPropertiesRemoved                         = "UNEVALUATED_PROPERTIES_REMOVED"
	UnevaluatedPropertiesExtended                        = "UNEVALUATED_PROPERTIES_EXTENDED"
	UnevaluatedPropertiesNarrowed                        = "UNEVALUATED_PROPERTIES_NARROWED"
	MaxItemsAdded                                        = "MAX_ITEMS_ADDED"
	MaxItemsRemoved                                      = "MAX_ITEMS_REMOVED"
	MaxItemsIncreased                                    = "MAX_ITEMS_INCREASED"
	MaxItemsDecreased                                    = "MAX_ITEMS_DECREASED"
	MinItemsAdded                                        = "MIN_ITEMS_ADDED"
	MinItemsRemoved                                      = "MIN_ITEMS_REMOVED"
	MinItemsIncreased                                    = "MIN_ITEMS_INCREASED"
	MinItemsDecreased                                    = "MIN_ITEMS_DECREASED"
	MaxContainsAdded                                     = "MAX_CONTAINS_ADDED"
	MaxContainsRemoved                                   = "MAX_CONTAINS_REMOVED"
	MaxContainsIncreased                                 = "MAX_CONTAINS_INCREASED"
	MaxContainsDecreased                                 = "MAX_CONTAINS_DECREASED"
	MinContainsAdded                                     = "MIN_CONTAINS_ADDED"
	MinContainsRemoved                                   = "MIN_CONTAINS_REMOVED"
	MinContainsIncreased                                 = "MIN_CONTAINS_INCREASED"
	MinContainsDecreased                                 = "MIN_CONTAINS_DECREASED"
	UniqueItemsAdded                                     = "UNIQUE_ITEMS_ADDED"
	UniqueItemsRemoved                                   = "UNIQUE_ITEMS_REMOVED"
	AdditionalItemsAdded                                 = "ADDITIONAL_ITEMS_ADDED"
	AdditionalItemsRemoved                               = "ADDITIONAL_ITEMS_REMOVED"
	AdditionalItemsExtended                              = "ADDITIONAL_ITEMS_EXTENDED"
	AdditionalItemsNarrowed                              = "ADDITIONAL_ITEMS_NARROWED"
	UnevaluatedItemsAdded                                = "UNEVALUATED_ITEMS_ADDED"
	UnevaluatedItemsRemoved                              = "UNEVALUATED_ITEMS_REMOVED"
	UnevaluatedItemsExtended                             = "UNEVALUATED_ITEMS_EXTENDED"
	UnevaluatedItemsNarrowed                             = "UNEVALUATED_ITEMS_NARROWED"
	ItemAddedToOpenContentModel                          = "ITEM_ADDED_TO_OPEN_CONTENT_MODEL"
	ItemWithEmptySchemaAddedToOpenContentModel           = "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
	ItemAddedToClosedContentModel                        = "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL"
	ItemRemovedFromOpenContentModel                      = "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL"
	ItemWithFalseRemovedFromClosedContentModel           = "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
	ItemRemovedFromClosedContentModel                    = "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"
	ItemRemovedIsCoveredByPartiallyOpenContentModel      = "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	ItemRemovedNotCoveredByPartiallyOpenContentModel     = "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	ItemAddedIsCoveredByPartiallyOpenContentModel        = "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	ItemAddedNotCoveredByPartiallyOpenContentModel       = "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	EnumArrayExtended                                    = "ENUM_ARRAY_EXTENDED"
	EnumArrayNarrowed                                    = "ENUM_ARRAY_NARROWED"
	EnumArrayChanged                                     = "ENUM_ARRAY_CHANGED"
	CombinedTypeExtended                                 = "COMBINED_TYPE_EXTENDED"
	CombinedTypeChanged                                  = "COMBINED_TYPE_CHANGED"
	ProductTypeExtended                                  = "PRODUCT_TYPE_EXTENDED"
	ProductTypeNarrowed                                  = "PRODUCT_TYPE_NARROWED"
	SumTypeExtended                                      = "SUM_TYPE_EXTENDED"
	SumTypeNarrowed                                      = "SUM_TYPE_NARROWED"
	CombinedTypeSubschemasChanged                        = "COMBINED_TYPE_SUBSCHEMAS_CHANGED"
	NotTypeExtended                                      = "NOT_TYPE_EXTENDED"
	NotTypeNarrowed                                      = "NOT_TYPE_NARROWED"
)

// ComparisonBudgetExceeded is the engine's own rule, not a registry type: the
// comparison stopped at MaxCompareSteps.
const ComparisonBudgetExceeded = "COMPARISON_BUDGET_EXCEEDED"

// rule is one difference type: its id, whether the registry counts it compatible
// (the STRICT policy), and its purpose.
type rule struct {
	id         string
	compatible bool
	purpose    string
}

// rules lists every difference type in the order of the registry's enum.
var rules = []rule{
	{IDChanged, true, "The schema's $id changed; values are not affected."},
	{DescriptionChanged, true, "A description changed; values are not affected."},
	{TitleChanged, true, "A title changed; values are not affected."},
	{DefaultChanged, true, "A default changed; values are not affected, readers that fill it in see another value."},
	{SchemaAdded, false, "A subschema (such as items) appears where any value was accepted, so earlier values may no longer match."},
	{SchemaRemoved, true, "A subschema (such as items) is gone, so any value is now accepted there."},
	{TypeExtended, true, "An integer became a number, so every earlier value still matches."},
	{TypeNarrowed, false, "A number became an integer, so earlier fractional values no longer match."},
	{TypeChanged, false, "A schema changed its kind (say string to number, or object to array), so earlier values no longer match."},
	{MaxLengthAdded, false, "maxLength was added, so earlier values may no longer match."},
	{MaxLengthRemoved, true, "maxLength was removed, so the schema accepts more."},
	{MaxLengthIncreased, true, "maxLength increased, so the schema accepts more."},
	{MaxLengthDecreased, false, "maxLength decreased, so earlier values may no longer match."},
	{MinLengthAdded, false, "minLength was added, so earlier values may no longer match."},
	{MinLengthRemoved, true, "minLength was removed, so the schema accepts more."},
	{MinLengthIncreased, false, "minLength increased, so earlier values may no longer match."},
	{MinLengthDecreased, true, "minLength decreased, so the schema accepts more."},
	{PatternAdded, false, "A string gained a pattern earlier values need not match."},
	{PatternRemoved, true, "A string lost its pattern, so it accepts more."},
	{PatternChanged, false, "A string's pattern changed, so earlier values may no longer match."},
	{MaximumAdded, false, "maximum was added, so earlier values may no longer match."},
	{MaximumRemoved, true, "maximum was removed, so the schema accepts more."},
	{MaximumIncreased, true, "maximum increased, so the schema accepts more."},
	{MaximumDecreased, false, "maximum decreased, so earlier values may no longer match."},
	{MinimumAdded, false, "minimum was added, so earlier values may no longer match."},
	{MinimumRemoved, true, "minimum was removed, so the schema accepts more."},
	{MinimumIncreased, false, "minimum increased, so earlier values may no longer match."},
	{MinimumDecreased, true, "minimum decreased, so the schema accepts more."},
	{ExclusiveMaximumAdded, false, "exclusiveMaximum was added, so earlier values may no longer match."},
	{ExclusiveMaximumRemoved, true, "exclusiveMaximum was removed, so the schema accepts more."},
	{ExclusiveMaximumIncreased, true, "exclusiveMaximum increased, so the schema accepts more."},
	{ExclusiveMaximumDecreased, false, "exclusiveMaximum decreased, so earlier values may no longer match."},
	{ExclusiveMinimumAdded, false, "exclusiveMinimum was added, so earlier values may no longer match."},
	{ExclusiveMinimumRemoved, true, "exclusiveMinimum was removed, so the schema accepts more."},
	{ExclusiveMinimumIncreased, false, "exclusiveMinimum increased, so earlier values may no longer match."},
	{ExclusiveMinimumDecreased, true, "exclusiveMinimum decreased, so the schema accepts more."},
	{MultipleOfAdded, false, "A number must now be a multiple of a value earlier values need not be."},
	{MultipleOfRemoved, true, "A number no longer needs to be a multiple of anything."},
	{MultipleOfExpanded, false, "multipleOf became a multiple of itself (say 2 to 4), so earlier values may no longer match."},
	{MultipleOfReduced, true, "multipleOf became a divisor of itself (say 4 to 2), so every earlier value still matches."},
	{MultipleOfChanged, false, "multipleOf changed to a value neither a multiple nor a divisor of the earlier one."},
	{RequiredAttributeAdded, false, "An existing property became required without a default, so earlier values without it no longer match."},
	{RequiredAttributeWithDefaultAdded, true, "An existing property became required and has a default readers fill in."},
	{RequiredAttributeRemoved, true, "A property is no longer required, so the schema accepts more."},
	{MaxPropertiesAdded, false, "maxProperties was added, so earlier values may no longer match."},
	{MaxPropertiesRemoved, true, "maxProperties was removed, so the schema accepts more."},
	{MaxPropertiesIncreased, true, "maxProperties increased, so the schema accepts more."},
	{MaxPropertiesDecreased, false, "maxProperties decreased, so earlier values may no longer match."},
	{MinPropertiesAdded, false, "minProperties was added, so earlier values may no longer match."},
	{MinPropertiesRemoved, true, "minProperties was removed, so the schema accepts more."},
	{MinPropertiesIncreased, false, "minProperties increased, so earlier values may no longer match."},
	{MinPropertiesDecreased, true, "minProperties decreased, so the schema accepts more."},
	{AdditionalPropertiesAdded, true, "An object that refused further properties now accepts them."},
	{AdditionalPropertiesRemoved, false, "An object that accepted further properties now refuses them (additionalProperties: false)."},
	{AdditionalPropertiesExtended, true, "additionalProperties lost its schema, so further properties may hold any value."},
	{AdditionalPropertiesNarrowed, false, "additionalProperties gained a schema, so further properties of earlier values may no longer match."},
	{DependencyArrayAdded, false, "A property now requires other properties beside it, which earlier values may lack."},
	{DependencyArrayRemoved, true, "A property no longer requires other properties beside it."},
	{DependencyArrayExtended, false, "A property requires more properties beside it than before."},
	{DependencyArrayNarrowed, true, "A property requires fewer properties beside it than before."},
	{DependencyArrayChanged, false, "A property requires other properties beside it than before."},
	{DependencySchemaAdded, false, "A property now brings a schema the whole object must match."},
	{DependencySchemaRemoved, true, "A property no longer brings a schema the whole object must match."},
	{PropertyAddedToOpenContentModel, false, "A property was added to an object that accepts any further property (kept for older registries; today's name says optional or required)."},
	{RequiredPropertyAddedToOpenContentModel, false, "A required property was added to an open object: earlier values may lack it, or hold it with any value."},
	{RequiredPropertyWithDefaultAddedToOpenContentModel, false, "A required property with a default was added to an open object, where earlier values may hold it with any value."},
	{OptionalPropertyAddedToOpenContentModel, false, "An optional property was added to an open object, where earlier values may already hold it with any value."},
	{PropertyWithEmptySchemaAddedToOpenContentModel, true, "A property that accepts any value was added to an open object."},
	{RequiredPropertyAddedToUnopenContentModel, false, "A required property without a default was added to a closed or partially open object, so earlier values lack it."},
	{RequiredPropertyWithDefaultAddedToUnopenContentModel, true, "A required property with a default was added to a closed or partially open object."},
	{OptionalPropertyAddedToUnopenContentModel, true, "An optional property was added to a closed or partially open object, where earlier values cannot hold it."},
	{PropertyRemovedFromOpenContentModel, true, "A property was removed from an open object, which still accepts it with any value."},
	{PropertyWithFalseRemovedFromClosedContentModel, true, "A property declared false (never present) was removed from a closed object."},
	{PropertyRemovedFromClosedContentModel, false, "A property was removed from a closed object, which now refuses earlier values that hold it."},
	{PropertyRemovedIsCoveredByPartiallyOpenContentModel, true, "A property was removed, and the object's pattern or additional properties still accept its earlier values."},
	{PropertyRemovedNotCoveredByPartiallyOpenContentModel, false, "A property was removed, and the object's pattern or additional properties refuse some of its earlier values."},
	{PropertyAddedIsCoveredByPartiallyOpenContentModel, true, "A property was added whose schema accepts what the object's pattern or additional properties accepted before."},
	{PropertyAddedNotCoveredByPartiallyOpenContentModel, false, "A property was added whose schema refuses some values the object's pattern or additional properties accepted before."},
	{ReservedPropertyRemoved, false, "A property name reserved in the subject's metadata is no longer reserved."},
	{ReservedPropertyConflictsWithProperty, false, "A property uses a name the subject's metadata reserves."},
	{UnevaluatedPropertiesAdded, true, "unevaluatedProperties no longer refuses further properties."},
	{UnevaluatedPropertiesRemoved, false, "unevaluatedProperties now refuses further properties."},
	{UnevaluatedPropertiesExtended, true, "unevaluatedProperties accepts more than before."},
	{UnevaluatedPropertiesNarrowed, false, "unevaluatedProperties gained a schema further properties must match."},
	{MaxItemsAdded, false, "maxItems was added, so earlier values may no longer match."},
	{MaxItemsRemoved, true, "maxItems was removed, so the schema accepts more."},
	{MaxItemsIncreased, true, "maxItems increased, so the schema accepts more."},
	{MaxItemsDecreased, false, "maxItems decreased, so earlier values may no longer match."},
	{MinItemsAdded, false, "minItems was added, so earlier values may no longer match."},
	{MinItemsRemoved, true, "minItems was removed, so the schema accepts more."},
	{MinItemsIncreased, false, "minItems increased, so earlier values may no longer match."},
	{MinItemsDecreased, true, "minItems decreased, so the schema accepts more."},
	{MaxContainsAdded, false, "maxContains was added, so earlier values may no longer match."},
	{MaxContainsRemoved, true, "maxContains was removed, so the schema accepts more."},
	{MaxContainsIncreased, true, "maxContains increased, so the schema accepts more."},
	{MaxContainsDecreased, false, "maxContains decreased, so earlier values may no longer match."},
	{MinContainsAdded, false, "minContains was added, so earlier values may no longer match."},
	{MinContainsRemoved, true, "minContains was removed, so the schema accepts more."},
	{MinContainsIncreased, false, "minContains increased, so earlier values may no longer match."},
	{MinContainsDecreased, true, "minContains decreased, so the schema accepts more."},
	{UniqueItemsAdded, false, "An array's items must now be unique, which earlier values need not be."},
	{UniqueItemsRemoved, true, "An array's items no longer need to be unique."},
	{AdditionalItemsAdded, true, "An array that refused items past its positional schemas now accepts them."},
	{AdditionalItemsRemoved, false, "An array that accepted items past its positional schemas now refuses them."},
	{AdditionalItemsExtended, true, "additionalItems lost its schema, so further items may hold any value."},
	{AdditionalItemsNarrowed, false, "additionalItems gained a schema, so further items of earlier values may no longer match."},
	{UnevaluatedItemsAdded, true, "unevaluatedItems no longer refuses further items."},
	{UnevaluatedItemsRemoved, false, "unevaluatedItems now refuses further items."},
	{UnevaluatedItemsExtended, true, "unevaluatedItems accepts more than before."},
	{UnevaluatedItemsNarrowed, false, "unevaluatedItems gained a schema further items must match."},
	{ItemAddedToOpenContentModel, false, "A positional item schema was added to an array that accepted any further item."},
	{ItemWithEmptySchemaAddedToOpenContentModel, true, "A positional item that accepts any value was added to an open array."},
	{ItemAddedToClosedContentModel, true, "A positional item was added to a closed array, where earlier values cannot have it."},
	{ItemRemovedFromOpenContentModel, true, "A positional item was removed from an array that accepts any further item."},
	{ItemWithFalseRemovedFromClosedContentModel, true, "A positional item declared false was removed from a closed array."},
	{ItemRemovedFromClosedContentModel, false, "A positional item was removed from a closed array, which now refuses earlier values that have it."},
	{ItemRemovedIsCoveredByPartiallyOpenContentModel, true, "A positional item was removed, and additionalItems still accepts its earlier values."},
	{ItemRemovedNotCoveredByPartiallyOpenContentModel, false, "A positional item was removed, and additionalItems refuses some of its earlier values."},
	{ItemAddedIsCoveredByPartiallyOpenContentModel, true, "A positional item was added whose schema accepts what additionalItems accepted before."},
	{ItemAddedNotCoveredByPartiallyOpenContentModel, false, "A positional item was added whose schema refuses some values additionalItems accepted before."},
	{EnumArrayExtended, true, "An enum gained values and kept all of its earlier ones."},
	{EnumArrayNarrowed, false, "An enum lost values, so earlier values may no longer match."},
	{EnumArrayChanged, false, "An enum or const changed its values, so earlier values may no longer match."},
	{CombinedTypeExtended, true, "A combination became one that accepts more (allOf or oneOf to anyOf, or between singletons)."},
	{CombinedTypeChanged, false, "A combination changed its kind (anyOf to oneOf or allOf) in a way that accepts less."},
	{ProductTypeExtended, false, "An allOf gained subschemas, so earlier values must match more."},
	{ProductTypeNarrowed, true, "An allOf lost subschemas (or a schema lost keywords beside its type), so it accepts more."},
	{SumTypeExtended, true, "An anyOf or oneOf gained subschemas (or a schema became one), so it accepts more."},
	{SumTypeNarrowed, false, "An anyOf or oneOf lost subschemas, so earlier values may no longer match."},
	{CombinedTypeSubschemasChanged, false, "Some subschema of a combination has no compatible counterpart in the other version."},
	{NotTypeExtended, false, "A not refuses more values than before."},
	{NotTypeNarrowed, true, "A not refuses fewer values than before."},
}

// engineRules are the engine's own rules, listed after the registry's.
var engineRules = []rule{
	{ComparisonBudgetExceeded, false, "The comparison stopped after visiting MaxCompareSteps (250,000) pairs of schemas, as combinations of many subschemas are compared with many; it counts as incompatible: split the schema, or check the change by hand."},
}

var compatibleSet = func() map[string]bool {
	m := make(map[string]bool, len(rules))
	for _, r := range rules {
		if r.compatible {
			m[r.id] = true
		}
	}
	return m
}()

var ruleByID = func() map[string]*rule {
	m := make(map[string]*rule, len(rules)+len(engineRules))
	for i := range rules {
		m[rules[i].id] = &rules[i]
	}
	for i := range engineRules {
		m[engineRules[i].id] = &engineRules[i]
	}
	return m
}()

// compatibleChange reports whether the registry accepts a difference of this type.
func compatibleChange(typ string) bool { return compatibleSet[typ] }
