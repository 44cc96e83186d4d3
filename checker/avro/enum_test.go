package avro

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/checker"
)

// An enum's symbols are compared through sets (issue 13: 40,000 symbols changed took 12 s
// with a scan of the other list per symbol): each list keeps its order, and a 40,000-
// symbol enum whose symbols are all renamed yields exactly one change of each kind
// naming all of them.
func TestEnumSymbolsDiffAtScale(t *testing.T) {
	added, removed := symbolDiff([]string{"A", "B", "C", "D"}, []string{"D", "E", "B", "F"})
	if !slices.Equal(added, []string{"E", "F"}) || !slices.Equal(removed, []string{"A", "C"}) {
		t.Errorf("added %q, removed %q", added, removed)
	}

	const n = 40_000
	enum := func(prefix string) []byte {
		syms := make([]string, n)
		for i := range syms {
			syms[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		b, err := json.Marshal(map[string]any{"type": "record", "name": "R", "fields": []any{
			map[string]any{"name": "e", "type": map[string]any{"type": "enum", "name": "Big", "symbols": syms}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	old, next := mustParse(t, "old.avsc", enum("S")), mustParse(t, "new.avsc", enum("T"))
	counts := map[checker.ChangeKind]int{}
	for _, c := range Diff(old, next) {
		switch c.Kind {
		case checker.EnumSymbolsRemoved:
			counts[c.Kind] = strings.Count(c.Old, ",") + 1
		case checker.EnumSymbolsAdded:
			counts[c.Kind] = strings.Count(c.New, ",") + 1
		default:
			t.Errorf("unexpected change %s", changeKey(c))
		}
	}
	if counts[checker.EnumSymbolsRemoved] != n || counts[checker.EnumSymbolsAdded] != n {
		t.Errorf("symbols removed and added: %v; want %d of each", counts, n)
	}
}
