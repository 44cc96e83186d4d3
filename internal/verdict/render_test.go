package verdict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/impact"
)

// hostile are texts a schema or contract file could carry to attack the comment.
var hostile = []string{
	`<script>alert(1)</script>`,
	`@everyone please look`,
	`[click](javascript:alert(1))`,
	`x](javascript:alert(1))`,
	"a | b | c",
	"``` code fence",
	"`inline`",
	"line one\n# heading\n- item",
	"<img src=x onerror=alert(1)>",
	"**bold** _em_ ~~strike~~ ![img](x)",
	"&#64;team &lt;b&gt;",
	"back\\slash",
	"\x1b[31mred\x1b[0m\r",
	"<!-- comment -->",
	"@acme/analytics",
}

// unescaped finds a Markdown or HTML special character not preceded by a backslash.
var unescaped = regexp.MustCompile("(^|[^\\\\])(\\\\\\\\)*[`*_\\[\\]()<>#|~!&]")

func TestEscapeMarkdown(t *testing.T) {
	for _, s := range hostile {
		got := escapeMarkdown(s)
		if loc := unescaped.FindStringIndex(got); loc != nil {
			t.Errorf("escapeMarkdown(%q) = %q: unescaped special character at %d", s, got, loc[1]-1)
		}
		if strings.ContainsAny(got, "\n\r\x1b") {
			t.Errorf("escapeMarkdown(%q) = %q: keeps a line break or control character", s, got)
		}
		if i := strings.Index(got, "@"); i >= 0 && !strings.HasPrefix(got[i:], "@\u200b") {
			t.Errorf("escapeMarkdown(%q) = %q: @ can still mention", s, got)
		}
	}
	for in, want := range map[string]string{
		`<script>alert(1)</script>`: `\<script\>alert\(1\)\</script\>`,
		`@everyone`:                 "@\u200beveryone",
		`](javascript:x)`:           `\]\(javascript:x\)`,
		"a|b":                       `a\|b`,
		"`x`":                       "\\`x\\`",
		"plain words, dots. ok":     "plain words, dots. ok",
	} {
		if got := escapeMarkdown(in); got != want {
			t.Errorf("escapeMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCodeSpan(t *testing.T) {
	for in, want := range map[string]string{
		"product_info.detail.price": "`product_info.detail.price`",
		"<script>":                  "`<script>`", // inert inside a code span
		"a`b":                       "a\\`b",      // a backtick cannot sit in a code span
		"a|b":                       `a\|b`,       // a pipe would split a table cell
		"":                          "",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMention(t *testing.T) {
	for in, want := range map[string]string{
		"@acme/data-warehouse": "@acme/data-warehouse",
		"dana":                 "@dana",
		"@everyone<b>":         "@\u200beveryone\\<b\\>",
		"@acme/x](javascript:": "@\u200bacme/x\\]\\(javascript:",
	} {
		if got := mention(in); got != want {
			t.Errorf("mention(%q) = %q, want %q", in, got, want)
		}
	}
}

// hostileReport is a report whose every text from the tree is an attack.
func hostileReport() *Report {
	evil := strings.Join(hostile, " ")
	change := checker.Change{Kind: checker.FieldRemoved, Path: "amount<script>", Old: "long|x", Effect: checker.Breaks,
		File: "contracts/o/x/s.avsc", Line: 3, Column: 5, Message: evil}
	return &Report{
		Class: Breaking, Now: now,
		Subjects: []*SubjectReport{{
			Subject: "evil`subject", Kind: Modified, Dir: "contracts/o/x", Format: "avro", Owner: "team|x", Tier: "core",
			SchemaFile: "contracts/o/x/s.avsc", Class: Breaking, Level: "BACKWARD", Compatible: false,
			Findings: []checker.Finding{{Rule: "TYPE_MISMATCH", Path: "a|b", Span: located.Span{File: "contracts/o/x/s.avsc", Line: 7, Column: 9}, Message: evil}},
			Changes:  []checker.Change{change},
			Affected: []impact.Affected{{
				Name: "@everyone", Subject: "evil`subject", Owner: "<b>owner</b>", Kind: "sink", Direct: true, Effect: checker.Breaks,
				Hits: []impact.Hit{{Read: "*", Field: "amount<script>", Change: change, Effect: checker.Breaks,
					Chain: []impact.Step{{Subject: "evil`subject", Field: "amount<script>"}}}},
			}},
			Governance: []string{evil},
			Notes:      []string{evil},
		}},
		SignOffs: []*SignOff{{
			Team: "analytics", Handles: []string{"@acme/analytics", "@everyone<b>"}, Status: Pending,
			For:         []ConsumerRef{{Subject: "evil`subject", Consumer: "@everyone", Effect: checker.Breaks, Fields: []string{"x](javascript:alert(1))"}, Reason: evil}},
			RequestedAt: openedAt, Deadline: openedAt.Add(24 * time.Hour), Dropped: evil,
		}},
		Calendar: []*CalendarCheck{{Subject: "evil`subject", Required: true, Problems: []string{evil},
			SuggestionFile: "calendar/2026-12-03-evil.yaml", Suggestion: "title: \"```\\n# not a heading\"\nnotes: |\n  ```\n  @everyone\n"}},
		Lint:     contract.Diagnostics{{Span: located.Span{File: "contracts/o/x/consumers/c.yaml", Line: 2, Column: 1}, Severity: contract.Error, Code: "yaml-syntax", Message: evil}},
		Blockers: []string{evil},
	}
}

// TestMarkdownHostile renders a report full of attacks: nothing may become HTML, a
// link, a heading, a table row or a mention, except the sign-off team's handle.
func TestMarkdownHostile(t *testing.T) {
	md := Markdown(hostileReport(), goldenOptions)
	golden(t, "hostile.md", []byte(md))
	inFence := false
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, "````") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue // a code block: inert, and its fence is longer than any run inside
		}
		if strings.HasPrefix(trimmed, "#") && !strings.HasPrefix(trimmed, "### ") {
			t.Errorf("line %d starts a heading: %q", i+1, line)
		}
		if strings.HasPrefix(line, "|") && strings.Count(unescapePipes(line), "|") != 6 {
			t.Errorf("line %d: table row with extra cells: %q", i+1, line)
		}
		for _, bad := range []string{"<script", "<img", "<b>", "<!--", "](javascript", "@everyone"} {
			if containsUnescaped(stripCodeSpans(line), bad) {
				t.Errorf("line %d carries %q unescaped: %q", i+1, bad, line)
			}
		}
		if strings.ContainsAny(line, "\x1b\r") {
			t.Errorf("line %d carries a control character: %q", i+1, line)
		}
	}
	if inFence {
		t.Error("a code fence is left open")
	}
	if !strings.Contains(md, "(@acme/analytics, @\u200beveryone\\<b\\>)") {
		t.Error("the team handle is not a real mention, or the hostile handle is not escaped")
	}
}

// unescapePipes drops escaped pipes, which do not split a table cell.
func unescapePipes(s string) string { return strings.ReplaceAll(s, `\|`, "") }

// stripCodeSpans removes code spans, inside which text is shown literally, as
// CommonMark finds them: a backslash-escaped backtick opens nothing, and a span closes
// at the next run of as many backticks.
func stripCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i += 2
		case s[i] == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := strings.Repeat("`", n)
			end := strings.Index(s[i+n:], fence)
			if end < 0 {
				b.WriteString(fence)
				i += n
				continue
			}
			i += n + end + n
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// containsUnescaped reports whether bad occurs in s without a backslash before it.
func containsUnescaped(s, bad string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], bad)
		if j < 0 {
			return false
		}
		if i+j == 0 || s[i+j-1] != '\\' {
			return true
		}
		i += j + 1
	}
}

