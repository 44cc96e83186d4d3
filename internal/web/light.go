package web

import (
	"fmt"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
)

// light is the catalog's snapshot of a commit while its full tree loads: rows from
// contract.Summaries (each contract.yaml and the names in consumers/, no schema parsed),
// so the first catalog page after a start or a new commit does not wait for every
// schema of the repository to be parsed. The other pages wait for the full tree.
type light struct {
	mu   sync.Mutex
	head plumbing.Hash
	sums []contract.Summary
	snap *snapshot
	err  error
}

// catalogSnapshot returns the full snapshot when the tree of the current commit is
// loaded, else the light one (built once per commit).
func (p *Pages) catalogSnapshot() (*snapshot, error) {
	head, err := p.Tree.resolve()
	if err != nil {
		return nil, err
	}
	if p.Tree.Ready(head) || p.Tree.Repo == nil || p.madeAt(head) {
		p.light.mu.Lock()
		p.light.sums, p.light.snap = nil, nil // the full tree's snapshot replaces it
		p.light.mu.Unlock()
		return p.current()
	}
	p.light.mu.Lock()
	defer p.light.mu.Unlock()
	switch {
	case p.light.snap == nil || p.light.head != head:
		p.light.head, p.light.sums, p.light.snap, p.light.err = head, nil, nil, nil
		var err error
		if p.light.sums, err = p.summaries(head); err == nil {
			p.light.snap = p.lightSnapshot(head)
		}
		if err != nil {
			p.light.err = fmt.Errorf("summarise the subjects at %s: %w", head.String()[:12], err)
		}
	case p.light.snap.versionsPending && p.Tree.versionsReady(head):
		p.light.snap = p.lightSnapshot(head) // the versions index is ready now
	}
	if p.light.err != nil {
		return p.current() // wait for the full tree instead
	}
	return p.light.snap, nil
}

// lightSnapshot makes the catalog's snapshot of head from the summaries in p.light.
func (p *Pages) lightSnapshot(head plumbing.Hash) *snapshot {
	s := &snapshot{head: head, branch: "HEAD", light: true}
	s.setRows(p.light.sums, p.Tree)
	return s
}

// Prime makes the catalog's snapshot of the current commit now, rather than on the
// first request: serve calls it first at start, before the work that competes for
// the repository (the registry's index, the full tree).
func (p *Pages) Prime() error {
	_, err := p.catalogSnapshot()
	return err
}

// madeAt reports whether the pages' snapshot of head is made (not the light one).
func (p *Pages) madeAt(head plumbing.Hash) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.snap != nil && p.snap.head == head
}

// Load makes the pages' snapshot of the current commit now, which lets the light one
// and its summaries go (at 100,000 subjects they held about 150 MB until the next
// catalog request): from the full tree, or when the pages do not keep it
// (Tree.Release) from one pass over the subjects that holds none of them together;
// its first catalog page is saved in FirstPage.
func (p *Pages) Load() error {
	s, err := p.current()
	if err != nil {
		return err
	}
	p.saveFirstPage(s)
	return p.Prime()
}
