// Package publish publishes what the default branch merged: for each first-parent
// commit not yet published, oldest first, and for each subject whose schema or
// compatibility level changed there, it sets the subject's level in the registry,
// registers the version (with references for Protobuf imports), sends the change event,
// and finally marks the commit done.
//
// Every step is idempotent, so a run interrupted at any point is finished by the next
// one: a version already in the registry is found by look-up (and a registry answers
// the existing id when an identical schema is registered again), an event sent again
// has the same id (events.ID), and a commit is marked only after all its work is done.
// A subject's events are sent in commit order.
package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/registry"
	"github.com/contractbot/contractbot/internal/versions"
)

// Registry is what publishing needs of a schema registry (*registry.Client has it):
// a Confluent registry of version 7.4 or later, which keeps a data contract's
// metadata and rules with a schema and takes a subject's compatibility group.
type Registry interface {
	// SetConfig sets a subject's level; SetConfigGroup sets it with Confluent's
	// compatibilityGroup, which makes the registry check a version only against the
	// versions of its group.
	SetConfig(ctx context.Context, subject, level string) error
	SetConfigGroup(ctx context.Context, subject, level, group string) error
	// GetConfig reads a subject's level ("" for the registry's default), to say
	// what refused a version.
	GetConfig(ctx context.Context, subject string) (string, error)
	// LookUp finds the version of a subject that has the schema, with its metadata
	// and rules.
	LookUp(ctx context.Context, subject, schema string, typ registry.SchemaType, refs []registry.Reference) (registry.Schema, error)
	// RegisterSchema registers a schema with its references, metadata and rules
	// (contract.yaml's owner, tier, topic and PII tags, registry.MetadataOf, and its
	// rules, registry.RuleSetOf).
	RegisterSchema(ctx context.Context, subject string, s registry.Schema) (int, error)
	// GetLatest reads a subject's latest version, whose rules a registration
	// without a ruleSet inherits.
	GetLatest(ctx context.Context, subject string) (registry.Schema, error)
}

// Marker remembers which commits are published. The bot's marker is the commit status
// contractbot/publish on GitHub; the CLI's is a file (FileMarker). ctx bounds the
// call (the bot's is a GitHub request).
type Marker interface {
	Done(ctx context.Context, commit string) (bool, error)
	Mark(ctx context.Context, commit string, s Summary) error
}

// Summary is what one commit published.
type Summary struct {
	Commit    string    `json:"commit"`
	Time      time.Time `json:"time"`
	Published []Item    `json:"published"`
}

// Item is one subject version published.
type Item struct {
	Subject      string `json:"subject"`
	Version      int    `json:"version"`
	ID           int    `json:"id"`
	RegisteredID int    `json:"registered_id,omitempty"`
	Level        string `json:"level"`
	// LevelOnly: the level changed, the schema did not (the version was published before).
	LevelOnly bool   `json:"level_only,omitempty"`
	Event     string `json:"event"`
	// NotLatest says, when the registry answered the registration with an earlier
	// version (the same schema, metadata and rules as one it holds), that its latest
	// version is another one, and what that means for producers.
	NotLatest string `json:"not_latest,omitempty"`
}

// Details are facts about a merge commit that Git alone does not hold (the pull
// request's sign-offs as GitHub reports them). Any field may be empty.
type Details struct {
	PullRequest *events.PullRequest
	SignOffs    []events.SignOff
	Override    *events.Override
}

// Detailer tells what GitHub knows of a merge commit (the bot's reads its pull
// request's reviews).
type Detailer interface {
	Details(ctx context.Context, c *object.Commit) (Details, error)
}

// Publisher publishes a repository's default branch.
type Publisher struct {
	Repo *git.Repository
	// Registry receives levels and versions; nil registers nothing (the embedded
	// registry already serves the branch) and only sends events.
	Registry Registry
	Sink     events.Sink
	Marker   Marker
	// Source is the CloudEvents source: the repository's URL or path.
	Source string
	// Details, when set, adds what GitHub knows of a merge commit to its events;
	// otherwise the pull request number is read from the commit message.
	Details Detailer
	// Progress, when set, is called after each commit is marked.
	Progress func(Summary)
	// Index, when set, is a versions index of the branch that Publish reuses instead of
	// indexing the history again (the bot keeps one between pushes). Publish extends it
	// and leaves it at the last commit it indexed; an index that is ahead of the work
	// or of another history is replaced by a new one. Not safe for concurrent use.
	Index *versions.Index
}

