package avro

import (
	"github.com/contractbot/contractbot/checker"
	"github.com/hamba/avro/v2"
)

// The rule ids: the incompatibility kinds of the reference implementation (Java's
// org.apache.avro.SchemaCompatibility), which the Confluent Schema Registry reports.
const (
	ruleNameMismatch         = "NAME_MISMATCH"
	ruleFixedSizeMismatch    = "FIXED_SIZE_MISMATCH"
	ruleMissingEnumSymbols   = "MISSING_ENUM_SYMBOLS"
	ruleReaderFieldNoDefault = "READER_FIELD_MISSING_DEFAULT_VALUE"
	ruleTypeMismatch         = "TYPE_MISMATCH"
	ruleMissingUnionBranch   = "MISSING_UNION_BRANCH"
)

// site says where the walker applies a rule.
type site int

const (
	// siteSameType: a reader and a writer element of the same type (kinds lists which).
	siteSameType site = iota + 1
	// siteTypeDiffers: elements of different types, neither a union.
	siteTypeDiffers
	// siteFieldUnmatched: a reader field with no writer field by name or alias.
	siteFieldUnmatched
	// siteUnion: a writer union branch, or a writer type, no reader branch can read.
	siteUnion
)

// rule is one compatibility rule: an id, a one-sentence purpose, where it applies, a
// check of one pair and the sentence a person reads.
type rule struct {
	id      string
	purpose string
	site    site
	kinds   []avro.Type
	check   func(w *walker, p pair) []issue
	message func(is *issue, dir checker.Direction, against int) string
}

// ruleTable lists the rules, in the order they are applied to one pair. It is a
// function (not a variable) because rule bodies call back into the walker.
func ruleTable() []*rule {
	return []*rule{
		{
			id:      ruleNameMismatch,
			purpose: "A named type (record, enum, fixed) is read by a type of the same name, or one that lists the writer's full name among its aliases.",
			site:    siteSameType,
			kinds:   []avro.Type{avro.Record, avro.Enum, avro.Fixed},
			check:   checkNames,
			message: messageNames,
		},
		{
			id:      ruleFixedSizeMismatch,
			purpose: "A fixed type is read by a fixed type of the same size.",
			site:    siteSameType,
			kinds:   []avro.Type{avro.Fixed},
			check:   checkFixedSize,
			message: messageFixedSize,
		},
		{
			id:      ruleMissingEnumSymbols,
			purpose: "Every symbol the writer's enum can hold is a symbol of the reader's enum, unless the reader's enum has a default symbol.",
			site:    siteSameType,
			kinds:   []avro.Type{avro.Enum},
			check:   checkEnumSymbols,
			message: messageEnumSymbols,
		},
		{
			id:      ruleReaderFieldNoDefault,
			purpose: "A reader field the writer does not have (by name or alias) has a default value.",
			site:    siteFieldUnmatched,
			check:   checkFieldDefault,
			message: messageFieldDefault,
		},
		{
			id:      ruleTypeMismatch,
			purpose: "A reader type reads a writer type of another kind only by a promotion of the specification (int to long, float or double; long to float or double; float to double; string and bytes both ways).",
			site:    siteTypeDiffers,
			check:   checkPromotion,
			message: messageTypeMismatch,
		},
		{
			id:      ruleMissingUnionBranch,
			purpose: "Every branch a writer union can hold, or the writer's one type, is readable by some branch of the reader union.",
			site:    siteUnion,
			check:   checkUnionBranch,
			message: messageUnionBranch,
		},
	}
}

// Rule describes one compatibility rule for documentation and listings.
type Rule = checker.Rule

// Rules lists the compatibility rules the engine applies.
func Rules() []Rule {
	t := ruleTable()
	out := make([]Rule, len(t))
	for i, r := range t {
		out[i] = Rule{ID: r.id, Purpose: r.purpose}
	}
	return out
}

// ruleIndex finds rules by site and element type.
type ruleIndex struct {
	byID   map[string]*rule
	bySite map[site]map[avro.Type][]*rule
	any    map[site][]*rule
}

func newRuleIndex() *ruleIndex {
	ix := &ruleIndex{byID: map[string]*rule{}, bySite: map[site]map[avro.Type][]*rule{}, any: map[site][]*rule{}}
	for _, r := range ruleTable() {
		ix.byID[r.id] = r
		if len(r.kinds) == 0 {
			ix.any[r.site] = append(ix.any[r.site], r)
			continue
		}
		if ix.bySite[r.site] == nil {
			ix.bySite[r.site] = map[avro.Type][]*rule{}
		}
		for _, k := range r.kinds {
			ix.bySite[r.site][k] = append(ix.bySite[r.site][k], r)
		}
	}
	return ix
}

// rules returns the rules for a site and element type.
func (ix *ruleIndex) rules(s site, k avro.Type) []*rule {
	if rs := ix.any[s]; len(rs) > 0 {
		return rs
	}
	return ix.bySite[s][k]
}
