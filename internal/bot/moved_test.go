package bot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/testutil"
)

// TestMoveDoesNotHideContractChanges: a pull request that moves order-created's folder
// and, in the same change, adds a data rule refusing every write and changes amount's
// unit is judged on the rule and the unit, as without the move (issue 25: the check
// was green with no sign-off).
func TestMoveDoesNotHideContractChanges(t *testing.T) {
	g := newGate(t, opened, func(r *testutil.Repo) {
		if err := os.Rename(filepath.Join(r.Dir, "contracts/orders/order-created"), filepath.Join(r.Dir, "contracts/orders/oc2")); err != nil {
			t.Fatal(err)
		}
		r.Edit("contracts/orders/oc2/contract.yaml", "fields:\n", "rules:\n  - name: refuse-all\n    kind: CONDITION\n    type: CEL\n    mode: WRITE\n    expr: \"false\"\n    on_failure: ERROR\nfields:\n")
		r.Edit("contracts/orders/oc2/contract.yaml", "    unit: cents\n", "    unit: CNY\n")
		tree, err := contract.Load(contract.NewDirSource(r.Dir))
		if err != nil {
			t.Fatal(err)
		}
		r.Write(contract.CodeownersFile, string(contract.Codeowners(tree)))
	})
	g.evaluate(g.bot())
	body := readable(g.botComment().GetBody())
	if c := g.conclusion(); c == ConclusionSuccess {
		t.Errorf("a move with a refuse-all rule and a unit change is green:\n%s", body)
	}
	for _, want := range []string{"refuse-all", "CNY", "moved from contracts/orders/order-created to contracts/orders/oc2", "@acme/data-warehouse"} {
		if !strings.Contains(body, want) {
			t.Errorf("the comment does not say %q:\n%s", want, body)
		}
	}
}