// Publish publishes every first-parent commit up to head that the marker does not
// know as done, oldest first, and returns what each published. It stops at the first
// failure: what was done before it stays done, and the next run resumes there.
func (p *Publisher) Publish(ctx context.Context, head plumbing.Hash) ([]Summary, error) {
	if p.Marker == nil || p.Sink == nil {
		return nil, ErrIncomplete
	}
	todo, last, err := p.pending(ctx, head)
	if err != nil {
		return nil, err
	}
	ix, err := p.indexAt(last)
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, c := range todo {
		s, err := p.commit(ctx, ix, c)
		if err != nil {
			return out, fmt.Errorf("publish commit %s: %w", short(c.Hash), err)
		}
		out = append(out, s)
		if p.Progress != nil {
			p.Progress(s)
		}
	}
	return out, nil
}

// indexAt returns the versions index at commit last (empty when last is zero): the
// Publisher's Index extended when it is at or before last, a new one otherwise.
func (p *Publisher) indexAt(last plumbing.Hash) (*versions.Index, error) {
	if p.Index != nil && !last.IsZero() {
		// Extend refuses an index that is not a first-parent ancestor of last (a later
		// commit, after a failed run, or another history) and leaves it untouched.
		if err := p.Index.Extend(p.Repo, last); err == nil {
			return p.Index, nil
		} else if !errors.Is(err, versions.ErrHistoryRewritten) {
			return nil, fmt.Errorf("index the history up to %s: %w", short(last), err)
		}
	}
	ix := versions.New()
	if !last.IsZero() {
		if err := ix.Extend(p.Repo, last); err != nil {
			return nil, fmt.Errorf("index the history up to %s: %w", short(last), err)
		}
	}
	p.Index = ix
	return ix, nil
}

