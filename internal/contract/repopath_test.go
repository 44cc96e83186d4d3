package contract

import "testing"

func TestRepoPath(t *testing.T) {
	for name, want := range map[string]string{
		"":                                "",
		"contracts/orders/x/x.proto":      "contracts/orders/x/x.proto",
		"common/money.proto":              "contracts/common/money.proto",
		"google/protobuf/timestamp.proto": "google/protobuf/timestamp.proto",
		"orders/order-created/order.avsc": "contracts/orders/order-created/order.avsc",
	} {
		if got := RepoPath(name); got != want {
			t.Errorf("RepoPath(%q) = %q, want %q", name, got, want)
		}
	}
}