func TestTextHostile(t *testing.T) {
	out := Text(hostileReport())
	if strings.ContainsAny(out, "\x1b\r") {
		t.Errorf("terminal output carries a control character:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "# heading") || strings.HasPrefix(line, "- item") {
			t.Errorf("a line break in the data started a new line: %q", line)
		}
	}
}

func TestGitHubActionsEscaping(t *testing.T) {
	r := &Report{Class: Breaking, Now: now, Blockers: []string{"50% done\nnext"}, Subjects: []*SubjectReport{{
		Subject: "s", Kind: Modified, SchemaFile: "contracts/a,b/x:y.avsc", Class: Breaking,
		Findings: []checker.Finding{{Rule: "R", Path: "p,q", Span: located.Span{File: "contracts/a,b/x:y.avsc", Line: 2, Column: 3}, Message: "100%\r\n::error::forged"}},
	}}}
	got := GitHubActions(r)
	want := "::error file=contracts/a%2Cb/x%3Ay.avsc,line=2,endLine=2,col=3,endColumn=3,title=R at p%2Cq::100%25%0D%0A::error::forged\n" +
		"::error title=contractbot%3A BREAKING::Not ready to merge: 50%25 done%0Anext\n"
	if got != want {
		t.Errorf("GitHubActions:\n got %q\nwant %q", got, want)
	}
	if n := strings.Count(got, "\n"); n != 2 {
		t.Errorf("%d lines, want 2: a message started a new command", n)
	}
}

