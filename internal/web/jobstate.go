package web

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/verdict"
)

// jobState is what a stateful job's entry on the page of the subject it reads shows:
// its `state:` and its recoverability, the fields in state whose serializer cannot
// migrate the pending changes to the subject. The pending changes are those of the
// open pull requests that change the subject when the pages know them (the sign-off
// source), else those of the pull requests that the subject's planned calendar
// entries name, read from the repository's pull request refs; each is evaluated as
// the bot evaluates it (change.Between, verdict.Assess, verdict.JobStateEffects)
// when the server's repository holds its head commit.
type jobState struct {
	State *contract.JobState
	// AllFields: the job keeps every field (fields: ["*"]).
	AllFields bool
	// Against are the pull requests the figure is computed against; Basis says which
	// ones, for a sentence.
	Against []pendingPR
	Basis   string
	// AtRisk are the state fields that cannot be restored after a pending change,
	// sorted; Checked says whether any pending change was evaluated at all.
	AtRisk  []string
	Checked bool
	// Unknown says why no pending change could be evaluated ("" when some was).
	Unknown string
	// Migrations are the state-migration calendar entries planned for the subject.
	Migrations []*contract.Entry
}

// pendingPR is one open pull request as it affects one job's state.
type pendingPR struct {
	PullRequestStatus
	Effects []verdict.StateEffect
	Notes   []string
	// Missing says why the pull request could not be evaluated here ("" when it was).
	Missing string
	// Entry is the calendar file that names the pull request, when the pull request
	// comes from a planned change rather than the sign-off source.
	Entry string
}

// pendingEval is an open pull request's evaluation against the served commit: the
// changed subjects' reports, or why there are none.
type pendingEval struct {
	subjects map[string]*verdict.SubjectReport
	missing  string
}

// pendingEvals keeps a snapshot's evaluations of open pull requests by head commit:
// a head is evaluated once per served commit.
type pendingEvals struct {
	mu     sync.Mutex
	byHead map[string]*pendingEval
}

// newJobState builds the state view of consumer c of sub. prs are the open pull
// requests that change sub, as far as the pages know them; unknown says why the pages
// do not know them ("" when they do); entries are the subject's planned calendar
// entries.
func (p *Pages) newJobState(ctx context.Context, s *snapshot, sub *contract.Subject, c *contract.Consumer, prs []PullRequestStatus, unknown string, entries []*contract.Entry) *jobState {
	if c.State == nil || c.State.Serializer == "" {
		return nil
	}
	js := &jobState{State: c.State, AllFields: slices.Contains(c.State.Fields, "*")}
	for _, e := range entries {
		if e.Kind == "state-migration" {
			js.Migrations = append(js.Migrations, e)
		}
	}
	js.Basis = "the pending changes of the open pull requests below"
	var planned []pendingPR
	if unknown != "" {
		planned = p.plannedPullRequests(sub, entries)
		js.Basis = "the changes of the pull requests that the planned changes in calendar/ name (below; the open pull requests are not known here)"
	} else {
		for _, pr := range prs {
			if slices.Contains(pr.Subjects, sub.Subject) {
				planned = append(planned, pendingPR{PullRequestStatus: pr})
			}
		}
	}
	risk := map[string]bool{}
	for _, pp := range planned {
		ev := &pendingEval{missing: pp.Missing}
		if pp.Missing == "" {
			ev = p.evaluatePending(ctx, s, pp.HeadSHA)
		}
		if ev.missing != "" {
			pp.Missing = ev.missing
		} else {
			js.Checked = true
			if sr := ev.subjects[sub.Subject]; sr != nil {
				pp.Effects, pp.Notes = verdict.JobStateEffects(c, sr.Changes)
			}
			for _, e := range pp.Effects {
				if !e.Migratable {
					risk[e.Field] = true
				}
			}
		}
		js.Against = append(js.Against, pp)
	}
	js.AtRisk = sortedKeys(risk)
	switch {
	case unknown != "" && len(js.Against) == 0:
		js.Unknown = unknown + " No planned change in calendar/ names a pull request that changes " + sub.Subject + "."
	case unknown != "" && !js.Checked:
		js.Unknown = unknown + " The pull requests of the planned changes in calendar/ could not be evaluated here (see below)."
	case len(js.Against) == 0:
		js.Unknown = "No open pull request changes " + sub.Subject + "."
	case !js.Checked:
		js.Unknown = "No open pull request that changes " + sub.Subject + " could be evaluated here (see below)."
	}
	return js
}

