package protobuf

import "testing"

// TestRegistryRulesCoverIncompatibleKinds: every difference kind that fails a check is
// listed with a purpose, and no compatible kind is.
func TestRegistryRulesCoverIncompatibleKinds(t *testing.T) {
	all := []string{
		PackageChanged, MessageAdded, MessageRemoved, MessageMoved, EnumAdded, EnumRemoved,
		EnumConstAdded, EnumConstChanged, EnumConstRemoved, FieldAdded, FieldRemoved,
		FieldNameChanged, FieldKindChanged, FieldScalarKindChanged, FieldNamedTypeChanged,
		FieldNumericLabelChanged, FieldStringOrBytesLabel, RequiredFieldAdded,
		RequiredFieldRemoved, OneofAdded, OneofRemoved, OneofFieldAdded, OneofFieldRemoved,
		OneofFieldMovedToTopLevel, MultipleFieldsMovedToOneof, FieldMovedToExistingOneof,
	}
	listed := map[string]bool{}
	for _, r := range RegistryRules() {
		if r.Purpose == "" {
			t.Errorf("%s has no purpose", r.ID)
		}
		if compatibleDifferences[r.ID] {
			t.Errorf("%s is listed as a rule but keeps a change compatible", r.ID)
		}
		listed[r.ID] = true
	}
	for _, k := range all {
		if !compatibleDifferences[k] && !listed[k] {
			t.Errorf("%s fails a check but is not in RegistryRules", k)
		}
	}
}
