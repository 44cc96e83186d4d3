package verdict

import (
	"strings"
	"testing"
)

const (
	groupV1 = "compatibility_group: {key: application.major.version, value: \"1\"}\n"
	groupV2 = "compatibility_group: {key: application.major.version, value: \"2\"}\n"
	// gmvUp migrates a record of group 1 to group 2 (it runs on group 1's records,
	// which have gmv_cents); gmvDown the other way (on group 2's, which have gmv).
	gmvUp = `  - name: gmv-up
    kind: TRANSFORM
    type: CEL_FIELD
    mode: UPGRADE
    expr: name == "gmv" ; message.gmv_cents
`
	gmvDown = `  - name: gmv-down
    kind: TRANSFORM
    type: CEL_FIELD
    mode: DOWNGRADE
    expr: name == "gmv_cents" ; message.gmv
`
)

// renameGMV commits dws.gmv-1min-value on compatibility group 1, then renames
// gmv_cents to gmv in group 2 with the given migration rules (YAML list items, ""
// for none); edit changes the base (consumers are read from it).
func renameGMV(t *testing.T, rules string, edit func(*scenarioRepo)) *Report {
	t.Helper()
	r := newScenarioRepo(t)
	r.write(gmvContract, r.read(gmvContract)+groupV1)
	if edit != nil {
		edit(r)
	}
	r.commit("gmv: group 1")
	r.replace(gmvSchema, `{"name": "gmv_cents",`, `{"name": "gmv",`)
	r.replace(gmvContract, "  gmv_cents:\n", "  gmv:\n")
	r.replace("contracts/dw/order-detail/consumers/dws-gmv-1min.yaml", "    gmv_cents: [amount_cents]", "    gmv: [amount_cents]")
	r.replace(gmvContract, groupV1, groupV2)
	if rules != "" {
		r.write(gmvContract, r.read(gmvContract)+"rules:\n"+rules)
	}
	r.commit("gmv: group 2")
	return Assess(r.input())
}

// A new major version with UPGRADE and DOWNGRADE rules naming the renamed field: no
// registry check (it is a new group), COMPATIBLE for the readers of group 1 (records
// reach them migrated), who sign off, and a calendar entry.
func TestNewGroupWithCompleteMigration(t *testing.T) {
	rep := renameGMV(t, gmvUp+gmvDown, nil)
	s := subjectOf(t, rep, "dws.gmv-1min-value")
	if s.Group == nil {
		t.Fatalf("no group change in %+v", s)
	}
	equal(t, "group", [3]string{s.Group.Key, s.Group.Old, s.Group.New}, [3]string{"application.major.version", "1", "2"})
	equal(t, "registry findings", len(s.Findings), 0)
	equal(t, "migration findings", s.Group.Migration, []MigrationFinding(nil))
	equal(t, "policy findings", len(s.Policy), 0)
	equal(t, "class", s.Class, Compatible)
	var readers []string
	for _, g := range s.Group.Readers {
		readers = append(readers, g.Consumer+"@"+g.Group)
	}
	equal(t, "readers", strings.Join(readers, ","), "doris-gmv-1min@1,gmv-dashboard@1")
	var teams []string
	for _, so := range rep.SignOffs {
		teams = append(teams, so.Team)
	}
	equal(t, "teams", strings.Join(teams, ","), "analytics,data-warehouse")
	if len(rep.Calendar) != 1 || !rep.Calendar[0].Required {
		t.Errorf("a new major version needs a calendar entry: %+v", rep.Calendar)
	}
	writeGoldens(t, "o-major-version-migrated", rep)
}

// Without the DOWNGRADE rule, readers of group 1 that read gmv_cents cannot read
// group 2's records: BREAKING, with a finding naming the field, the direction and the
// readers.
func TestNewGroupWithIncompleteMigration(t *testing.T) {
	rep := renameGMV(t, gmvUp, nil)
	s := subjectOf(t, rep, "dws.gmv-1min-value")
	equal(t, "class", s.Class, Breaking)
	if s.Group == nil || len(s.Group.Migration) != 1 {
		t.Fatalf("migration findings = %+v, want one", s.Group)
	}
	m := s.Group.Migration[0]
	equal(t, "finding", [4]string{m.Rule, m.Field, m.Direction, strings.Join(m.Consumers, ",")},
		[4]string{RuleMigrationMissing, "gmv_cents", "DOWNGRADE", "doris-gmv-1min,gmv-dashboard"})
	writeGoldens(t, "o-major-version-incomplete", rep)
}

// A DOWNGRADE rule that reads a field group 2 does not have (it was written against
// group 1's schema) does not type-check where it runs: it covers nothing.
func TestNewGroupWithMistypedMigration(t *testing.T) {
	rep := renameGMV(t, gmvUp+strings.Replace(gmvDown, "message.gmv\n", "message.gmv_cents\n", 1), nil)
	s := subjectOf(t, rep, "dws.gmv-1min-value")
	equal(t, "class", s.Class, Breaking)
	var rules []string
	for _, m := range s.Group.Migration {
		rules = append(rules, m.Rule+":"+m.Direction)
	}
	equal(t, "findings", strings.Join(rules, ","), RuleMigrationInvalid+":DOWNGRADE,"+RuleMigrationMissing+":DOWNGRADE")
}

// A reader that already declares group 2 (in the base: it deployed with
// use.latest.with.metadata application.major.version=2) is not affected, and the
// verdict says so.
func TestNewGroupReaderAlreadyMoved(t *testing.T) {
	rep := renameGMV(t, gmvUp, func(r *scenarioRepo) {
		const dash = "contracts/dws/gmv-1min/consumers/gmv-dashboard.yaml"
		r.write(dash, strings.Replace(r.read(dash), "gmv_cents", "gmv", 1)+"group: \"2\"\n")
	})
	s := subjectOf(t, rep, "dws.gmv-1min-value")
	for _, a := range s.Affected {
		if a.Name == "gmv-dashboard" {
			t.Errorf("gmv-dashboard reads group 2 and is affected: %+v", a)
		}
	}
	equal(t, "consumers of the finding", strings.Join(s.Group.Migration[0].Consumers, ","), "doris-gmv-1min")
}
