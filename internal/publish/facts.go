package publish

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/contractbot/contractbot/internal/change"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/verdict"
	"github.com/contractbot/contractbot/internal/versions"
)

// facts is what the verdict of a merge commit says, for its events.
type facts struct {
	subjects map[string]*verdict.SubjectReport
	signOffs []*verdict.SignOff
	head     *contract.Tree // the commit's tree, as loaded for the verdict
	base     *contract.Tree // its first parent's (nil for a root commit)
	calendar map[string]string
	details  Details
}

// evaluate runs the verdict on a commit against its first parent, as `check` would
// have on the pull request: class, field changes, affected consumers, calendar entry.
func (p *Publisher) evaluate(ctx context.Context, c *object.Commit) (*facts, error) {
	f := &facts{subjects: map[string]*verdict.SubjectReport{}, calendar: map[string]string{}}
	var base plumbing.Hash
	if len(c.ParentHashes) > 0 {
		base = c.ParentHashes[0]
	}
	l, err := change.Between(p.Repo, base, c.Hash)
	if err != nil {
		return nil, err
	}
	r := verdict.Assess(verdict.Input{Base: l.Base, Head: l.Head, History: l.History, Now: c.Committer.When.UTC()})
	for _, s := range r.Subjects {
		f.subjects[s.Subject] = s
	}
	f.signOffs, f.head, f.base = r.SignOffs, l.Head, l.Base
	for _, cc := range r.Calendar {
		if cc.Entry != "" {
			f.calendar[cc.Subject] = cc.Entry
		}
	}
	if p.Details != nil {
		if f.details, err = p.Details.Details(ctx, c); err != nil {
			return nil, fmt.Errorf("details of the merge: %w", err)
		}
	}
	if f.details.PullRequest == nil {
		f.details.PullRequest = PullRequestOf(c.Message)
	}
	return f, nil
}

