// Package history audits the default branch's history: which commits made a subject's
// new version that its own compatibility level refuses. A registry would have refused
// those versions, and the bot, had the change gone through a pull request, would have
// called them BREAKING; history that went around the bot is named here, for
// `contractbot lint --history` and `contractbot report`.
//
// It reads the versions index (internal/versions) and Git objects, and checks each
// version with its format's engine (checker/formats) against the version(s) the level
// reaches at the commit where it appeared: the latest earlier version, or every
// earlier one for a _TRANSITIVE level, as a Confluent registry checks a registration.
package history

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"golang.org/x/sync/errgroup"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/formats"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/versions"
)

// Break is one version whose level refused it when it was committed.
type Break struct {
	Subject string `json:"subject"`
	// Version is the version that broke the level; Against lists the earlier versions
	// it could not be checked against successfully.
	Version int   `json:"version"`
	Against []int `json:"against"`
	// Level is the compatibility level contract.yaml declared at that commit.
	Level string `json:"level"`
	// Commit, Time and Summary name the commit (its first message line).
	Commit  string    `json:"commit"`
	Time    time.Time `json:"time"`
	Summary string    `json:"summary"`
	// Path is the schema file at that commit.
	Path     string            `json:"path"`
	Findings []checker.Finding `json:"findings"`
}

