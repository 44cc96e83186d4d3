package bot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/gitrepo"
)

// mergeOf is the commit the pull request is judged at: what merging its head into
// tip, the base branch as it is now, gives. That is the head itself when it already
// contains tip; GitHub's test merge (refs/pull/N/merge) when the clone holds it and
// it merges this head into this tip; else the change between the merge base and the
// head applied, path by path, to tip's tree (gitrepo.ApplyChange). So the consumers,
// lineage, producers, teams, freezes and calendar entries the base gained since the
// pull request branched count, from a fork or an old branch point alike. conflicts
// are the paths both sides changed (there the pull request's side was taken).
func mergeOf(r *git.Repository, pr *PullRequest, tip plumbing.Hash) (plumbing.Hash, []string, error) {
	head := plumbing.NewHash(pr.HeadSHA)
	headCommit, err := r.CommitObject(head)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("read the head %s: %w", shortSHA(pr.HeadSHA), err)
	}
	tipCommit, err := r.CommitObject(tip)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("read the tip %s of %s: %w", shortSHA(tip.String()), pr.BaseRef, err)
	}
	base, err := gitrepo.CommonBase(headCommit, tipCommit)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("no merge base between %s and the tip %s of %s: %w", shortSHA(pr.HeadSHA), shortSHA(tip.String()), pr.BaseRef, err)
	}
	if base.Hash == tip {
		return head, nil, nil
	}
	if pr.MergeCommitSHA != "" {
		if m, err := r.CommitObject(plumbing.NewHash(pr.MergeCommitSHA)); err == nil && slices.Equal(m.ParentHashes, []plumbing.Hash{tip, head}) {
			return m.Hash, nil, nil
		}
	}
	return gitrepo.ApplyChange(r, base.Hash, head, tip)
}

// conflictNotice says which files both the base branch and the pull request changed.
func conflictNotice(base string, paths []string) string {
	const most = 5
	shown := paths
	if len(shown) > most {
		shown = shown[:most]
	}
	list := strings.Join(shown, ", ") // the report escapes what it shows
	if len(paths) > most {
		list += fmt.Sprintf(" and %d more", len(paths)-most)
	}
	return fmt.Sprintf("%s and this pull request both changed %s: contractbot judged this pull request's version of them applied to %s; resolve the conflict (merge or rebase %s), and it judges the result.", base, list, base, base)
}
