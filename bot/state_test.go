package bot

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/verdict"
)

func TestStateRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	st := State{
		HeadSHA: "abc123", EvaluatedAt: at, Class: "BREAKING",
		Teams:    map[string]verdict.TeamState{"analytics": {Fingerprint: "f1", RequestedAt: at}},
		Reminded: map[string][]string{"analytics": {"12h"}},
		Override: &verdict.Override{By: "boss", Reason: "hotfix --> <script>", At: at},
	}
	body, err := RenderComment("**BREAKING** <!-- contractbot:state AAAA --> in a field doc", st)
	if err != nil {
		t.Fatal(err)
	}
	if !IsBotComment(body) || strings.Contains(body, "<script>") {
		t.Fatalf("comment body: %q", body)
	}
	got, err := ParseState(body)
	if err != nil {
		t.Fatal(err)
	}
	st.Version = StateVersion
	if !reflect.DeepEqual(got, st) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, st)
	}
}

func TestParseStateRefusesDamage(t *testing.T) {
	if _, err := ParseState(Marker + "\nno block"); !errors.Is(err, ErrNoState) {
		t.Errorf("missing block: %v", err)
	}
	if _, err := ParseState("<!-- contractbot:state bm90IGpzb24= -->"); err == nil {
		t.Error("a block that is not JSON was accepted")
	}
	if _, err := ParseState("<!-- contractbot:state eyJ2Ijo5OX0= -->"); err == nil {
		t.Error("a state of an unknown version was accepted")
	}
}

func TestLabelsMirrorTheVerdict(t *testing.T) {
	r := &verdict.Report{Class: verdict.Breaking, SignOffs: []*verdict.SignOff{{Status: verdict.Overdue}}}
	want := WantLabels(r)
	add, remove := LabelChanges([]string{LabelSafe, "team: orders", LabelBreaking}, want)
	if !reflect.DeepEqual(add, []string{LabelOverdue}) || !reflect.DeepEqual(remove, []string{LabelSafe}) {
		t.Errorf("add %v remove %v", add, remove)
	}
	add, remove = LabelChanges(want, want)
	if len(add)+len(remove) != 0 {
		t.Errorf("converged labels still change: %v %v", add, remove)
	}
}

func TestConclusion(t *testing.T) {
	for _, tc := range []struct {
		r    verdict.Report
		want string
	}{
		{verdict.Report{Class: verdict.Safe, Ready: true}, ConclusionSuccess},
		{verdict.Report{Class: verdict.Breaking}, ConclusionActionRequired},
		{verdict.Report{Class: verdict.Safe, Ready: false, Lint: contract.Diagnostics{{}}}, ConclusionFailure},
		{verdict.Report{Class: verdict.Breaking, Ready: true, Override: &verdict.Override{By: "a"}}, ConclusionSuccess},
		{verdict.Report{Subjects: []*verdict.SubjectReport{{Error: "does not parse"}}}, ConclusionFailure},
	} {
		if got := Conclusion(&tc.r); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.r, got, tc.want)
		}
	}
}
