package web

import (
	"strings"
	"testing"
)

// TestWriteLowerIsToLower: the catalog's search text is lower-cased as strings.ToLower
// does, ASCII or not.
func TestWriteLowerIsToLower(t *testing.T) {
	for _, s := range []string{"", "orders.order-created-value", "Buyer ID, from the Accounts service", "ÉCOLE Straße", "aÉB", "Z", "İstanbul"} {
		var b strings.Builder
		writeLower(&b, s)
		if got, want := b.String(), strings.ToLower(s); got != want {
			t.Errorf("writeLower(%q) = %q, want %q", s, got, want)
		}
	}
}