// pending walks back from head along first parents to the newest commit marked done
// and returns the commits after it, oldest first, and that commit (zero when none).
func (p *Publisher) pending(ctx context.Context, head plumbing.Hash) ([]*object.Commit, plumbing.Hash, error) {
	var chain []*object.Commit
	h := head
	for {
		done, err := p.Marker.Done(ctx, h.String())
		if err != nil {
			return nil, plumbing.ZeroHash, fmt.Errorf("read publish state of %s: %w", short(h), err)
		}
		if done {
			break
		}
		c, err := p.Repo.CommitObject(h)
		if err != nil {
			return nil, plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", short(h), err)
		}
		chain = append(chain, c)
		if len(c.ParentHashes) == 0 {
			h = plumbing.ZeroHash
			break
		}
		h = c.ParentHashes[0]
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain, h, nil
}

// state is what publishing compares before and after a commit, per subject.
type state struct {
	current int
	level   string
}

func snapshot(ix *versions.Index) map[string]state {
	out := map[string]state{}
	for s, h := range ix.BySubject {
		st := state{current: h.Current}
		if f := ix.Folders[h.Folder]; f != nil {
			st.level = f.Compatibility
		}
		out[s] = st
	}
	return out
}

// commit publishes one commit; ix is indexed up to its first parent and is extended
// to it.
func (p *Publisher) commit(ctx context.Context, ix *versions.Index, c *object.Commit) (Summary, error) {
	before := snapshot(ix)
	if err := ix.Extend(p.Repo, c.Hash); err != nil {
		return Summary{}, fmt.Errorf("index: %w", err)
	}
	sum := Summary{Commit: c.Hash.String(), Time: c.Committer.When.UTC(), Published: []Item{}}
	var changed []string
	for s, st := range snapshot(ix) {
		if st.current != 0 && st != before[s] {
			changed = append(changed, s)
		}
	}
	if len(changed) > 0 {
		facts, err := p.evaluate(ctx, c)
		if err != nil {
			return Summary{}, err
		}
		byPath := importers(ix)
		for _, s := range order(ix, changed, byPath) {
			it, err := p.subject(ctx, ix, c, s, before[s], facts, byPath)
			if err != nil {
				return Summary{}, err
			}
			sum.Published = append(sum.Published, it)
		}
	}
	if err := p.Marker.Mark(ctx, sum.Commit, sum); err != nil {
		return Summary{}, fmt.Errorf("mark done: %w", err)
	}
	return sum, nil
}

// subject publishes one subject's change at c.
// byPath maps Protobuf import paths to subjects (importers).
func (p *Publisher) subject(ctx context.Context, ix *versions.Index, c *object.Commit, subject string, before state, f *facts, byPath map[string]string) (Item, error) {
	h := ix.BySubject[subject]
	v := h.Versions[h.Current-1]
	level := ix.Folders[h.Folder].Compatibility
	it := Item{Subject: subject, Version: v.Version, ID: v.ID, Level: level, LevelOnly: before.current == h.Current}
	if p.Registry != nil {
		text, err := gitrepo.ReadBlob(p.Repo.Storer, plumbing.NewHash(v.Blob), contract.MaxSchemaBytes)
		if err != nil {
			return it, fmt.Errorf("read %s version %d: %w", subject, v.Version, err)
		}
		if err := p.setConfig(ctx, subject, level, f); err != nil {
			return it, err
		}
		typ := registry.TypeOf(v.Format)
		refs := references(ix, v, byPath)
		got, err := p.Registry.LookUp(ctx, subject, string(text), typ, refs)
		switch {
		case err == nil && !p.contractChanged(subject, got, f):
			it.RegisteredID = got.ID
		case err == nil || registry.IsNotFound(err):
			if it.RegisteredID, it.NotLatest, err = p.register(ctx, subject, string(text), typ, refs, f); err != nil {
				if registry.IsIncompatible(err) {
					return it, fmt.Errorf("the registry refuses %s version %d as incompatible with %s; publishing it again fails the same way. Fix the schema in a new commit, or align the registry's level or versions with the repository (contractbot registry diff --url shows how they differ): %w",
						subject, v.Version, p.refusedBy(ctx, subject), err)
				}
				return it, err
			}
		default:
			return it, err
		}
	}
	e := events.New(p.Source, c.Committer.When, f.data(ix, c, v, before.current, before.level, level, it.RegisteredID))
	it.Event = e.ID
	if err := p.Sink.Send(ctx, e); err != nil {
		return it, fmt.Errorf("send the event of %s version %d: %w", subject, v.Version, err)
	}
	return it, nil
}

// setConfig sets a subject's level and, when its contract.yaml at the commit declares
// a compatibility group, the group's key, before the version is registered: a new
// group's first version is then checked against nothing, as the verdict did.
func (p *Publisher) setConfig(ctx context.Context, subject, level string, f *facts) error {
	group := ""
	if f != nil && f.head != nil {
		group = registry.GroupOf(f.head.Subject(subject))
	}
	switch {
	case group != "":
		if level == "" {
			level = "BACKWARD" // Confluent's default: the PUT needs a level
		}
		return p.Registry.SetConfigGroup(ctx, subject, level, group)
	case level != "":
		return p.Registry.SetConfig(ctx, subject, level)
	}
	return nil
}

// refusedBy names what a registry holds that refused a version as incompatible: its
// latest version of subject and the level it applies, as far as it answers.
func (p *Publisher) refusedBy(ctx context.Context, subject string) string {
	what := "the versions it holds"
	if latest, err := p.Registry.GetLatest(ctx, subject); err == nil && latest.Version > 0 {
		what = fmt.Sprintf("its version %d (id %d)", latest.Version, latest.ID)
	}
	if level, err := p.Registry.GetConfig(ctx, subject); err == nil && level != "" {
		what += " at level " + level
	} else if level, err := p.Registry.GetConfig(ctx, ""); err == nil && level != "" {
		what += " at level " + level + " (the registry's default)"
	}
	return what
}

// register registers one version, with its subject's metadata and rules at the commit
// (none when the commit's contract files could not be read: f.head is nil).
//
// Confluent fills a registration's metadata and ruleSet that are absent (null) from the
// subject's latest version before merging the configured defaults and overrides
// (maybeSetMetadataRuleSet); one that is present, even empty, replaces it. Metadata
// is always sent (owner and tier at least), so none is inherited. When the contract
// has no rules and the registry's latest version has some, an empty ruleSet is sent,
// so the removed rules are not carried over (whether or not the schema changed too);
// otherwise none is, because an empty ruleSet is part of a Confluent schema's
// identity (its MD5 tells it apart from none) and would make a version of its own.
//
// A registry answers a registration identical to a version it holds with that version
// (Confluent: the same schema, references, metadata and rules), and keeps its latest
// version as it is; notLatest then says so, since producers that write the latest
// version (use.latest.version) keep the latest's rules.
func (p *Publisher) register(ctx context.Context, subject, text string, typ registry.SchemaType, refs []registry.Reference, f *facts) (id int, notLatest string, err error) {
	mr := p.Registry
	if f == nil || f.head == nil {
		id, err = mr.RegisterSchema(ctx, subject, registry.Schema{Schema: text, SchemaType: typ, References: refs})
		return id, "", err
	}
	s := f.head.Subject(subject)
	rs := registry.RuleSetOf(s)
	if rs == nil {
		latest, err := mr.GetLatest(ctx, subject)
		switch {
		case err == nil && !sameJSON(latest.RuleSet, nil):
			rs = &registry.RuleSet{}
		case err != nil && !registry.IsNotFound(err):
			return 0, "", fmt.Errorf("read the latest version of %s, whose rules a registration without a ruleSet inherits: %w", subject, err)
		}
	}
	if id, err = mr.RegisterSchema(ctx, subject, registry.Schema{Schema: text, SchemaType: typ, References: refs,
		Metadata: registry.MetadataOf(s), RuleSet: rs}); err != nil {
		return 0, "", err
	}
	if latest, err := mr.GetLatest(ctx, subject); err == nil && latest.ID != 0 && latest.ID != id {
		notLatest = fmt.Sprintf("the registry answered with its earlier version of the same schema, metadata and rules (id %d) and keeps version %d (id %d) as %s's latest, so producers that write the latest version (use.latest.version) keep its schema and rules; have version %d deleted (a soft delete) or change the contract so that it differs",
			id, latest.Version, latest.ID, subject, latest.Version)
	}
	return id, notLatest, nil
}

// contractChanged reports whether the registry's version of a subject's schema (a
// look-up's answer) carries other metadata or rules than the subject's contract.yaml
// at the commit: a Confluent registry then takes the schema again as a new version.
// Always false when the commit's contract files could not be read.
func (p *Publisher) contractChanged(subject string, got registry.Schema, f *facts) bool {
	if f == nil || f.head == nil {
		return false
	}
	s := f.head.Subject(subject)
	return !sameJSON(got.Metadata, registry.MetadataOf(s)) || !sameJSON(got.RuleSet, registry.RuleSetOf(s))
}

// sameJSON reports whether a and b print as the same JSON, an empty object being
// the same as none.
func sameJSON(a, b any) bool {
	norm := func(v any) string {
		data, _ := json.Marshal(v)
		if s := string(data); s != "{}" {
			return s
		}
		return "null"
	}
	return norm(a) == norm(b)
}

// order sorts subjects by name, then moves each subject after the subjects of the same
// commit whose schemas it imports, so a reference points at a registered version.
func order(ix *versions.Index, subjects []string, byPath map[string]string) []string {
	sort.Strings(subjects)
	in := map[string]bool{}
	for _, s := range subjects {
		in[s] = true
	}
	var out []string
	seen := map[string]bool{}
	var visit func(s string)
	visit = func(s string) {
		if seen[s] {
			return // visited, or an import cycle (which the loader reports)
		}
		seen[s] = true
		h := ix.BySubject[s]
		for _, imp := range h.Versions[h.Current-1].Imports {
			if dep := byPath[imp]; dep != "" && in[dep] && dep != s {
				visit(dep)
			}
		}
		out = append(out, s)
	}
	for _, s := range subjects {
		visit(s)
	}
	return out
}

// importers maps a schema file's path inside contracts/ (a Protobuf import path) to
// the subject whose schema it is at the indexed head.
func importers(ix *versions.Index) map[string]string {
	out := map[string]string{}
	for folder, fs := range ix.Folders {
		if fs.Subject != "" && fs.Schema != "" && !fs.Broken {
			out[importPath(folder+"/"+fs.Schema)] = fs.Subject
		}
	}
	return out
}

// references lists v's imports that are other subjects' schema files, each pointing at
// the referenced subject's newest version at the indexed head (as the embedded
// registry does: docs/registry.md, References).
func references(ix *versions.Index, v versions.Version, byPath map[string]string) []registry.Reference {
	if len(v.Imports) == 0 {
		return nil
	}
	var refs []registry.Reference
	for _, imp := range v.Imports {
		sub := byPath[imp]
		if sub == "" || sub == v.Subject {
			continue
		}
		if latest, ok := ix.Latest(sub); ok {
			refs = append(refs, registry.Reference{Name: imp, Subject: sub, Version: latest.Version})
		}
	}
	return refs
}

func importPath(p string) string {
	if len(p) > len(versions.ContractsDir)+1 && p[:len(versions.ContractsDir)+1] == versions.ContractsDir+"/" {
		return p[len(versions.ContractsDir)+1:]
	}
	return p
}

func short(h plumbing.Hash) string { return h.String()[:12] }

// ErrIncomplete is returned by a Publisher without a Marker or a Sink.
var ErrIncomplete = errors.New("publish: a publisher needs a marker and a sink")
