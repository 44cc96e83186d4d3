package bot

import (
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestBotRefusesAHijackedSubject: a pull request adding a folder that claims the
// subject of another (orders.order-created-value) with an unrelated schema fails the
// check with lint's duplicate-subject error, as `contractbot check` does.
func TestBotRefusesAHijackedSubject(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) {
		r.Write("contracts/aaa/hijack/contract.yaml", "subject: orders.order-created-value\nformat: avro\nschema: hijack.avsc\ncompatibility: NONE\nowner: orders\ndescription: not the order events\n")
		r.Write("contracts/aaa/hijack/hijack.avsc", `{"type": "record", "name": "Hijack", "namespace": "evil", "fields": [{"name": "payload", "type": "string"}]}`)
	})
	g.evaluate(g.bot())
	if c := g.conclusion(); c != "failure" {
		t.Errorf("check run concluded %q, want failure", c)
	}
	body := g.botComment().GetBody()
	want := `contracts/orders/order-created/contract.yaml:2:1 ... subject "orders.order-created-value" is already defined in contracts/aaa/hijack/contract.yaml`
	if !strings.Contains(body, "[contracts/orders/order-created/contract.yaml:2:1]") || !strings.Contains(body, "already defined in contracts/aaa/hijack/contract.yaml") || !strings.Contains(body, "not ready to merge") {
		t.Errorf("the comment does not refuse the duplicate subject (want %s):\n%s", want, body)
	}
}
