package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/publish"
	"github.com/contractbot/contractbot/internal/report"
)

// automation reads how changes reached the default branch: from the change events
// log at eventsFile when given (merges with their overrides and sign-offs), else from
// the first-parent history of the repository at dir (pull request or not).
func automation(dir, eventsFile string) (*report.Automation, error) {
	if eventsFile != "" {
		merges, err := eventMerges(eventsFile)
		if err != nil {
			return nil, fmt.Errorf("--events %s: %w", eventsFile, err)
		}
		return report.Automate("change events "+eventsFile, merges, true), nil
	}
	repo, _, head, err := openDefaultBranch(dir)
	if err != nil {
		return nil, fmt.Errorf("read the merges of %s: %w", dir, err)
	}
	defer repo.Close()
	merges, err := gitMerges(repo.Repository, head)
	if err != nil {
		return nil, fmt.Errorf("read the merges of %s: %w", dir, err)
	}
	return report.Automate("Git history", merges, false), nil
}

// maxEventLine is the longest line of the events log read (an event of a subject
// with many changes and consumers).
const maxEventLine = 16 << 20

// eventMerges reads a JSON-lines log of change events (the file sink's format) and
// returns one merge per merge commit, in the order of the log: its pull request,
// whether an override let it through, and each team's sign-off once (every version a
// merge published carries the same ones).
func eventMerges(path string) ([]report.Merge, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	byCommit := map[string]*report.Merge{}
	var order []string
	r := bufio.NewReaderSize(f, 64<<10)
	for line := 1; ; line++ {
		data, err := readLine(r)
		if errors.Is(err, io.EOF) && len(data) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if len(data) == 0 {
			continue
		}
		var e events.Event
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, fmt.Errorf("line %d is not a change event (%w); the file sink writes one JSON event per line", line, err)
		}
		if e.Type != events.TypePublished || e.Data.MergeCommit == "" {
			continue
		}
		m := byCommit[e.Data.MergeCommit]
		if m == nil {
			m = &report.Merge{Commit: e.Data.MergeCommit}
			byCommit[e.Data.MergeCommit] = m
			order = append(order, e.Data.MergeCommit)
		}
		if e.Data.PullRequest != nil {
			m.PullRequest = e.Data.PullRequest.Number
		}
		m.Override = m.Override || e.Data.Override != nil
		for _, so := range e.Data.SignOffs {
			if !slices.ContainsFunc(m.SignOffs, func(s report.SignOffTimes) bool { return s.Team == so.Team }) {
				t := report.SignOffTimes{Team: so.Team, Requested: so.RequestedAt}
				if so.Status == "approved" {
					t.ApprovedAt = so.At
				}
				m.SignOffs = append(m.SignOffs, t)
			}
		}
	}
	out := make([]report.Merge, 0, len(order))
	for _, c := range order {
		out = append(out, *byCommit[c])
	}
	return out, nil
}

// readLine reads one line of at most maxEventLine bytes, without its end.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := r.ReadLine()
		line = append(line, part...)
		if len(line) > maxEventLine {
			return nil, fmt.Errorf("longer than %d bytes", maxEventLine)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// gitMerges lists the first-parent commits up to head that changed contracts/,
// oldest first, with the pull request their message names (none: a push straight to
// the branch).
func gitMerges(r *git.Repository, head plumbing.Hash) ([]report.Merge, error) {
	var out []report.Merge
	c, err := r.CommitObject(head)
	for err == nil {
		var parent *object.Commit
		if c.NumParents() > 0 {
			if parent, err = c.Parent(0); err != nil {
				break
			}
		}
		changed, cerr := contractsChanged(c, parent)
		if cerr != nil {
			return nil, cerr
		}
		if changed {
			m := report.Merge{Commit: c.Hash.String()}
			if pr := publish.PullRequestOf(c.Message); pr != nil {
				m.PullRequest = pr.Number
			}
			out = append(out, m)
		}
		if parent == nil {
			break
		}
		c = parent
	}
	if err != nil {
		return nil, fmt.Errorf("walk the first parents of %s: %w", head, err)
	}
	slices.Reverse(out)
	return out, nil
}

// contractsChanged reports whether contracts/ differs between c and its parent (nil:
// c is the first commit, which changed it if it has it).
func contractsChanged(c, parent *object.Commit) (bool, error) {
	h, err := contractsTree(c)
	if err != nil || parent == nil {
		return !h.IsZero(), err
	}
	p, err := contractsTree(parent)
	return h != p, err
}

func contractsTree(c *object.Commit) (plumbing.Hash, error) {
	t, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	e, err := t.FindEntry(contract.ContractsDir)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}
