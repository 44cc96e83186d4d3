package change

import (
	"slices"

	"github.com/contractbot/contractbot/internal/contract"
)

// loadBoth loads the folders dirs, and the subjects their lineage reaches, on both
// sides. Lineage can reach different folders on each side (a consumer whose produces
// changed, a contract.yaml that cannot be read on one side); every folder loaded on
// one side is loaded on the other too, so that a subject missing from one side is
// missing from its folder there, never merely not loaded (which the verdict would
// take for a deletion or an addition).
func loadBoth(c Change, dirs []string, baseIndex, headIndex contract.Index) ([]string, *contract.Tree, *contract.Tree, error) {
	for {
		base, err := contract.LoadSubjectsIn(c.Base, dirs, baseIndex)
		if err != nil {
			return nil, nil, nil, err
		}
		head, err := contract.LoadSubjectsIn(c.Head, dirs, headIndex)
		if err != nil {
			return nil, nil, nil, err
		}
		all := slices.Clone(dirs)
		for _, t := range []*contract.Tree{base, head} {
			for _, s := range t.Subjects {
				all = append(all, s.Dir)
			}
			all = append(all, t.Unreadable...)
		}
		slices.Sort(all)
		all = slices.Compact(all)
		if len(all) == len(dirs) {
			return dirs, base, head, nil
		}
		dirs = all
	}
}