// data builds an event's data for version v of its subject published at c.
// before is the subject's current version number before c (0: none, or deleted),
// oldLevel its level before c ("" when it had none).
func (f *facts) data(ix *versions.Index, c *object.Commit, v versions.Version, before int, oldLevel, level string, registeredID int) events.Published {
	d := events.Published{
		Subject: v.Subject, Version: v.Version, ID: v.ID, RegisteredID: registeredID,
		Format: v.Format, Level: level, Class: string(verdict.Safe),
		Changes: []events.FieldChange{}, Affected: []events.Consumer{},
		SignOffs: f.details.SignOffs, Override: f.details.Override,
		Calendar: f.calendar[v.Subject], PullRequest: f.details.PullRequest,
		MergeCommit: c.Hash.String(), SchemaFile: v.Path,
	}
	h := ix.BySubject[v.Subject]
	if f := ix.Folders[h.Folder]; f != nil {
		d.SchemaFile = h.Folder + "/" + f.Schema
		if f.Format != "" {
			d.Format = f.Format
		}
	}
	if before != 0 && before != v.Version {
		prev := h.Versions[before-1]
		d.Previous = &events.Ref{Version: prev.Version, ID: prev.ID}
	}
	sr := f.subjects[v.Subject]
	if sr == nil {
		return d
	}
	d.Class = string(sr.Class)
	d.Governance = sr.Governance
	if oldLevel != "" && oldLevel != level {
		d.OldLevel = oldLevel
	}
	for _, ch := range sr.Changes {
		d.Changes = append(d.Changes, events.FieldChange{Kind: string(ch.Kind), Path: ch.Path, OldPath: ch.OldPath,
			Old: ch.Old, New: ch.New, Effect: string(ch.Effect), Message: ch.Message})
	}
	d.Changes = append(d.Changes, f.contractChanges(sr)...)
	reports := []*verdict.SubjectReport{sr}
	// A Protobuf file's change reaches the consumers of the subjects that import it,
	// whose own schema files (and so versions) did not change.
	own := importPath(d.SchemaFile)
	for _, name := range sortedKeys(f.subjects) {
		ih := ix.BySubject[name]
		if name == v.Subject || ih == nil || ih.Current == 0 {
			continue
		}
		for _, imp := range ih.Versions[ih.Current-1].Imports {
			if imp == own {
				reports = append(reports, f.subjects[name])
				break
			}
		}
	}
	seen := map[string]bool{}
	for _, r := range reports {
		for _, a := range r.Affected {
			if key := a.Subject + "\x00" + a.Name; !seen[key] {
				seen[key] = true
				d.Affected = append(d.Affected, events.Consumer{Name: a.Name, Subject: a.Subject, Owner: a.Owner,
					Effect: string(a.Effect), Direct: a.Direct, Hops: a.Hops})
			}
		}
	}
	// A governance change (a level loosened, another owner, ...) reaches every
	// consumer whose team had to agree, though no field changed; a tightened level
	// reaches every consumer too, harmlessly.
	for _, so := range f.signOffs {
		for _, ref := range so.For {
			if key := ref.Subject + "\x00" + ref.Consumer; ref.Subject == v.Subject && !seen[key] {
				seen[key] = true
				effect := string(ref.Effect)
				if effect == "" {
					effect = "meaning"
				}
				d.Affected = append(d.Affected, events.Consumer{Name: ref.Consumer, Subject: ref.Subject, Owner: so.Team,
					Effect: effect, Direct: true})
			}
		}
	}
	if d.OldLevel != "" && f.head != nil {
		if s := f.head.Subject(v.Subject); s != nil {
			for _, c := range s.Consumers {
				if key := v.Subject + "\x00" + c.Name; !seen[key] {
					seen[key] = true
					d.Affected = append(d.Affected, events.Consumer{Name: c.Name, Subject: v.Subject, Owner: c.Owner,
						Effect: "harmless", Direct: true})
				}
			}
		}
	}
	return d
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PullRequestOf reads the pull request number from a merge commit's message, as GitHub
// writes it ("Merge pull request #42 from ..." or a squash "Title (#42)").
func PullRequestOf(message string) *events.PullRequest {
	if n := gitrepo.MergedPullRequest(message); n > 0 {
		return &events.PullRequest{Number: n}
	}
	return nil
}

// contractChanges are the changes of a subject's data contract as event changes: each
// metadata property (owner, tier, topic) that changed, then each rule and tag the
// verdict lists (rule-added, rule-removed, rule-changed, tag-added, tag-removed). A
// rule that can reject or alter records (a CONDITION that fails with ERROR or DLQ, a
// TRANSFORM) means something to producers or readers; the rest is harmless.
func (f *facts) contractChanges(sr *verdict.SubjectReport) []events.FieldChange {
	var out []events.FieldChange
	if f.base != nil && f.head != nil {
		if b, h := f.base.Subject(sr.Subject), f.head.Subject(sr.Subject); b != nil && h != nil {
			for _, p := range []struct{ name, old, new string }{{"owner", b.Owner, h.Owner}, {"tier", b.Tier, h.Tier}, {"topic", b.Topic, h.Topic}} {
				if p.old != p.new {
					out = append(out, events.FieldChange{Kind: "metadata-changed", Path: "metadata.properties." + p.name, Old: p.old, New: p.new,
						Effect: "harmless", Message: fmt.Sprintf("metadata property %s changes from %q to %q", p.name, p.old, p.new)})
				}
			}
		}
	}
	for _, c := range sr.DataContract {
		ch := events.FieldChange{Kind: c.What, Effect: "harmless", Message: c.Message}
		if c.Rule != "" {
			ch.Path = "rules." + c.Rule
			if c.What == "rule-removed" {
				ch.Old = c.Mode + " " + c.Kind
			} else {
				ch.New = c.Mode + " " + c.Kind
			}
		} else {
			ch.Path = c.Field
			if c.What == "tag-removed" {
				ch.Old = c.Tag
			} else {
				ch.New = c.Tag
			}
		}
		if c.Producers || c.Readers {
			ch.Effect = "meaning"
		}
		out = append(out, ch)
	}
	return out
}
