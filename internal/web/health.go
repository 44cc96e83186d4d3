package web

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/versions"
)

// health is the costly part of a commit's health report, the history that broke its
// level (history.Audit parses every version of every subject), computed once per
// commit in the background, after the pages have served a page of that commit, so
// that it never delays the first page. Until it is done the report page says that
// it is being computed.
type health struct {
	once   sync.Once
	mu     sync.Mutex
	done   bool
	broken []history.Break
	err    error
	// automation is what the Git history says of how changes reached the branch
	// (nil until done, or when it could not be read).
	automation *report.Automation
}

// result returns the audit's breaks and error, and whether it is done.
func (h *health) result() ([]history.Break, error, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.broken, h.err, h.done
}

// gitAutomation reads the automation figures the Git history gives (merges through a
// pull request or straight to the branch) for the report page: the rest (verdict or
// override, sign-off latency) needs the change events log or the bot's comments,
// which contractbot report reads and the page says so.
func (p *Pages) gitAutomation(head plumbing.Hash) *report.Automation {
	commits, err := history.ContractCommits(p.Tree.Repo.Storer, head)
	if err != nil {
		p.Log.Warn("pages: could not read which commits changed contracts/ for the health report", "commit", head.String(), "err", err)
		return nil
	}
	return report.Automate(report.GitSource, report.GitMerges(commits, gitrepo.MergedPullRequest), false)
}

// afterPage starts the current snapshot's history audit, once per commit, when a
// page has been served: the first page of a commit never waits for it.
func (p *Pages) afterPage() {
	p.mu.Lock()
	s := p.snap
	p.mu.Unlock()
	if s == nil || p.Tree.Repo == nil || s.versionsPending {
		return // a snapshot made before the versions index is replaced once it is ready
	}
	s.health.once.Do(func() { go p.audit(s) })
}

// audit computes the history part of s's report, from the previous commit's audit
// when the branch only grew. Audits run one at a time; one whose commit is no longer
// served by the time it would start is skipped.
func (p *Pages) audit(s *snapshot) {
	p.auditing.Lock()
	defer p.auditing.Unlock()
	var broken []history.Break
	err := fmt.Errorf("the branch moved on from %s before its history was audited", s.head.String()[:12])
	defer func() {
		// A parser that panics on a version in the history must not stop serve: the
		// page says the audit failed, and the rest of the site goes on.
		if v := recover(); v != nil {
			p.Log.Error("pages: auditing the history for the health report panicked", "commit", s.head.String(), "panic", v)
			s.health.mu.Lock()
			s.health.err, s.health.done = fmt.Errorf("auditing the history failed inside contractbot (%v)", v), true
			s.health.mu.Unlock()
		}
	}()
	p.mu.Lock()
	current := p.snap == s
	p.mu.Unlock()
	if current {
		var ix *versions.Index
		if err = p.Tree.WithVersions(s.head, func(shared *versions.Index) { ix = indexCopy(shared) }); err == nil {
			prev := p.previousAudit(s.head)
			var a *history.Audited
			if a, err = history.AuditFrom(p.Tree.Repo.Storer, ix, prev); err == nil {
				p.audited, broken = a, a.Breaks
				if p.AuditCache != nil && (prev == nil || prev.Head != a.Head) {
					if err := p.AuditCache.Save(a); err != nil {
						p.Log.Warn("pages: could not save the history's audit; the next start audits every version", "err", err)
					}
				}
			}
		}
	}
	if err != nil {
		p.Log.Error("pages: auditing the history for the health report failed", "commit", s.head.String(), "err", err)
	}
	var automation *report.Automation
	if current {
		automation = p.gitAutomation(s.head)
	}
	s.health.mu.Lock()
	s.health.broken, s.health.err, s.health.done, s.health.automation = broken, err, true, automation
	s.health.mu.Unlock()
}

// previousAudit is the last audit, when its head is head or a first-parent ancestor
// of it: the new commit's audit then checks only the versions the branch gained (a
// version's verdict depends on it and the versions before it alone); for the first
// audit since the start, the one in AuditCache. nil otherwise (none, a rewritten
// branch): everything is audited. Called under p.auditing.
func (p *Pages) previousAudit(head plumbing.Hash) *history.Audited {
	if p.audited == nil && p.AuditCache != nil {
		// the first audit since the start: the one kept in the cache, if usable
		a, err := p.AuditCache.Load(p.Tree.Repo.Storer, head)
		if err != nil {
			p.Log.Warn("pages: ignoring the cached audit of the history; auditing every version", "err", err)
		}
		return a
	}
	if p.audited == nil {
		return nil
	}
	ok, err := gitrepo.IsFirstParentAncestor(p.Tree.Repo.Storer, plumbing.NewHash(p.audited.Head), head)
	if err != nil || !ok {
		return nil
	}
	return p.audited
}

// indexCopy copies what the audit reads of a versions index (each subject's
// versions), so that the audit runs without holding the index, which the registry
// extends when the branch moves.
func indexCopy(ix *versions.Index) *versions.Index {
	c := versions.New()
	c.Head, c.HeadTree, c.Commits = ix.Head, ix.HeadTree, ix.Commits
	for subject, h := range ix.BySubject {
		hc := *h
		hc.Versions = slices.Clone(h.Versions)
		hc.Folders = slices.Clone(h.Folders)
		c.BySubject[subject] = &hc
	}
	c.Folders = maps.Clone(ix.Folders)
	return c
}

