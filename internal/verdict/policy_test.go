package verdict

import (
	"strings"
	"testing"
)

const gmvContract = "contracts/dws/gmv-1min/contract.yaml"

// sourceField is a field of dws.gmv-1min-value that no consumer reads, with a default:
// removing it passes the registry at BACKWARD and reaches nobody.
const sourceField = `    {"name": "source", "type": "string", "default": "flink", "doc": "Job that computed the row."},
`

// removeSource commits a version of dws.gmv-1min-value with source (and meta, a
// YAML block for contract.yaml's fields:, and policy, keys added to contract.yaml),
// then removes source and its metadata in the working tree.
func removeSource(r *scenarioRepo, meta, extra string) {
	r.t.Helper()
	r.replace(gmvSchema, `"fields": [
`, `"fields": [
`+sourceField)
	if meta != "" {
		r.replace(gmvContract, "fields:\n", "fields:\n"+meta)
	}
	if extra != "" {
		r.write(gmvContract, r.read(gmvContract)+extra)
	}
	r.commit("gmv: source")
	r.replace(gmvSchema, sourceField, "")
	if meta != "" {
		r.replace(gmvContract, meta, "")
	}
}

func runRemoveSource(t *testing.T, meta, extra string, baseEdit, headEdit func(*scenarioRepo)) *Report {
	t.Helper()
	r := newScenarioRepo(t)
	if baseEdit != nil {
		baseEdit(r)
	}
	removeSource(r, meta, extra)
	if headEdit != nil {
		headEdit(r)
	}
	r.commit("gmv: no source")
	in := r.input()
	return Assess(in)
}

const deprecatedSource = `  source:
    deprecated: {since: "2026-10-01", remove_after: "%s", replacement: channel}
`

// The removal policy (issue 18): removing a field nobody reads, that has a default, was
// SAFE; on a core subject it is BREAKING by policy unless it was deprecated and its
// remove_after day has passed.
func TestRemovalPolicy(t *testing.T) {
	cases := []struct {
		name, meta, extra string
		base, head        func(*scenarioRepo)
		class             Class
		rule              string
	}{
		{name: "not deprecated, core", class: Breaking, rule: RuleRemovedNotDeprecated},
		{name: "after remove_after", meta: strings.Replace(deprecatedSource, "%s", "2026-11-15", 1), class: Safe},
		{name: "before remove_after", meta: strings.Replace(deprecatedSource, "%s", "2027-01-31", 1), class: Breaking, rule: RuleRemovedEarly},
		{name: "policy off", extra: "policy:\n  removal: off\n", class: Safe},
		{name: "policy warn", extra: "policy:\n  removal: warn\n", class: Compatible, rule: RuleRemovedNotDeprecated},
		{name: "standard tier defaults to strict too", base: func(r *scenarioRepo) {
			r.replace(gmvContract, "tier: core", "tier: standard")
		}, class: Breaking, rule: RuleRemovedNotDeprecated},
		{name: "standard tier opts out with warn", base: func(r *scenarioRepo) {
			r.replace(gmvContract, "tier: core", "tier: standard")
		}, extra: "policy:\n  removal: warn\n", class: Compatible, rule: RuleRemovedNotDeprecated},
		{name: "loosened in the same change", head: func(r *scenarioRepo) {
			r.write(gmvContract, r.read(gmvContract)+"policy:\n  removal: off\n")
		}, class: Breaking, rule: RuleRemovedNotDeprecated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := runRemoveSource(t, c.meta, c.extra, c.base, c.head)
			checkPolicy(t, rep, c.class, c.rule)
		})
	}
}

func checkPolicy(t *testing.T, r *Report, class Class, rule string) {
	t.Helper()
	s := subjectOf(t, r, "dws.gmv-1min-value")
	equal(t, "registry compatible", s.Compatible, true)
	equal(t, "affected", len(s.Affected), 0)
	equal(t, "class", s.Class, class)
	if rule == "" {
		equal(t, "policy findings", len(s.Policy), 0)
		return
	}
	if len(s.Policy) != 1 {
		t.Fatalf("policy findings = %+v, want one %s", s.Policy, rule)
	}
	p := s.Policy[0]
	equal(t, "policy finding", [4]any{p.Rule, p.Path, p.File, p.Line}, [4]any{rule, "source", gmvSchema, 7})
	if class == Breaking {
		if len(r.Calendar) == 0 || !r.Calendar[0].Required {
			t.Errorf("a change BREAKING by policy needs a calendar entry: %+v", r.Calendar)
		}
	}
}

// A consumer that reads a deprecated field is named with the change (lint warns in its
// file: see internal/contract).
func TestDeprecatedReadNoted(t *testing.T) {
	r := newScenarioRepo(t)
	r.replace(gmvContract, "fields:\n", "fields:\n  buyer_count:\n    deprecated: {since: \"2026-11-01\", remove_after: \"2027-03-01\", replacement: order_count}\n")
	r.commit("deprecate buyer_count")
	promoteOrderCount(r)
	r.commit("promote")
	rep := Assess(r.input())
	s := subjectOf(t, rep, "dws.gmv-1min-value")
	want := "consumer doris-gmv-1min (team data-warehouse) still reads buyer_count, deprecated since 2026-11-01, to be removed after 2027-03-01; it should read order_count"
	found := false
	for _, n := range s.Notes {
		found = found || n == want
	}
	if !found {
		t.Errorf("notes %q lack %q", s.Notes, want)
	}
}

// Opting out of the strict default is itself a change the subject's readers sign off
// (issue 33): the pull request that loosens the policy asks every consumer's team,
// whatever else it changes; tightening it asks nobody.
func TestLooseningRemovalNeedsSignOff(t *testing.T) {
	for _, c := range []struct {
		name, base, head string
		teams            []string
	}{
		{name: "strict to warn", head: "policy:\n  removal: warn\n", teams: []string{"analytics", "data-warehouse"}},
		{name: "default to off", head: "policy:\n  removal: off\n", teams: []string{"analytics", "data-warehouse"}},
		{name: "warn to strict", base: "policy:\n  removal: warn\n", head: "policy:\n  removal: strict\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newScenarioRepo(t)
			orig := r.read(gmvContract)
			if c.base != "" {
				r.write(gmvContract, orig+c.base)
				r.commit("base policy")
			}
			r.write(gmvContract, orig+c.head)
			r.commit("head policy")
			rep := Assess(r.input())
			s := subjectOf(t, rep, "dws.gmv-1min-value")
			var teams []string
			for _, so := range rep.SignOffs {
				teams = append(teams, so.Team)
			}
			equal(t, "teams", strings.Join(teams, ","), strings.Join(c.teams, ","))
			if c.teams == nil {
				equal(t, "class", s.Class, Safe)
				return
			}
			equal(t, "class", s.Class, Compatible)
			if len(s.Governance) != 1 || !strings.Contains(s.Governance[0], "removal policy is loosened") {
				t.Errorf("governance = %q, want the loosened removal policy", s.Governance)
			}
		})
	}
}
