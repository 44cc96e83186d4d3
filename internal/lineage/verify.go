package lineage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/openlineage"
)

// DriftKind says what kind of difference a Drift is.
type DriftKind string

// The kinds of drift, in the order the pages list them.
const (
	NoConsumerFile  DriftKind = "no-consumer-file" // a job reads a topic without a consumer file
	UndeclaredRead  DriftKind = "undeclared-read"  // a job reads a field its file does not declare
	NeverObserved   DriftKind = "never-observed"   // a file declares a field (or subject) never seen read
	UnmappedProduce DriftKind = "unmapped-produce" // a job makes an output field from an input the file does not map
	NotInSchema     DriftKind = "not-in-schema"    // a job reads or makes a field the subject's schema does not have
)

// Drift is one difference between what a job was observed doing and its consumer
// file.
type Drift struct {
	Kind    DriftKind
	Job     string // the OpenLineage job name
	Subject string
	// File is the consumer file (for NoConsumerFile, the one to write).
	File string
	// Field is the field read, declared or made ("" when a whole subject is meant).
	Field string
	// Text is the sentence lineage verify prints.
	Text string
}

// Verify compares what jobs were observed doing (OpenLineage events) with the consumer
// files: a job reading a topic without a consumer file, fields read but not declared,
// declared fields (and subjects) never observed, output fields made from inputs the
// file does not map. Drift is returned sorted by its sentence; notes say what could
// not be compared.
func Verify(tree *contract.Tree, observed []*openlineage.Observed) (drift []Drift, notes []string) {
	return verify(tree, observed, Own)
}

func verify(tree *contract.Tree, observed []*openlineage.Observed, parsed Parsed) (drift []Drift, notes []string) {
	byTopic := subjectsByTopic(tree)
	for _, o := range observed {
		job := shown(o.Job)
		seen := map[string]bool{}
		for _, topic := range slices.Sorted(maps.Keys(o.Reads)) {
			s := byTopic[topic]
			if s == nil {
				notes = append(notes, fmt.Sprintf("job %s reads topic %s, which no contract names.", job, shown(topic)))
				continue
			}
			seen[s.Subject] = true
			c := consumerOf(s, o)
			if c == nil {
				drift = append(drift, noConsumerFile(o, s, topic))
				continue
			}
			fields := slices.Sorted(maps.Keys(o.Reads[topic]))
			if len(fields) == 0 {
				notes = append(notes, fmt.Sprintf("job %s reads %s without field-level lineage (no columnLineage facet); its fields are not compared.", job, s.Subject))
				continue
			}
			full := parsed(s)
			for _, f := range fields {
				if !inSchema(full, f) {
					drift = append(drift, Drift{NotInSchema, o.Job, s.Subject, c.File, f,
						fmt.Sprintf("%s: job %s reads %s, which %s's schema does not have: the job's view of topic %s differs from the contract. Find out which schema the job reads the topic with; declaring the field would not pass lint.", c.File, job, shown(f), s.Subject, topic)})
					continue
				}
				if !covers(c.Reads, f) {
					drift = append(drift, Drift{UndeclaredRead, o.Job, s.Subject, c.File, f,
						fmt.Sprintf("%s: job %s reads %s of %s, which the file does not declare.", c.File, job, shown(f), s.Subject)})
				}
			}
			for _, r := range c.Reads {
				if r != "*" && !observedUnder(o.Reads[topic], r) {
					drift = append(drift, Drift{NeverObserved, o.Job, s.Subject, c.File, r,
						fmt.Sprintf("%s: declares reading %s of %s, which job %s was never seen reading.", c.File, r, s.Subject, job)})
				}
			}
			drift = append(drift, producesDrift(o, c, full, topic, byTopic, parsed)...)
		}
		for _, s := range tree.Subjects {
			if c := consumerOf(s, o); c != nil && !seen[s.Subject] && s.Topic != "" {
				drift = append(drift, Drift{NeverObserved, o.Job, s.Subject, c.File, "",
					fmt.Sprintf("%s: declares that %s reads %s, but the job was never seen reading its topic %s.", c.File, job, s.Subject, orDash(s.Topic))})
			}
		}
	}
	slices.SortFunc(drift, func(a, b Drift) int { return strings.Compare(a.Text, b.Text) })
	return drift, notes
}

