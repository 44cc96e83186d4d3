// Package impact finds the consumers a schema change touches: directly, the consumers
// of the changed subject that read a changed field; indirectly, through the `produces`
// lineage of those consumers, hop after hop, the readers of every output field derived
// from a changed input. It is pure: a loaded tree and a change list in, a list out.
package impact

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// WholeSubject is the path of a change to the subject as a whole (deleted, renamed):
// it touches every reader.
const WholeSubject = checker.WholeSubject

// Step is one link of a lineage chain: a field of a subject, reached through a
// consumer (Via is empty for the origin).
type Step struct {
	Via     string `json:"via,omitempty"`
	Subject string `json:"subject"`
	Field   string `json:"field"`
}

// Hit is one change reaching one consumer.
type Hit struct {
	// Read is the first entry of the consumer's reads that matched; Reads all of them.
	Read  string   `json:"read"`
	Reads []string `json:"reads"`
	// Field is the changed field of the consumer's subject (derived, for indirect hits).
	Field string `json:"field"`
	// Change is the original change in the changed subject.
	Change checker.Change `json:"change"`
	Effect checker.Effect `json:"effect"`
	// Chain leads from the changed field to Field: origin first.
	Chain []Step `json:"chain"`
}

// Affected is one consumer and every change that reaches it.
type Affected struct {
	Consumer *contract.Consumer `json:"-"`
	Name     string             `json:"consumer"`
	Subject  string             `json:"subject"`
	Owner    string             `json:"owner"`
	Kind     string             `json:"kind"`
	// Direct: the consumer reads the changed subject itself.
	Direct bool `json:"direct"`
	// Hops is the number of lineage hops from the changed subject (0 when direct).
	Hops   int            `json:"hops"`
	Effect checker.Effect `json:"effect"`
	Hits   []Hit          `json:"hits"`
}

// Touches reports whether a consumer that reads path read is touched by a change at
// path changed: the same field, a field under one it reads whole, or a parent of it.
func Touches(read, changed string) bool {
	switch {
	case read == "*" || changed == WholeSubject || read == changed:
		return true
	case strings.HasPrefix(changed, read+"."):
		return true // reads product_info, product_info.detail.price changed
	case strings.HasPrefix(read, changed+"."):
		return true // reads product_info.detail.price, product_info changed
	}
	return false
}

// changedPaths lists the paths by which a change reaches readers: the field itself
// and, for a rename or move, the old path, whose readers break.
func changedPaths(c checker.Change) []string {
	if c.OldPath != "" && c.OldPath != c.Path {
		if c.Kind == checker.FieldRenamed || c.Kind == checker.FieldMoved {
			return []string{c.OldPath}
		}
		return []string{c.Path, c.OldPath}
	}
	return []string{c.Path}
}

// Analyze returns the consumers that the changes to subject touch, directly and
// through lineage. Harmless changes (an added field, a new doc) reach nobody. The result
// is sorted: direct first, then worst effect, then subject and consumer name.
//
// Following every change through lineage costs changes x the outputs each reaches;
// past MaxHits hits (or MaxHits steps) the changes are followed as one change to the
// whole subject instead, at their worst effect (kind checker.ChangesCut), which
// reaches every consumer any of them could reach: the list is cut, never a reader.
func Analyze(tree *contract.Tree, subject string, changes []checker.Change) []Affected {
	a := newAnalysis(tree)
	worst := checker.Effect("")
	for _, c := range changes {
		if c.Effect == checker.Harmless || c.Effect == "" {
			continue
		}
		if c.Effect.Rank() > worst.Rank() || worst == "" {
			worst = c.Effect
		}
		for _, p := range changedPaths(c) {
			if a.work > MaxHits {
				break
			}
			a.reach(subject, p, c, c.Effect, []Step{{Subject: subject, Field: p}}, 0)
		}
	}
	if a.work > MaxHits {
		a = newAnalysis(tree)
		whole := checker.Change{Kind: checker.ChangesCut, Path: WholeSubject, Effect: worst, New: fmt.Sprint(len(changes)),
			Message: fmt.Sprintf("the %d changes to %s reach more readers through lineage than are listed one by one (over %d); they are followed as one change to the whole subject, at their worst effect", len(changes), subject, MaxHits)}
		a.reach(subject, WholeSubject, whole, worst, []Step{{Subject: subject}}, 0)
	}
	out := make([]Affected, 0, len(a.byKey))
	for _, af := range a.byKey {
		sort.SliceStable(af.Hits, func(i, j int) bool {
			if af.Hits[i].Field != af.Hits[j].Field {
				return af.Hits[i].Field < af.Hits[j].Field
			}
			return af.Hits[i].Change.Kind < af.Hits[j].Change.Kind
		})
		out = append(out, *af)
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.Direct != y.Direct {
			return x.Direct
		}
		if x.Effect.Rank() != y.Effect.Rank() {
			return x.Effect.Rank() > y.Effect.Rank()
		}
		if x.Hops != y.Hops {
			return x.Hops < y.Hops
		}
		if x.Subject != y.Subject {
			return x.Subject < y.Subject
		}
		return x.Name < y.Name
	})
	return out
}

