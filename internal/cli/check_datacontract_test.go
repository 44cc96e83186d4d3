package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A change to contract.yaml's data contract alone is a new registry version, so
// check lists the subject with what changes. A CONDITION run on WRITE whose failure
// action is ERROR can reject the producers' records: COMPATIBLE, and the team of the
// job that declares it produces into the subject (fraud-detector) signs off; a new
// pii mark alone is SAFE, with the note that publish registers a new version.
func TestCheckDataContractChange(t *testing.T) {
	dir, repo := exampleRepo(t)
	cy := filepath.Join(dir, "contracts/risk/fraud-score/contract.yaml")
	edit(t, cy, "fields:\n", "rules:\n  - name: score-range\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: message.score >= 0.0 && message.score <= 1.0\n    on_failure: ERROR\nfields:\n")
	commit(t, repo, "A range rule on fraud scores")
	check := []string{"check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z"}
	out, errOut, code := runCLI(t, check...)
	if code == 2 || !strings.Contains(out, "risk.fraud-score-value: COMPATIBLE") || !strings.Contains(out, `data rule "score-range" (CONDITION, mode WRITE, on_failure ERROR) is added`) {
		t.Fatalf("a WRITE rule with ERROR: exit %d:\n%s%s", code, out, errOut)
	}
	checkGolden(t, filepath.Join("..", "check", "data-contract-rule.txt"), out)
	js, _, _ := runCLI(t, append(check, "--format", "json")...)
	var r struct {
		Subjects []struct {
			Subject      string `json:"subject"`
			Class        string `json:"class"`
			DataContract []struct {
				What      string `json:"what"`
				Rule      string `json:"rule"`
				Producers bool   `json:"producers"`
			} `json:"data_contract"`
		} `json:"subjects"`
		SignOffs []struct {
			Team string `json:"team"`
			For  []struct {
				Consumer string `json:"consumer"`
			} `json:"for"`
		} `json:"signoffs"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if len(r.Subjects) != 1 || len(r.Subjects[0].DataContract) != 1 || !r.Subjects[0].DataContract[0].Producers || r.Subjects[0].DataContract[0].What != "rule-added" {
		t.Errorf("JSON subjects: %+v", r.Subjects)
	}
	if len(r.SignOffs) != 1 || r.SignOffs[0].Team != "risk" || len(r.SignOffs[0].For) != 1 || r.SignOffs[0].For[0].Consumer != "fraud-detector" {
		t.Errorf("sign-offs: %+v", r.SignOffs)
	}
	md, _, _ := runCLI(t, append(check, "--format", "markdown")...)
	checkGolden(t, filepath.Join("..", "check", "data-contract-rule.md"), md)

	edit(t, cy, "  score:\n", "  model_version:\n    pii: true\n  score:\n")
	commit(t, repo, "model_version is personal data")
	out, errOut, code = runCLI(t, check...)
	if code == 2 || !strings.Contains(out, "risk.fraud-score-value: SAFE") || !strings.Contains(out, "field model_version is marked pii") ||
		!strings.Contains(out, "publish registers a new version of risk.fraud-score-value") {
		t.Fatalf("a pii mark: exit %d:\n%s%s", code, out, errOut)
	}
	checkGolden(t, filepath.Join("..", "check", "data-contract-pii.txt"), out)
}

// A data rule that reads a nested field through a macro (message.items.all(i,
// i.quantity > 0)) is reported, when the change renames or retypes that field, as
// reading the nested field, at the place lint reports the expression: one position
// for one problem. Avro (a list of records) and Protobuf (a repeated message).
func TestCheckNestedDataRule(t *testing.T) {
	for _, tc := range []struct {
		name, contract, rule, schema, old, new, want string
	}{
		{"avro", "contracts/orders/order-created/contract.yaml", "message.items.all(i, i.quantity > 0)",
			"contracts/orders/order-created/order_created.avsc", `"name": "quantity"`, `"name": "qty"`,
			`data rule "nested" reads items.quantity, which this change removes`},
		{"protobuf", "contracts/risk/fraud-score/contract.yaml", "message.reasons.exists(r, r.weight > 0.0)",
			"contracts/risk/fraud-score/fraud_score.proto", "double weight = 2;", "string weight = 2;",
			`data rule "nested" reads reasons.weight, which this change changes the type of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, repo := exampleRepo(t)
			edit(t, filepath.Join(dir, tc.contract), "fields:\n", "rules:\n  - name: nested\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: "+tc.rule+"\nfields:\n")
			commit(t, repo, "A rule on a nested field")
			if out, errOut, code := runCLI(t, "lint", "--repo", dir); code != 0 {
				t.Fatalf("the rule does not lint: exit %d\n%s%s", code, out, errOut)
			}
			edit(t, filepath.Join(dir, tc.schema), tc.old, tc.new)
			commit(t, repo, "Change the nested field")
			out, errOut, code := runCLI(t, "check", "--repo", dir, "--rev", "HEAD", "--against", "HEAD~1", "--now", "2026-12-01T09:00:00Z")
			if code == 2 || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want %q:\n%s%s", code, tc.want, out, errOut)
			}
			loc := regexp.MustCompile(`data rule: (` + regexp.QuoteMeta(tc.contract) + `:\d+:\d+):`).FindStringSubmatch(out)
			if loc == nil || strings.Count(out, loc[1]+":") != 2 {
				t.Errorf("the data rule finding and the contract file error are not at one position:\n%s", out)
			}
		})
	}
}
