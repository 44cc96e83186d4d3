package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestImpactTreeGolden(t *testing.T) {
	for _, tc := range []struct{ arg, golden string }{
		{"orders.order-created-value:amount", "amount.txt"},
		{"orders.order-created-value:product_info", "product_info.txt"},
		{"dw.order-detail-value", "order-detail.txt"},
		{"common.money-value", "money.txt"},
	} {
		out, errOut, code := runCLI(t, "impact", "--repo", "../..", tc.arg)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.arg, code, errOut)
		}
		checkGolden(t, filepath.Join("..", "impact", tc.golden), out)
	}
	if !strings.Contains(mustRun(t, "impact", "--repo", "../..", "orders.order-created-value:amount"), "gmv-dashboard (dashboard, team analytics) reads gmv_cents") {
		t.Error("the dashboard 2 hops down is missing")
	}
}

func TestImpactErrors(t *testing.T) {
	_, errOut, code := runCLI(t, "impact", "--repo", "../..", "orders.nope-value")
	if code != 2 || !strings.Contains(errOut, `no subject "orders.nope-value"`) {
		t.Errorf("unknown subject: exit %d %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "impact", "--repo", "../..", "orders.order-created-value:amout")
	if code != 2 || !strings.Contains(errOut, `has no field "amout"`) {
		t.Errorf("unknown field: exit %d %q", code, errOut)
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	return out
}
