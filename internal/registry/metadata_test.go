package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
)

// contract.DataContractKey (what makes a new version in the versions index) changes
// exactly when what publishing sends (MetadataOf, RuleSetOf) changes: a description,
// a field's doc or the level make no new version, owner, tier, topic, pii and rules do.
func TestDataContractKeyFollowsWhatIsSent(t *testing.T) {
	base := "subject: a-value\nformat: avro\nschema: a.avsc\ncompatibility: BACKWARD\nowner: orders\ntier: core\ntopic: t\n" +
		"fields:\n  id: {pii: true, doc: the id}\n  n: {doc: a count}\n"
	rule := "rules:\n  - {name: r, kind: CONDITION, type: CEL, mode: WRITE, expr: \"message.n > 0\"}\n"
	variants := map[string]string{
		"base":        base,
		"description": base + "description: the a events\n",
		"doc":         strings.Replace(base, "a count", "how many", 1),
		"level":       strings.Replace(base, "BACKWARD", "FULL", 1),
		"owner":       strings.Replace(base, "owner: orders", "owner: billing", 1),
		"tier":        strings.Replace(base, "tier: core", "tier: standard", 1),
		"topic":       strings.Replace(base, "topic: t", "topic: u", 1),
		"pii":         strings.Replace(base, "n: {doc", "n: {pii: true, doc", 1),
		"rule":        base + rule,
		"rule-expr":   base + strings.Replace(rule, "> 0", ">= 0", 1),
	}
	sent := func(s *contract.Subject) string {
		data, _ := json.Marshal([]any{MetadataOf(s), RuleSetOf(s)})
		return string(data)
	}
	for a, ta := range variants {
		for b, tb := range variants {
			sa := contract.DecodeDataContract("contracts/d/a/contract.yaml", []byte(ta))
			sb := contract.DecodeDataContract("contracts/d/a/contract.yaml", []byte(tb))
			sameKey := contract.DataContractKey(sa) == contract.DataContractKey(sb)
			if sameSent := sent(sa) == sent(sb); sameKey != sameSent {
				t.Errorf("%s vs %s: same key %v, same metadata and rules sent %v", a, b, sameKey, sameSent)
			}
		}
	}
}