func TestAnnotations(t *testing.T) {
	r := scenarioNamed(t, "g-broken-yaml").run(t)
	got := Annotations(r)
	want := []Annotation{
		{Path: "contracts/dws/gmv-1min/gmv_1min.avsc", StartLine: 11, EndLine: 11, StartColumn: 29, EndColumn: 29, Level: LevelWarning,
			Title: "promoted order_count: changes meaning"},
		{Path: crmSyncConsumer, StartLine: 9, EndLine: 9, StartColumn: 8, EndColumn: 8, Level: LevelFailure, Title: "yaml-syntax"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d annotations, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g := got[i]
		g.Message = ""
		equal(t, "annotation", g, want[i])
	}
	if !strings.Contains(got[0].Message, "Read by doris-gmv-1min (data-warehouse), gmv-dashboard (analytics).") {
		t.Errorf("the promotion's annotation does not name its readers: %q", got[0].Message)
	}
	// Scenario (c): the removal reaches consumers, so it is a failure.
	c := Annotations(scenarioNamed(t, "c-remove-field-two-hops").run(t))
	equal(t, "removal level", c[0].Level, LevelFailure)
}

func TestJSONShape(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	r := &Report{Class: Compatible, Now: now.In(berlin), SignOffs: []*SignOff{{Team: "t", Status: Pending,
		For: []ConsumerRef{{Subject: "s", Consumer: "c", Fields: []string{""}}}, RequestedAt: openedAt.In(berlin), Deadline: openedAt.In(berlin).Add(time.Hour)}},
		Subjects: []*SubjectReport{{Subject: "s", Kind: Added, Class: Safe, Compatible: true}},
		State:    map[string]TeamState{"t": {Fingerprint: "f", RequestedAt: openedAt.In(berlin)}}}
	js, err := JSON(r)
	must(t, err)
	if !strings.HasPrefix(string(js), "{\n  \"version\": 1,\n  \"class\": \"COMPATIBLE\",") {
		t.Errorf("JSON does not start with the version:\n%s", js)
	}
	for _, want := range []string{`"subjects": [`, `"calendar": []`, `"lint": []`, `"blockers": []`, `"findings": []`, `"changes": []`, `"affected": []`, `"handles": []`, `"fields": []`, `"evaluated_at": "2026-12-01T09:00:00Z"`, `"requested_at": "2026-12-01T08:00:00Z"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("JSON lacks %s:\n%s", want, js)
		}
	}
	assertNoNull(t, "constructed report", js)
	if r.Now.Location() != berlin || r.Subjects[0].Findings != nil {
		t.Error("JSON changed the report it rendered")
	}
}

// TestGoldenJSONHasNoNull checks every JSON golden: no null anywhere, the version
// first, and the document decodes back into a Report.
func TestGoldenJSONHasNoNull(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.json"))
	must(t, err)
	if len(files) < 10 {
		t.Fatalf("only %d JSON goldens", len(files))
	}
	for _, f := range files {
		js, err := os.ReadFile(f)
		must(t, err)
		assertNoNull(t, f, js)
		var doc struct {
			Version int `json:"version"`
			Report
		}
		if err := json.Unmarshal(js, &doc); err != nil || doc.Version != JSONVersion || doc.Class == "" {
			t.Errorf("%s: does not decode into a version %d report (%v)", f, JSONVersion, err)
		}
	}
}

func assertNoNull(t *testing.T, name string, js []byte) {
	t.Helper()
	var v any
	must(t, json.Unmarshal(js, &v))
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case nil:
			t.Errorf("%s: null at %s", name, path)
		case map[string]any:
			for k, e := range x {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(path+"["+itoa(i)+"]", e)
			}
		}
	}
	walk("$", v)
}

func TestRelative(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{5 * time.Hour, "in 5 h"},
		{-2 * time.Hour, "overdue by 2 h"},
		{30 * time.Minute, "in 30 min"},
		{20 * time.Second, "in 1 min"},
		{0, "overdue by 1 min"},
		{47*time.Hour + 59*time.Minute, "in 47 h"},
		{50 * time.Hour, "in 2 d 2 h"},
		{72 * time.Hour, "in 3 d"},
	} {
		if got := relative(now.Add(c.d), now); got != c.want {
			t.Errorf("relative(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestMarkdownCalendarAndOverride: a missing entry shows its problems and the
// suggested entry as YAML; a freeze and an override are stated.
func TestMarkdownCalendarAndOverride(t *testing.T) {
	r := &Report{Class: Breaking, Now: now, Ready: true,
		Subjects: []*SubjectReport{{Subject: "orders.x-value", Kind: Modified, Class: Breaking, Tier: "core", Format: "avro", Level: "BACKWARD", Compatible: true}},
		Calendar: []*CalendarCheck{{Subject: "orders.x-value", Required: true,
			Problems:       []string{"calendar/2026-11-01-x.yaml: the window ended Sun 2026-11-01 16:00 CET; move it to a time ahead, or add a new entry."},
			SuggestionFile: "calendar/2026-12-01-x.yaml", Suggestion: "title: x\nkind: schema-change\n",
			Freeze: "year-end", FrozenUntil: time.Date(2027, 1, 4, 7, 0, 0, 0, time.UTC)}},
		Blockers: []string{"x needs a calendar entry"},
		Override: &Override{By: "hkoenig", Reason: "incident INC-42: revert needed now", At: now},
	}
	md := Markdown(r, MarkdownOptions{})
	for _, want := range []string{
		"**BREAKING**: ready to merge by override (1 calendar entry missing; in a freeze).",
		"Override by @\u200bhkoenig at Tue 2026-12-01 09:00 UTC: incident INC-42: revert needed now",
		"- `orders.x-value`: **no usable calendar entry** (a BREAKING change to a core subject needs one).",
		"  - calendar/2026-11-01-x.yaml: the window ended Sun 2026-11-01 16:00 CET; move it to a time ahead, or add a new entry.",
		"  Add `calendar/2026-12-01-x.yaml`, the next free window:\n\n  ```yaml\n  title: x\n  kind: schema-change\n  ```\n",
		"freeze `year-end` is in force until Mon 2027-01-04 07:00 UTC (ends in 33 d 22 h)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestMarkdownCaps(t *testing.T) {
	r := &Report{Class: Safe, Now: now, Blockers: []string{"lint"}}
	for i := 0; i < 120; i++ {
		r.Lint = append(r.Lint, contract.Diagnostic{Span: located.Span{File: "contracts/a/b/contract.yaml", Line: i + 1, Column: 1}, Code: "unknown-key", Message: "bad"})
	}
	md := Markdown(r, MarkdownOptions{})
	if got := strings.Count(md, "`unknown-key`"); got != maxLint {
		t.Errorf("%d lint lines, want %d", got, maxLint)
	}
	if !strings.Contains(md, "- and 70 more (run `contractbot lint` to see all)") {
		t.Error("no 'and 70 more' line")
	}
	long := "x\n  ```yaml\n" + strings.Repeat("a line of yaml\n", 6000)
	cut := truncateMarkdown(long)
	if len(cut) > maxMarkdown+200 || !strings.HasSuffix(cut, "see all of it._\n") || !strings.Contains(cut, "a line of yaml\n```\n") {
		t.Errorf("truncated comment: %d bytes, ends %q", len(cut), cut[len(cut)-120:])
	}
}

func TestMarkdownLinks(t *testing.T) {
	r := scenarioNamed(t, "f-delete-subject").run(t)
	with := Markdown(r, MarkdownOptions{RepoURL: "https://github.com/acme/contracts/", HeadSHA: "abc"})
	if !strings.Contains(with, "[contracts/orders/order-created/consumers/dwd-order-detail.yaml:20:3](https://github.com/acme/contracts/blob/abc/contracts/orders/order-created/consumers/dwd-order-detail.yaml#L20)") {
		t.Errorf("no link to the lint error's line:\n%s", with)
	}
	without := Markdown(r, MarkdownOptions{})
	if !strings.Contains(without, "- contracts/orders/order-created/consumers/dwd-order-detail.yaml:20:3 `unknown-subject`") || strings.Contains(without, "](http") {
		t.Errorf("without a repository URL, places should be plain file:line:col:\n%s", without)
	}
}

// TestRenderersDeterministic renders one report many times: every format must come out
// byte for byte the same (no map is ranged unsorted).
func TestRenderersDeterministic(t *testing.T) {
	r := scenarioNamed(t, "f-delete-subject").run(t)
	md, txt, gh := Markdown(r, goldenOptions), Text(r), GitHubActions(r)
	js, err := JSON(r)
	must(t, err)
	for i := 0; i < 20; i++ {
		js2, err := JSON(r)
		must(t, err)
		if Markdown(r, goldenOptions) != md || Text(r) != txt || GitHubActions(r) != gh || string(js2) != string(js) {
			t.Fatalf("rendering %d differs from the first", i)
		}
	}
}