// plannedPullRequests lists the pull requests the planned calendar entries of sub
// name, once each, with their heads from the repository's pull request refs (where
// the bot's Git cache fetches them: refs/remotes/origin/pull/N/head, or
// refs/pull/N/head).
func (p *Pages) plannedPullRequests(sub *contract.Subject, entries []*contract.Entry) []pendingPR {
	var out []pendingPR
	for _, e := range entries {
		if e.PullRequest <= 0 || slices.ContainsFunc(out, func(pp pendingPR) bool { return pp.Number == e.PullRequest }) {
			continue
		}
		pp := pendingPR{PullRequestStatus: PullRequestStatus{Number: e.PullRequest, Title: e.Title, Subjects: []string{sub.Subject}}, Entry: e.File}
		n := strconv.Itoa(e.PullRequest)
		for _, name := range []string{"refs/remotes/origin/pull/" + n + "/head", "refs/pull/" + n + "/head"} {
			if p.Tree.Repo == nil {
				break
			}
			if ref, err := p.Tree.Repo.Reference(plumbing.ReferenceName(name), true); err == nil {
				pp.HeadSHA = ref.Hash().String()
				break
			}
		}
		if pp.HeadSHA == "" {
			pp.Missing = "its head is not in this server's repository; fetch the pull requests' heads into it (git fetch origin '+refs/pull/*/head:refs/remotes/origin/pull/*') to see what it does to this job's state."
		}
		out = append(out, pp)
	}
	return out
}

// evaluatePending evaluates an open pull request's head against the served commit
// (from their merge base, as the bot does), once per snapshot and head.
func (p *Pages) evaluatePending(ctx context.Context, s *snapshot, head string) *pendingEval {
	s.pending.mu.Lock()
	defer s.pending.mu.Unlock()
	if ev, ok := s.pending.byHead[head]; ok {
		return ev
	}
	ev := p.evaluate(s, head)
	if ev.missing != "" && ctx.Err() != nil {
		return ev // cancelled: try again on the next request
	}
	if s.pending.byHead == nil {
		s.pending.byHead = map[string]*pendingEval{}
	}
	s.pending.byHead[head] = ev
	return ev
}

func (p *Pages) evaluate(s *snapshot, head string) *pendingEval {
	short := head[:min(len(head), 12)]
	if p.Tree.Repo == nil || len(head) != 40 {
		return &pendingEval{missing: "its head commit is not known."}
	}
	h := plumbing.NewHash(head)
	prc, err := p.Tree.Repo.CommitObject(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return &pendingEval{missing: fmt.Sprintf("its head commit %s is not in this server's repository; fetch the pull requests' heads into it (git fetch origin '+refs/pull/*/head:refs/remotes/origin/pull/*') to see what it does to this job's state.", short)}
	}
	var l *change.Loaded
	if err == nil {
		if l, err = change.Between(p.Tree.Repo, p.mergeBase(s.head, prc), h); err == nil {
			r := verdict.Assess(verdict.Input{Base: l.Base, Head: l.Head, History: l.History, Now: p.now(), HeadSHA: head})
			if len(r.Lint) > 0 {
				return &pendingEval{missing: fmt.Sprintf("its head commit %s does not pass lint (%s), so its changes cannot be judged yet.", short, plural(len(r.Lint), "error"))}
			}
			ev := &pendingEval{subjects: map[string]*verdict.SubjectReport{}}
			for _, sr := range r.Subjects {
				ev.subjects[sr.Subject] = sr
			}
			return ev
		}
	}
	p.Log.Error("pages: evaluating an open pull request for a job's state failed", "head", head, "err", err)
	return &pendingEval{missing: fmt.Sprintf("its head commit %s could not be evaluated here; the server's log says why.", short)}
}

// mergeBase is where a pull request's head left the served commit (the served commit
// itself when they share no history or it cannot be read).
func (p *Pages) mergeBase(served plumbing.Hash, head *object.Commit) plumbing.Hash {
	c, err := p.Tree.Repo.CommitObject(served)
	if err != nil {
		return served
	}
	if mb, err := gitrepo.CommonBase(c, head); err == nil {
		return mb.Hash
	}
	return served
}

// Serializer is how the page names the state serializer.
func (js *jobState) Serializer() string {
	switch s := js.State.Serializer; s {
	case contract.SerializerPOJO:
		return "POJO"
	case contract.SerializerRow:
		return "Row"
	default:
		return strings.ToUpper(s[:1]) + s[1:]
	}
}
