package bot

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
)

// A push moves the tip every open pull request into the branch is judged against.
// Judging every one of them again costs a dozen GitHub calls each; a pull request
// needs it only when the push changed something its verdict reads. What a verdict
// reads of the base is: the rules (teams.yaml, the calendar and its freezes,
// CODEOWNERS, the jobs' SQL, anything outside the subject folders), the names of the
// subjects, and the subject folders its change reaches (its own, those its
// consumers' lineage reaches, those importing its files). So a push that changed
// anything but subject folders, or a subject's name, judges every pull request
// again; otherwise a pull request is judged again when the subject folders its
// change reaches (on the new tip and on its head) meet those the push's change
// reaches (on the old tip and the new). Both reaches follow lineage downstream and
// imports, so either side may be upstream of the other. When anything cannot be
// read, every pull request is judged again.

// pushScope is what a push changed that verdicts read.
type pushScope struct {
	// all: every pull request into the branch is judged again, for why.
	all bool
	why string
	// reach holds the subject folders the push's change reaches.
	reach map[string]bool
	repo  *git.Repository
	after plumbing.Hash
}

// everyPullRequest is the scope of a push whose effect is not narrowed down.
func everyPullRequest(why string) pushScope { return pushScope{all: true, why: why} }

// scopeOfPush reads what the push from before to after changed in r.
func scopeOfPush(r *git.Repository, before, after plumbing.Hash) pushScope {
	dirs, rules, err := changedPaths(r, before, after)
	switch {
	case err != nil:
		return everyPullRequest(err.Error())
	case len(rules) > 0:
		return everyPullRequest("the push changed " + rules[0] + ", which every verdict reads")
	}
	s := pushScope{reach: map[string]bool{}, repo: r, after: after}
	names := map[string]string{} // dir -> subject on the old tip
	for i, at := range []plumbing.Hash{before, after} {
		t, reach, err := reachOf(r, at, dirs)
		if err != nil {
			return everyPullRequest(err.Error())
		}
		for d := range reach {
			s.reach[d] = true
		}
		for _, d := range dirs {
			name := subjectIn(t, d)
			if i == 0 {
				names[d] = name
			} else if names[d] != name {
				return everyPullRequest(fmt.Sprintf("the push changed the subject of %s (%q, was %q), and names are read by every verdict", d, name, names[d]))
			}
		}
	}
	return s
}

// affects says whether pr's verdict reads what the push changed (its head is in
// s.repo).
func (s pushScope) affects(pr PullRequest) (bool, string) {
	if s.all {
		return true, s.why
	}
	head := plumbing.NewHash(pr.HeadSHA)
	hc, err := s.repo.CommitObject(head)
	if err != nil {
		return true, "its head cannot be read: " + err.Error()
	}
	tc, err := s.repo.CommitObject(s.after)
	if err != nil {
		return true, err.Error()
	}
	base, err := gitrepo.CommonBase(hc, tc)
	if err != nil {
		return true, "it shares no history with the branch"
	}
	dirs, rules, err := changedPaths(s.repo, base.Hash, head)
	switch {
	case err != nil:
		return true, err.Error()
	case len(rules) > 0:
		return true, "it changes " + rules[0]
	}
	for _, at := range []plumbing.Hash{s.after, head} {
		_, reach, err := reachOf(s.repo, at, dirs)
		if err != nil {
			return true, err.Error()
		}
		for d := range reach {
			if s.reach[d] {
				return true, "its change and the push's reach " + d
			}
		}
	}
	return false, ""
}

// changedPaths lists what differs between two commits: the subject folders
// (contracts/<domain>/<name>) holding changed files, and every other changed path.
func changedPaths(r *git.Repository, from, to plumbing.Hash) (dirs, others []string, err error) {
	tree := func(h plumbing.Hash) (*object.Tree, error) {
		c, err := r.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		return c.Tree()
	}
	a, err := tree(from)
	if err != nil {
		return nil, nil, err
	}
	b, err := tree(to)
	if err != nil {
		return nil, nil, err
	}
	changes, err := object.DiffTree(a, b)
	if err != nil {
		return nil, nil, fmt.Errorf("compare %s and %s: %w", from, to, err)
	}
	seen := map[string]bool{}
	for _, c := range changes {
		for _, p := range []string{c.From.Name, c.To.Name} {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			parts := strings.SplitN(p, "/", 4)
			if len(parts) == 4 && parts[0] == contract.ContractsDir {
				if d := strings.Join(parts[:3], "/"); !seen[d] {
					seen[d] = true
					dirs = append(dirs, d)
				}
				continue
			}
			others = append(others, p)
		}
	}
	return dirs, others, nil
}

// reachOf loads the subject folders dirs at commit at with the folders importing
// their files and every folder their lineage reaches: the tree, and the folders.
func reachOf(r *git.Repository, at plumbing.Hash, dirs []string) (*contract.Tree, map[string]bool, error) {
	src, err := contract.NewGitSource(r, at.String())
	if err != nil {
		return nil, nil, err
	}
	with, err := change.WithImporters(src, dirs)
	if err != nil {
		return nil, nil, err
	}
	t, err := contract.LoadSubjects(src, with, nil)
	if err != nil {
		return nil, nil, err
	}
	reach := map[string]bool{}
	for _, d := range with {
		reach[d] = true
	}
	for _, s := range t.Subjects {
		reach[s.Dir] = true
	}
	return t, reach, nil
}

// subjectIn is the subject of folder dir in t ("" when it has none).
func subjectIn(t *contract.Tree, dir string) string {
	for _, s := range t.Subjects {
		if s.Dir == dir {
			return s.Subject
		}
	}
	return ""
}
