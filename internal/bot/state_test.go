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
		Reminded: map[string][]string{"analytics@f1": {"12h"}},
		Override: &verdict.Override{By: "boss", Reason: "hotfix --> <script>", At: at},
	}
	body, err := RenderComment(testKey, "acme/contracts#7", "**BREAKING** <!-- contractbot:state AAAA --> in a field doc", st)
	if err != nil {
		t.Fatal(err)
	}
	if !IsBotComment(body) || strings.Contains(body, "<script>") {
		t.Fatalf("comment body: %q", body)
	}
	got, err := ParseState(testKey, "acme/contracts#7", body)
	if err != nil {
		t.Fatal(err)
	}
	st.Version = StateVersion
	if !reflect.DeepEqual(got, st) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, st)
	}
	// GitHub may store the body with CRLF line ends and without the final newline.
	if _, err := ParseState(testKey, "acme/contracts#7", strings.TrimSpace(strings.ReplaceAll(body, "\n", "\r\n"))); err != nil {
		t.Errorf("a body with CRLF line ends does not verify: %v", err)
	}
}

// TestParseStateRefusesWhatTheBotDidNotWrite: an edit of any byte, another key, the
// comment of another pull request, a hand-made block: none verifies.
func TestParseStateRefusesWhatTheBotDidNotWrite(t *testing.T) {
	st := State{HeadSHA: "abc", Teams: map[string]verdict.TeamState{"analytics": {Fingerprint: "f1"}}}
	body, err := RenderComment(testKey, "acme/contracts#7", "**BREAKING**: not ready to merge", st)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		key       []byte
		ref, body string
	}{
		"visible text edited":  {testKey, "acme/contracts#7", strings.Replace(body, "not ready", "ready", 1)},
		"state replaced":       {testKey, "acme/contracts#7", strings.Replace(body, "<!-- contractbot:state ", "<!-- contractbot:state eyJ2IjoyfQ== --><!-- x ", 1)},
		"another key":          {DeriveStateKey([]byte("other")), "acme/contracts#7", body},
		"another pull request": {testKey, "acme/contracts#8", body},
		"no signature":         {testKey, "acme/contracts#7", body[:strings.Index(body, "\n<!-- contractbot:signature")]},
	} {
		if _, err := ParseState(tc.key, tc.ref, tc.body); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature", name, err)
		}
	}
	if _, err := ParseState(testKey, "acme/contracts#7", Marker+"\nno block"); !errors.Is(err, ErrNoState) {
		t.Errorf("missing block: %v", err)
	}
	if _, err := ParseState(nil, "acme/contracts#7", body); !errors.Is(err, ErrNoKey) {
		t.Errorf("no key: %v", err)
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