// Compared says what a Verify of observed could compare: the (job, subject) pairs
// whose topic a contract declares, and, sorted, the datasets of the events that map
// to no contract (outside Kafka, or a topic no contract names).
// Nothing compared is not a match: lineage verify says so and exits 3.
func Compared(tree *contract.Tree, observed []*openlineage.Observed) (pairs int, unmapped []string) {
	byTopic := subjectsByTopic(tree)
	seen := map[string]bool{}
	for _, o := range observed {
		for topic := range o.Reads {
			if byTopic[topic] != nil {
				pairs++
			} else {
				seen["Kafka topic "+topic+", which no contract names"] = true
			}
		}
		for topic := range o.Produces {
			if byTopic[topic] == nil {
				seen["Kafka topic "+topic+", which no contract names"] = true
			}
		}
		for d := range o.Others {
			seen[d] = true
		}
	}
	return pairs, slices.Sorted(maps.Keys(seen))
}

// subjectsByTopic maps each topic to its subject (the -value one when a key and a
// value subject share it).
func subjectsByTopic(tree *contract.Tree) map[string]*contract.Subject {
	byTopic := map[string]*contract.Subject{}
	for _, s := range tree.Subjects {
		if s.Topic != "" && (byTopic[s.Topic] == nil || strings.HasSuffix(s.Subject, "-value")) {
			byTopic[s.Topic] = s
		}
	}
	return byTopic
}

func producesDrift(o *openlineage.Observed, c *contract.Consumer, s *contract.Subject, topic string, byTopic map[string]*contract.Subject, parsed Parsed) []Drift {
	var out []Drift
	for _, outTopic := range slices.Sorted(maps.Keys(o.Produces)) {
		target := byTopic[outTopic]
		if target == nil {
			continue
		}
		target = parsed(target)
		for _, f := range slices.Sorted(maps.Keys(o.Produces[outTopic])) {
			for _, in := range slices.Sorted(maps.Keys(o.Produces[outTopic][f])) {
				field, ok := strings.CutPrefix(in, topic+".")
				if !ok || !inSchema(s, field) {
					continue // a field the input's schema does not have is drift of its own
				}
				if !inSchema(target, f) {
					out = append(out, Drift{NotInSchema, o.Job, target.Subject, c.File, f,
						fmt.Sprintf("%s: job %s makes %s of %s, which %s's schema does not have: the job's view of topic %s differs from the contract. Find out which schema the job writes the topic with; mapping the field would not pass lint.", c.File, shown(o.Job), shown(f), target.Subject, target.Subject, outTopic)})
					break
				}
				if !slices.Contains(c.Produces[target.Subject][f], field) {
					out = append(out, Drift{UnmappedProduce, o.Job, target.Subject, c.File, f,
						fmt.Sprintf("%s: job %s makes %s.%s from %s, which the file does not map.", c.File, shown(o.Job), target.Subject, shown(f), shown(field))})
				}
			}
		}
	}
	return out
}

// inSchema reports whether f is a field path of s's schema (true when the schema did
// not load: nothing to compare with).
func inSchema(s *contract.Subject, f string) bool {
	return s.FieldPaths() == nil || s.HasFieldPath(f)
}

// covers reports whether declared reads include f: the field itself, an enclosing
// field, or "*".
func covers(reads []string, f string) bool {
	for _, r := range reads {
		if r == "*" || r == f || strings.HasPrefix(f, r+".") {
			return true
		}
	}
	return false
}

// observedUnder reports whether a declared read r was seen: r itself or a field under it.
func observedUnder(seen map[string]bool, r string) bool {
	for f := range seen {
		if f == r || strings.HasPrefix(f, r+".") {
			return true
		}
	}
	return false
}

func orDash(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
