// Package report builds the repository's health report (`contractbot report`): unused
// subjects, lineage coverage and black boxes, deprecated fields still read, and the
// history that broke its level. It is pure: it reads a loaded tree, the versions
// index and the history audit an edge has built.
package report

import (
	"slices"
	"sort"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/history"
	"github.com/contractbot/contractbot/internal/versions"
)

// Health is the health report of a contract repository at one commit.
type Health struct {
	Commit   string    `json:"commit"`
	At       time.Time `json:"at"`
	Subjects int       `json:"subjects"`
	// Unused lists the subjects no consumer reads, oldest first.
	Unused []Unused `json:"unused"`
	// Lineage is the coverage of declared lineage among the consumers that compute
	// something (jobs).
	Lineage Lineage `json:"lineage"`
	// DeprecatedReads lists the reads of deprecated fields.
	DeprecatedReads []DeprecatedRead `json:"deprecated_reads"`
	// Broken lists the versions of the default branch that broke their level.
	Broken []history.Break `json:"history_broke_level"`
	// Automation is how changes reached the branch and how long sign-offs took
	// (SetAutomation; nil when not computed).
	Automation *Automation `json:"automation,omitempty"`
	// Sampled lists the topics whose data departs from the contract, from a sample
	// of their messages (SetSampled; nil when no sample was given).
	Sampled *Sampled `json:"sampled,omitempty"`
	// NotDerived names the figures this report cannot compute offline, and why.
	NotDerived []string `json:"not_derived"`
}

// importedSchemas lists the schema files the current versions of the index import
// (Protobuf imports, JSON Schema references): a subject other schemas build on is
// used even when no consumer reads it.
func importedSchemas(tree *contract.Tree, ix *Indexed) map[string]bool {
	out := map[string]bool{}
	if ix == nil {
		return out
	}
	for _, s := range tree.Subjects {
		for _, imp := range ix.subjects[s.Subject].imports {
			out[contract.ContractsDir+"/"+imp] = true
		}
	}
	return out
}

// Indexed is what a report reads of the versions index: its head, when each subject's
// first version appeared, and what each subject's current version imports. A report
// that keeps these instead of the index lets the index go before the tree is loaded
// (at 100,000 subjects the index is about 150 MB, these about 10 MB).
type Indexed struct {
	head     string
	subjects map[string]indexedSubject
}

type indexedSubject struct {
	first   time.Time // when its first version appeared
	aged    bool      // it has a version, so first is known
	imports []string  // what its current version imports (none when deleted at the head)
}

// IndexedOf keeps of the versions index what Build reads; nil for nil.
func IndexedOf(ix *versions.Index) *Indexed {
	if ix == nil {
		return nil
	}
	out := &Indexed{head: ix.Head, subjects: make(map[string]indexedSubject, len(ix.BySubject))}
	for name, h := range ix.BySubject {
		var s indexedSubject
		if len(h.Versions) > 0 {
			s.first, s.aged = h.Versions[0].Time, true
		}
		if v, ok := ix.Current(name); ok {
			s.imports = v.Imports
		}
		out.subjects[name] = s
	}
	return out
}

// Unused is a subject without consumers, whose schema no other schema imports.
type Unused struct {
	Subject string `json:"subject"`
	Owner   string `json:"owner"`
	Topic   string `json:"topic,omitempty"`
	// Since is when its first version appeared on the default branch; Days its age.
	Since time.Time `json:"since,omitzero"`
	Days  int       `json:"days"`
}

// Lineage counts the jobs that declare what they produce.
type Lineage struct {
	Jobs     int `json:"jobs"`
	Declared int `json:"declared"`
	// Coverage is Declared/Jobs (1 when there are no jobs).
	Coverage float64 `json:"coverage"`
	// BlackBoxes are the jobs that read subjects and declare no produces:, by
	// subject and name.
	BlackBoxes []Consumer `json:"black_boxes"`
}