// healthRows is how many rows the health page shows of each list; the rest are
// counted (`contractbot report` lists them all). A variable for the tests.
var healthRows = 200

type healthPage struct {
	layout
	R *report.Health
	// Day is the day the ages are counted to.
	Day string
	// Computing: the history audit has not finished; AuditError says why it failed.
	Computing  bool
	AuditError string
	Unused     []unusedRow
	BlackBoxes []consumerRef
	Deprecated []deprecatedRow
	Broken     []brokenRow
	// Coverage is the lineage coverage in whole percent.
	Coverage int
	// AutomationTitle and AutomationLines are the automation section, as contractbot
	// report prints it from the Git history ("" until the audit is done).
	AutomationTitle string
	AutomationLines []string
	// More counts, per list, the rows past healthRows that the page leaves out.
	More struct{ Unused, BlackBoxes, Deprecated, Broken int }
}

type unusedRow struct {
	report.Unused
	Href, TeamHref, Since string
}

type consumerRef struct {
	report.Consumer
	Href, SubjectHref, TeamHref string
}

type brokenRow struct {
	history.Break
	Href    string
	Day     string
	Against string
	Rules   []string
}

func (p *Pages) healthReport(w http.ResponseWriter, r *http.Request) {
	s, err := p.current()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	now := p.now().UTC()
	day := now.Format("2006-01-02")
	_, _, done := s.health.result()
	// Ages count days: the page is a function of the commit, the day and whether
	// the audit is done. Served from memory once the audit is done.
	var sampled *report.Sampled
	gen := ""
	if p.Sampler != nil {
		sampled, gen = p.Sampler.Sampled()
	}
	key := s.pageKey(r, day+"\x00"+gen)
	if done && p.serveCached(w, r, s, key) {
		return
	}
	s, tree, err := p.reportTree()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	broken, auditErr, done := s.health.result()
	key = s.pageKey(r, day+"\x00"+gen)
	d := healthPage{layout: s.frame("Health", "health"), Day: day, Computing: !done}
	if auditErr != nil {
		d.AuditError = "The history could not be audited at this commit; the server's log says why."
	}
	if err := p.Tree.WithVersions(s.head, func(ix *versions.Index) { d.R = report.Build(tree, ix, broken, now) }); err != nil {
		p.Log.Error("pages: the versions index for the health report failed", "err", err)
		d.R = report.Build(tree, nil, broken, now)
	}
	s.health.mu.Lock()
	automation := s.health.automation
	s.health.mu.Unlock()
	if sampled != nil {
		d.R.SetSampled(sampled)
	}
	if automation != nil {
		d.R.SetAutomation(automation)
		d.AutomationTitle, d.AutomationLines = report.AutomationLines(automation)
	}
	d.Coverage = int(100*d.R.Lineage.Coverage + 0.5)
	unused, boxes, deprecated, brk := firstRows(d.R.Unused, &d.More.Unused), firstRows(d.R.Lineage.BlackBoxes, &d.More.BlackBoxes),
		firstRows(d.R.DeprecatedReads, &d.More.Deprecated), firstRows(d.R.Broken, &d.More.Broken)
	for _, u := range unused {
		row := unusedRow{Unused: u, Href: subjectHref(u.Subject), TeamHref: teamHref(u.Owner)}
		if !u.Since.IsZero() {
			row.Since = u.Since.UTC().Format("2006-01-02")
		}
		d.Unused = append(d.Unused, row)
	}
	for _, c := range boxes {
		d.BlackBoxes = append(d.BlackBoxes, newConsumerRef(c))
	}
	d.Deprecated = deprecatedRows(deprecated, day)
	for _, b := range brk {
		row := brokenRow{Break: b, Href: subjectHref(b.Subject), Day: b.Time.UTC().Format("2006-01-02")}
		for i, v := range b.Against {
			if i > 0 {
				row.Against += ", "
			}
			row.Against += itoa(v)
		}
		for _, f := range b.Findings {
			if !slices.Contains(row.Rules, f.Rule) {
				row.Rules = append(row.Rules, f.Rule)
			}
		}
		d.Broken = append(d.Broken, row)
	}
	if done {
		p.renderCached(w, s, key, healthTmpl, d)
		return
	}
	p.render(w, http.StatusOK, healthTmpl, d)
}

// reportTree returns the snapshot of the current commit and a tree of that commit for
// the health report (Tree.ForReport: what the report reads of every subject, loaded
// again if Tree let it go).
func (p *Pages) reportTree() (*snapshot, *contract.Tree, error) {
	tree, head, err := p.Tree.ForReport()
	if err != nil {
		return nil, nil, err
	}
	s, err := p.current()
	if err == nil && s.head != head {
		err = fmt.Errorf("the branch moved from %s while its tree was loading; try again", head.String()[:12])
	}
	if err != nil {
		return nil, nil, err
	}
	return s, tree, nil
}

// firstRows returns the first healthRows of rows and counts the others in more.
func firstRows[T any](rows []T, more *int) []T {
	if len(rows) > healthRows {
		*more = len(rows) - healthRows
		return rows[:healthRows]
	}
	return rows
}

func newConsumerRef(c report.Consumer) consumerRef {
	return consumerRef{Consumer: c, Href: subjectHref(c.Subject) + "#consumer-" + url.PathEscape(c.Name),
		SubjectHref: subjectHref(c.Subject), TeamHref: teamHref(c.Owner)}
}
