package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker/located"
)

// stub is a schema that only has a name; the loop never looks inside.
type stub string

func (stub) Format() Format              { return "stub" }
func (stub) FieldPaths() []string        { return nil }
func (stub) Pos(string) (int, int, bool) { return 0, 0, false }
func (stub) Dependencies() []string      { return nil }
func (stub) FieldGraph() *FieldGraph     { return nil }
func (stub) FieldPathsCut() *InputError  { return nil }
func versionsOf(names ...string) []Version {
	out := make([]Version, len(names))
	for i, n := range names {
		if n != "" {
			out[i].Schema = stub(n)
		}
	}
	return out
}

// record is a Pairwise that reports one finding per call, naming what was compared.
func record(onePerPlace bool, always bool) Pairwise {
	p := Pairwise{
		OnePerPlace: onePerPlace,
		Compare: func(prev Schema, dir Direction, against int) []Finding {
			return []Finding{{Rule: "R", Path: string(prev.(stub)), Against: against, Direction: dir, Message: string(dir)}}
		},
	}
	if always {
		p.Always = func(prev Schema, _ int) []Finding {
			return []Finding{{Rule: "A", Path: string(prev.(stub))}}
		}
	}
	return p
}

func summary(r *Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s %s v%d %s", f.Rule, f.Path, f.Against, f.Direction))
	}
	return out
}

func TestCheckLevel(t *testing.T) {
	tests := []struct {
		name  string
		level Level
		prev  []Version
		p     Pairwise
		want  []string
	}{
		{"backward: the latest only", Backward, versionsOf("v1", "v2"), record(false, false),
			[]string{"R v2 v2 backward"}},
		{"forward", Forward, versionsOf("v1", "v2"), record(false, false),
			[]string{"R v2 v2 forward"}},
		{"full: both directions, both kept", Full, versionsOf("v1"), record(false, false),
			[]string{"R v1 v1 backward", "R v1 v1 forward"}},
		{"full, one per place: the backward one kept", Full, versionsOf("v1"), record(true, false),
			[]string{"R v1 v1 backward"}},
		{"transitive: every version, nil skipped", BackwardTransitive, versionsOf("v1", "", "v3"), record(false, false),
			[]string{"R v1 v1 backward", "R v3 v3 backward"}},
		{"numbers from the history", BackwardTransitive, []Version{{stub("a"), 4}, {stub("b"), 0}}, record(false, false),
			[]string{"R a v4 backward", "R b v2 backward"}},
		{"none: no direction", None, versionsOf("v1"), record(false, false), nil},
		{"none: Always still runs, numbered", None, versionsOf("v1", "v2"), record(false, true),
			[]string{"A v2 v2 "}},
		{"no earlier version", FullTransitive, nil, record(false, true), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := CheckLevel(tt.level, tt.prev, stub("next"), tt.p)
			got := summary(res)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
			if res.Compatible != (len(tt.want) == 0) || res.Level != tt.level {
				t.Errorf("compatible=%v level=%s, want %v %s", res.Compatible, res.Level, len(tt.want) == 0, tt.level)
			}
		})
	}
	if res := CheckLevel(Full, versionsOf("v1"), nil, record(false, true)); !res.Compatible || len(res.Findings) != 0 {
		t.Errorf("a missing new schema: %+v, want compatible with no findings", res)
	}
}

// A check that finds more than MaxFindings incompatibilities lists MaxFindings and one
// more finding that counts the rest, at the first one left out.
func TestCheckLevelCutsFindings(t *testing.T) {
	n := MaxFindings + 25
	res := CheckLevel(Backward, versionsOf("v1"), stub("v2"), Pairwise{Compare: func(prev Schema, dir Direction, against int) []Finding {
		out := make([]Finding, n)
		for i := range out {
			out[i] = Finding{Rule: "R", Path: fmt.Sprint(i), Span: located.Span{File: "f", Line: i + 1, Column: 1}, Against: against, Direction: dir}
		}
		return out
	}})
	if len(res.Findings) != MaxFindings+1 || res.Compatible {
		t.Fatalf("%d findings", len(res.Findings))
	}
	var cut *Finding
	for i := range res.Findings {
		if res.Findings[i].Rule == RuleFindingsCut {
			cut = &res.Findings[i]
		}
	}
	if cut == nil || cut.Line != MaxFindings+1 || !strings.HasPrefix(cut.Message, "25 more incompatibilities") {
		t.Errorf("the cut finding: %+v", cut)
	}
}

// When what is left out includes an engine's own cut finding (a comparison that stopped
// counting), the check's cut gives no number: "1 more" would say far too few (issue 13).
func TestCheckLevelCutWithoutACount(t *testing.T) {
	for name, tc := range map[string]struct {
		extra []Finding
		want  string
	}{
		"engine cut left out": {[]Finding{{Rule: RuleFindingsCut, Span: located.Span{File: "f", Line: MaxFindings + 1, Column: 1}}}, "More incompatibilities were not listed: the list stops at 10000"},
		"one left out":        {[]Finding{{Rule: "R", Span: located.Span{File: "f", Line: MaxFindings + 1, Column: 1}}}, "1 more incompatibility is not listed"},
	} {
		t.Run(name, func(t *testing.T) {
			res := CheckLevel(Backward, versionsOf("v1"), stub("v2"), Pairwise{Compare: func(prev Schema, dir Direction, against int) []Finding {
				out := make([]Finding, MaxFindings, MaxFindings+1)
				for i := range out {
					out[i] = Finding{Rule: "R", Path: fmt.Sprint(i), Span: located.Span{File: "f", Line: i + 1, Column: 1}, Against: against, Direction: dir}
				}
				for _, e := range tc.extra {
					e.Against, e.Direction = against, dir
					out = append(out, e)
				}
				return out
			}})
			var cuts []string
			for _, f := range res.Findings {
				if f.Rule == RuleFindingsCut {
					cuts = append(cuts, f.Message)
				}
			}
			if len(res.Findings) != MaxFindings+1 || len(cuts) != 1 || !strings.HasPrefix(cuts[0], tc.want) {
				t.Errorf("%d findings, cut: %q; want one starting %q", len(res.Findings), cuts, tc.want)
			}
		})
	}
}