// MaxHits bounds the work of one Analyze: the hits it records plus the (subject,
// field) places it visits.
const MaxHits = 100_000

type analysis struct {
	tree  *contract.Tree
	byKey map[string]*Affected
	// seen guards against lineage cycles and repeated work: subject|field|change.
	seen map[string]bool
	// work counts hits and places visited, against MaxHits.
	work int
}

func newAnalysis(tree *contract.Tree) *analysis {
	return &analysis{tree: tree, byKey: map[string]*Affected{}, seen: map[string]bool{}}
}

// reach records every consumer of subject touched at path, and follows their lineage.
func (a *analysis) reach(subject, path string, origin checker.Change, effect checker.Effect, chain []Step, hops int) {
	key := subject + "\x00" + path + "\x00" + string(origin.Kind) + "\x00" + origin.Path
	if a.seen[key] || a.work > MaxHits {
		return
	}
	a.seen[key] = true
	a.work++
	s := a.tree.Subject(subject)
	if s == nil {
		return
	}
	for _, c := range s.Consumers {
		var reads []string
		for _, r := range c.Reads {
			if Touches(r, path) {
				reads = append(reads, r)
			}
		}
		if len(reads) > 0 {
			a.hit(c, hops, Hit{Read: reads[0], Reads: reads, Field: path, Change: origin, Effect: effect, Chain: chain})
		}
		a.follow(c, path, origin, effect, chain, hops)
	}
}

// follow carries a change through a consumer's produces mappings to the output
// fields derived from a touched input.
func (a *analysis) follow(c *contract.Consumer, path string, origin checker.Change, effect checker.Effect, chain []Step, hops int) {
	targets := make([]string, 0, len(c.Produces))
	for t := range c.Produces {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	for _, target := range targets {
		outs := make([]string, 0, len(c.Produces[target]))
		for o := range c.Produces[target] {
			outs = append(outs, o)
		}
		sort.Strings(outs)
		for _, out := range outs {
			for _, in := range c.Produces[target][out] {
				if Touches(in, path) {
					next := append(append([]Step{}, chain...), Step{Via: c.Name, Subject: target, Field: out})
					a.reach(target, out, origin, effect, next, hops+1)
					break
				}
			}
		}
	}
}

func (a *analysis) hit(c *contract.Consumer, hops int, h Hit) {
	key := c.Subject + "\x00" + c.Name
	af := a.byKey[key]
	if af == nil {
		af = &Affected{Consumer: c, Name: c.Name, Subject: c.Subject, Owner: c.Owner, Kind: c.Kind, Direct: hops == 0, Hops: hops, Effect: h.Effect}
		a.byKey[key] = af
	}
	if hops < af.Hops {
		af.Hops = hops
	}
	af.Direct = af.Direct || hops == 0
	if h.Effect.Rank() > af.Effect.Rank() {
		af.Effect = h.Effect
	}
	af.Hits = append(af.Hits, h)
	a.work++
}

// ChainString renders a chain as `orders.amount -> dwd-order-detail -> dw.order-detail.amount_cents`.
func ChainString(chain []Step) string {
	var b strings.Builder
	for i, s := range chain {
		if i > 0 {
			fmt.Fprintf(&b, " -> %s -> ", s.Via)
		}
		b.WriteString(s.Subject)
		if s.Field != "" {
			b.WriteString("." + s.Field)
		}
	}
	return b.String()
}

// Readers answers "who reads this?": every consumer of subject that reads field (or
// any field, when field is empty), directly and through lineage.
func Readers(tree *contract.Tree, subject, field string) []Affected {
	q := checker.Change{Kind: "read", Path: field, Effect: checker.Breaks}
	return Analyze(tree, subject, []checker.Change{q})
}