// Consumer names one consumer of one subject.
type Consumer struct {
	Subject string `json:"subject"`
	Name    string `json:"name"`
	Owner   string `json:"owner"`
	Kind    string `json:"kind"`
}

// DeprecatedRead is one read of a deprecated field.
type DeprecatedRead struct {
	Consumer
	Field       string    `json:"field"`
	Since       time.Time `json:"since,omitzero"`
	RemoveAfter time.Time `json:"remove_after,omitzero"`
	Replacement string    `json:"replacement,omitempty"`
}

// DeprecatedReads lists consumer c's reads of fields subject s deprecates (as lint
// warns of them: the fields c names in reads:, or their parents), in c's order.
func DeprecatedReads(s *contract.Subject, c *contract.Consumer) []DeprecatedRead {
	var out []DeprecatedRead
	for _, read := range c.Reads {
		field, d := s.DeprecationOf(read)
		if d == nil {
			continue
		}
		out = append(out, DeprecatedRead{Consumer: Consumer{Subject: s.Subject, Name: c.Name, Owner: c.Owner, Kind: c.Kind},
			Field: field, Since: d.Since, RemoveAfter: d.RemoveAfter, Replacement: d.Replacement})
	}
	return out
}

// jobKinds are the consumer kinds that compute new data, whose lineage matters.
var jobKinds = []string{"flink-job", "spark-job", "kafka-streams", "batch-job"}

// Build computes the report of a tree at now, with the versions index of the default
// branch (nil: no ages) and the audit of its history.
func Build(tree *contract.Tree, ix *versions.Index, broken []history.Break, now time.Time) *Health {
	return BuildIndexed(tree, IndexedOf(ix), broken, now)
}

// BuildIndexed is Build with what the report reads of the versions index (nil: no
// ages).
func BuildIndexed(tree *contract.Tree, ix *Indexed, broken []history.Break, now time.Time) *Health {
	r := &Health{At: now, Subjects: len(tree.Subjects), Unused: []Unused{}, DeprecatedReads: []DeprecatedRead{}, Broken: broken,
		NotDerived: []string{
			"subjects with a topic but never published: the publish marks are commit statuses on GitHub, not in the repository",
			notDerivedAutomation + ": they come from the change events log or the bot's comments on GitHub (contractbot report --events FILE or --github OWNER/NAME)",
		}}
	if r.Broken == nil {
		r.Broken = []history.Break{}
	}
	if ix != nil {
		r.Commit = ix.head
	}
	r.Lineage.BlackBoxes = []Consumer{}
	imported := importedSchemas(tree, ix)
	for _, s := range tree.Subjects {
		if len(s.Consumers) == 0 && !imported[s.SchemaFile] {
			u := Unused{Subject: s.Subject, Owner: s.Owner, Topic: s.Topic}
			if ix != nil {
				if h := ix.subjects[s.Subject]; h.aged {
					u.Since = h.first
					u.Days = int(now.Sub(u.Since).Hours() / 24)
				}
			}
			r.Unused = append(r.Unused, u)
		}
		for _, c := range s.Consumers {
			ref := Consumer{Subject: s.Subject, Name: c.Name, Owner: c.Owner, Kind: c.Kind}
			if slices.Contains(jobKinds, c.Kind) {
				r.Lineage.Jobs++
				if len(c.Produces) > 0 {
					r.Lineage.Declared++
				} else {
					r.Lineage.BlackBoxes = append(r.Lineage.BlackBoxes, ref)
				}
			}
			r.DeprecatedReads = append(r.DeprecatedReads, DeprecatedReads(s, c)...)
		}
	}
	r.Lineage.Coverage = 1
	if r.Lineage.Jobs > 0 {
		r.Lineage.Coverage = float64(r.Lineage.Declared) / float64(r.Lineage.Jobs)
	}
	sort.SliceStable(r.Unused, func(i, j int) bool {
		if r.Unused[i].Days != r.Unused[j].Days {
			return r.Unused[i].Days > r.Unused[j].Days
		}
		return r.Unused[i].Subject < r.Unused[j].Subject
	})
	return r
}
