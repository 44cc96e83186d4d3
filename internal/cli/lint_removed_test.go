package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLintRemovedFieldRead: when the change removes a field a consumer reads, lint's
// unknown-field error on the consumer file says what the producer and the consumer
// each do, against the merge base (or --against); a field no version had keeps the
// typo wording.
func TestLintRemovedFieldRead(t *testing.T) {
	dir, repo := exampleRepo(t)
	avsc := filepath.Join(dir, "contracts/orders/order-created/order_created.avsc")
	edit(t, avsc, `    {
      "name": "amount",
      "type": "long",
      "doc": "Order total after discounts and before shipping, in cents (minor units of `+"`currency`"+`)."
    },
`, "")
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	hash := func(out string) string { return strings.ReplaceAll(out, head.Hash().String()[:12], "HASH") }

	out, _, code := runCLI(t, "lint", dir)
	if code != 1 {
		t.Fatalf("lint: exit %d\n%s", code, out)
	}
	lintGolden(t, "removed-field.text", hash(out))

	// committed on the branch, the merge base is the commit itself: --against names
	// the base instead.
	commit(t, repo, "Remove amount")
	out, _, _ = runCLI(t, "lint", "--against", "HEAD~1", dir)
	if !strings.Contains(out, "which orders.order-created-value has at HEAD~1 and this change removes") {
		t.Errorf("lint --against HEAD~1:\n%s", out)
	}
	out, _, _ = runCLI(t, "lint", dir)
	if strings.Contains(out, "this change removes") {
		t.Errorf("on the branch itself nothing is removed against its merge base:\n%s", out)
	}

	// a typo keeps the typo wording
	edit(t, filepath.Join(dir, "contracts/orders/order-created/consumers/dwd-order-detail.yaml"), "order_id", "order_idd")
	out, _, _ = runCLI(t, "lint", "--against", "HEAD~1", dir)
	if !strings.Contains(out, `reads field "order_idd", which does not exist`) {
		t.Errorf("typo:\n%s", out)
	}
}
