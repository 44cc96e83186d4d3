package contract

import (
	"regexp"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// A core subject without keys or docs fails lint with located errors (issue 18: every
// doc was stripped from order_created.avsc and lint still passed); the same subject at
// the standard tier gets warnings.
func TestCoreSubjectWithoutKeysOrDocs(t *testing.T) {
	const dir = "contracts/orders/order-created/"
	for _, tier := range []string{"core", "standard"} {
		t.Run(tier, func(t *testing.T) {
			files := testutil.ExampleFiles(t)
			avsc := string(files[dir+"order_created.avsc"])
			stripped := regexp.MustCompile(`(?m)^      "doc": .*\n`).ReplaceAllString(avsc, "")
			stripped = strings.ReplaceAll(stripped, "\"\n    },", "\"\n    },") // the layout stays valid JSON
			files[dir+"order_created.avsc"] = []byte(regexp.MustCompile(`,\n(\s*)\}`).ReplaceAllString(stripped, "\n$1}"))
			c := string(files[dir+"contract.yaml"])
			c = regexp.MustCompile(`(?m)^keys: .*\n`).ReplaceAllString(c, "")
			c = strings.Replace(c, "tier: core", "tier: "+tier, 1)
			files[dir+"contract.yaml"] = []byte(c)
			tree, err := Load(MemSource(files))
			if err != nil {
				t.Fatal(err)
			}
			want := Error
			if tier == "standard" {
				want = Warning
			}
			var keys, docs []Diagnostic
			for _, d := range tree.Diagnostics {
				switch d.Code {
				case CodeMissingKeys:
					keys = append(keys, d)
				case CodeMissingDoc:
					docs = append(docs, d)
				case CodeSchemaInvalid, CodeYAMLSyntax:
					t.Fatalf("the stripped files do not load: %s", d)
				}
			}
			if len(keys) != 1 || keys[0].File != dir+"contract.yaml" || keys[0].Line != 7 || keys[0].Severity != want {
				t.Errorf("missing keys: %v, want one %s at %scontract.yaml:7 (the tier line)", keys, want, dir)
			}
			// Every top-level field but those contract.yaml documents (user_id, amount, created_at).
			var fields []string
			for _, d := range docs {
				if d.File != dir+"order_created.avsc" || d.Line < 2 || d.Severity != want {
					t.Errorf("misplaced: %s", d)
				}
				fields = append(fields, strings.Split(d.Message, `"`)[1])
			}
			if got := strings.Join(fields, " "); got != "order_id channel currency coupon_code product_info items attributes event_time" {
				t.Errorf("undocumented fields named: %s", got)
			}
		})
	}
}