// Message says in a sentence what the commit did.
func (b Break) Message() string {
	against := make([]string, len(b.Against))
	for i, v := range b.Against {
		against[i] = fmt.Sprint(v)
	}
	rules := []string{}
	for _, f := range b.Findings {
		r := f.Rule
		if f.Path != "" {
			r += " at " + f.Path
		}
		if len(rules) < 3 && !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	return fmt.Sprintf("commit %.12s (%s, %q) made version %d of %s, which its level %s refuses against version %s (%s); a registry would have refused it and the bot would have called it BREAKING. History cannot be rewritten: tell the consumers, and send schema changes through pull requests.",
		b.Commit, b.Time.UTC().Format("2006-01-02"), shorten(b.Summary, 72), b.Version, b.Subject, b.Level, strings.Join(against, ", "), strings.Join(rules, "; "))
}

// Audit checks every version of every subject of the index against its level at the
// commit where it appeared, and returns the versions that broke it, by subject and
// version. A version whose text (or an earlier one's) no longer parses is skipped:
// the loader reported it when it was committed. Subjects are independent: they are
// audited on every core, each version parsed once (as the next version and as a
// previous one). s must allow concurrent reads (gitrepo.Open's storer does).
func Audit(s storer.EncodedObjectStorer, ix *versions.Index) ([]Break, error) {
	a, err := AuditFrom(s, ix, nil)
	if err != nil {
		return nil, err
	}
	return a.Breaks, nil
}

// Audited is the audit of the versions index at one head: what AuditFrom extends
// when the branch grows, and what Cache keeps.
type Audited struct {
	// Head is the index's head when it was audited.
	Head string `json:"head"`
	// Versions counts the audited versions of each subject: all of them at Head.
	Versions map[string]int `json:"versions"`
	// Breaks are the versions that broke their level, by subject and version.
	Breaks []Break `json:"breaks"`
}

// AuditFrom audits the versions of ix that prev has not (prev nil: every version) and
// returns the audit of ix. prev must be the audit of the index of ix.Head or of one of
// its first-parent ancestors (Cache.Load checks it): a version's verdict depends on
// it and the versions before it alone, and the index only ever appends versions, so
// prev's verdicts stand. A prev that counts more versions of a subject than ix has is
// not of an ancestor: everything is audited again.
func AuditFrom(s storer.EncodedObjectStorer, ix *versions.Index, prev *Audited) (*Audited, error) {
	subjects := ix.Subjects()
	all := make([][]versions.Version, len(subjects))
	out := &Audited{Head: ix.Head, Versions: make(map[string]int, len(subjects))}
	for i, subject := range subjects {
		all[i] = ix.Versions(subject)
		out.Versions[subject] = len(all[i])
	}
	if !prev.extends(out) {
		prev = nil
	}
	from := map[string]int{}
	if prev != nil {
		from = prev.Versions
	}
	r := &reader{s: s, trees: map[string]*object.Tree{}}
	found := make([][]Break, len(subjects))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, subject := range subjects {
		if from[subject] >= len(all[i]) {
			continue
		}
		g.Go(func() error {
			var err error
			found[i], err = r.audit(all[i], from[subject])
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if prev != nil {
		found = append(found, prev.Breaks)
	}
	out.Breaks = slices.Concat(found...)
	slices.SortStableFunc(out.Breaks, func(a, b Break) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), cmp.Compare(a.Version, b.Version))
	})
	return out, nil
}

// extends reports whether a (nil: no audit) may be extended to the audit of b: it
// counts no more versions of any subject than b does.
func (a *Audited) extends(b *Audited) bool {
	if a == nil {
		return false
	}
	for subject, n := range a.Versions {
		if n > b.Versions[subject] {
			return false
		}
	}
	return true
}

// audit checks the versions of one subject from index from on (the first has nothing
// to be checked against), oldest first. A parsed version is held only while a later
// check needs it: up to the last version a _TRANSITIVE level checks, every earlier
// one; after it, the one before, so a long history at other levels holds two.
func (r *reader) audit(vs []versions.Version, from int) ([]Break, error) {
	parsed := map[int]parsed{}
	last := lastTransitive(vs)
	var out []Break
	for i := max(from, 1); i < len(vs); i++ {
		b, err := r.check(parsed, vs[:i], vs[i])
		if err != nil {
			return nil, fmt.Errorf("audit %s version %d: %w", vs[i].Subject, vs[i].Version, err)
		}
		if b != nil {
			out = append(out, *b)
		}
		if i >= last {
			delete(parsed, vs[i-1].Version)
		}
	}
	return out, nil
}

// lastTransitive is the index of the last version whose level is _TRANSITIVE (checked
// against every earlier version), 0 when there is none.
func lastTransitive(vs []versions.Version) int {
	last := 0
	for i, v := range vs {
		if l, err := checker.ParseLevel(v.Compatibility); err == nil && l.Transitive() {
			last = i
		}
	}
	return last
}

// reader reads versions' texts and the files they import at their commits, for
// several goroutines (the Protobuf compiler resolves imports from several too): the
// trees are shared under a lock, the object storer locks its own reads
// (gitrepo.Open).
type reader struct {
	mu    sync.Mutex
	s     storer.EncodedObjectStorer
	trees map[string]*object.Tree
	// order lists the commits of trees, oldest first: at most maxTrees are kept.
	order []string
}

// maxTrees bounds the commit trees a reader keeps for the imports of the versions it
// parses. A tree keeps the subtrees its look-ups opened (contracts/ with a name map
// of every domain), so keeping every commit's made the audit of a 5,000-commit
// history of 100,000 subjects hold gigabytes; the subjects audited at the same time
// (one per core) read a few commits each.
const maxTrees = 16

// parsed is a version's parse result.
type parsed struct {
	schema checker.Schema
	err    error
}

// check returns the break of v against the earlier versions its level reaches, or nil.
func (r *reader) check(parsed map[int]parsed, earlier []versions.Version, v versions.Version) (*Break, error) {
	level, err := checker.ParseLevel(v.Compatibility)
	if err != nil || level == checker.None {
		return nil, nil //nolint:nilerr // an invalid level was a lint error at the time
	}
	eng, ok := formats.Lookup(v.Format)
	if !ok {
		return nil, nil
	}
	if !level.Transitive() {
		earlier = earlier[len(earlier)-1:]
	}
	prev := make([]checker.Version, 0, len(earlier))
	for _, e := range earlier {
		if e.Format != v.Format {
			continue // a change of format is a new start, as FORMAT_CHANGED says at the time
		}
		sc, err := r.parse(parsed, eng, e)
		if err != nil {
			if errors.Is(err, errSkip) {
				continue
			}
			return nil, err
		}
		prev = append(prev, checker.Version{Schema: sc, Number: e.Version})
	}
	if len(prev) == 0 {
		return nil, nil
	}
	next, err := r.parse(parsed, eng, v)
	if err != nil {
		if errors.Is(err, errSkip) {
			return nil, nil
		}
		return nil, err
	}
	res := eng.Check(prev, next, level, "")
	if res.Compatible {
		return nil, nil
	}
	b := &Break{Subject: v.Subject, Version: v.Version, Level: string(level), Commit: v.Commit, Time: v.Time, Path: v.Path, Findings: res.Findings}
	for _, f := range res.Findings { // Against is the version number (CheckLevel)
		if !slices.Contains(b.Against, f.Against) {
			b.Against = append(b.Against, f.Against)
		}
	}
	slices.Sort(b.Against)
	if c, err := object.GetCommit(r.s, plumbing.NewHash(v.Commit)); err == nil {
		b.Summary, _, _ = strings.Cut(strings.TrimSpace(c.Message), "\n")
	}
	return b, nil
}

// errSkip marks a version that cannot be parsed: not audited.
var errSkip = errors.New("version does not parse")

// parse returns a version's parsed schema, parsing it on first use into the subject's
// parsed versions.
func (r *reader) parse(done map[int]parsed, eng checker.Engine, v versions.Version) (checker.Schema, error) {
	if p, ok := done[v.Version]; ok {
		return p.schema, p.err
	}
	sc, err := r.parseText(eng, v)
	done[v.Version] = parsed{sc, err}
	return sc, err
}

func (r *reader) parseText(eng checker.Engine, v versions.Version) (checker.Schema, error) {
	data, err := gitrepo.ReadBlob(r.s, plumbing.NewHash(v.Blob), contract.MaxSchemaBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s version %d: %w", v.Subject, v.Version, err)
	}
	sc, err := eng.Parse(checker.ParseInput{
		Input: checker.Input{Path: v.Path, Data: data},
		Name:  strings.TrimPrefix(v.Path, contract.ContractsDir+"/"),
		Resolve: func(name string) ([]byte, error) {
			return r.readAt(v.Commit, contract.ContractsDir+"/"+name)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSkip, err)
	}
	return sc, nil
}

// readAt reads a file of the tree at a commit (an imported schema file).
func (r *reader) readAt(commit, path string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.trees[commit]
	if t == nil {
		c, err := object.GetCommit(r.s, plumbing.NewHash(commit))
		if err != nil {
			return nil, err
		}
		if t, err = c.Tree(); err != nil {
			return nil, err
		}
		if len(r.order) == maxTrees {
			delete(r.trees, r.order[0])
			r.order = r.order[1:]
		}
		r.trees[commit] = t
		r.order = append(r.order, commit)
	}
	e, err := t.FindEntry(path)
	if err != nil || !e.Mode.IsFile() {
		return nil, fmt.Errorf("%s not found at %.12s: %w", path, commit, object.ErrFileNotFound)
	}
	return gitrepo.ReadBlob(r.s, e.Hash, contract.MaxSchemaBytes)
}

// Diagnostics turns breaks into lint warnings on the schema file as it is named at the
// commit, at the first finding's place in it.
func Diagnostics(bs []Break) contract.Diagnostics {
	var out contract.Diagnostics
	for _, b := range bs {
		d := contract.Diagnostic{Span: located.Span{File: b.Path, Line: 1, Column: 1}, Severity: contract.Warning, Code: CodeBrokeLevel, Message: b.Message()}
		for _, f := range b.Findings {
			if f.Line > 0 && (f.File == "" || strings.HasSuffix(b.Path, f.File)) {
				d.Line, d.Column = f.Line, max(f.Column, 1)
				break
			}
		}
		out = append(out, d)
	}
	return out
}

// CodeBrokeLevel is the lint code of a version on the default branch that its level
// refused (`lint --history`).
const CodeBrokeLevel = "history-broke-level"

// shorten cuts s to at most n runes, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
