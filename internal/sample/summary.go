package sample

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/contractbot/contractbot/internal/report"
)

// Result is what one run of sample found, per topic: the JSON shape of
// `contractbot sample --format json` (docs/sample.md).
type Result struct {
	Topics []TopicResult `json:"topics"`
}

// TopicResult is one topic's messages and problems.
type TopicResult struct {
	Topic      string `json:"topic"`
	Subject    string `json:"subject"`
	Messages   int    `json:"messages"`
	Conforming int    `json:"conforming"`
	// Problems are per kind and field, in the order of Kinds, then by field.
	Problems []ProblemCount `json:"problems"`
	// Note says what limited the reading (a timeout), "" when nothing did.
	Note string `json:"note,omitempty"`
}

// ProblemCount is one kind of problem at one field: how many messages have it, the
// first one seen, and what it says and what to do.
type ProblemCount struct {
	Kind Kind `json:"kind"`
	// Part is "key" for a problem of the records' keys, "" for their values.
	Part    string  `json:"part,omitempty"`
	Count   int     `json:"count"`
	Field   string  `json:"field"`
	Example Example `json:"example"`
	Message string  `json:"message"`
}

// Example locates one message with the problem.
type Example struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
}

// Conforms reports whether every message read conforms.
func (r *Result) Conforms() bool {
	for _, t := range r.Topics {
		if t.Conforming != t.Messages {
			return false
		}
	}
	return true
}

// Tally counts the judged records of one topic. It is not safe for concurrent use.
type Tally struct {
	topic, subject string
	messages, ok   int
	groups         map[groupKey]*ProblemCount
	note           string
}

type groupKey struct {
	kind  Kind
	key   bool
	field string
}

// NewTally starts the count of a topic judged by j.
func NewTally(j *Judge) *Tally {
	t := &Tally{topic: j.Topic, groups: map[groupKey]*ProblemCount{}}
	if j.Value != nil {
		t.subject = j.Value.Subject.Subject
	}
	return t
}

// Add counts one record and its problems.
func (t *Tally) Add(rec Record, probs []Problem) {
	t.messages++
	if len(probs) == 0 {
		t.ok++
		return
	}
	for _, p := range probs {
		k := groupKey{p.Kind, p.Key, p.Field}
		g := t.groups[k]
		if g == nil {
			g = &ProblemCount{Kind: p.Kind, Field: p.Field, Example: Example{rec.Partition, rec.Offset},
				Message: strings.TrimSpace(p.Detail + " " + info(p.Kind).Advice)}
			if p.Key {
				g.Part = "key"
				g.Message = "Key: " + g.Message
			}
			t.groups[k] = g
		} else if rec.Partition < g.Example.Partition || (rec.Partition == g.Example.Partition && rec.Offset < g.Example.Offset) {
			// The example is the earliest message, whatever order the partitions came in.
			g.Example = Example{rec.Partition, rec.Offset}
			g.Message = strings.TrimSpace(p.Detail + " " + info(p.Kind).Advice)
			if p.Key {
				g.Message = "Key: " + g.Message
			}
		}
		g.Count++
	}
}

// Note records what limited the reading of the topic.
func (t *Tally) Note(s string) { t.note = s }

// Result returns the topic's result.
func (t *Tally) Result() TopicResult {
	r := TopicResult{Topic: t.topic, Subject: t.subject, Messages: t.messages, Conforming: t.ok, Problems: []ProblemCount{}, Note: t.note}
	for _, g := range t.groups {
		r.Problems = append(r.Problems, *g)
	}
	sort.Slice(r.Problems, func(i, j int) bool {
		a, b := r.Problems[i], r.Problems[j]
		if a.Part != b.Part {
			return a.Part < b.Part
		}
		if rank(a.Kind) != rank(b.Kind) {
			return rank(a.Kind) < rank(b.Kind)
		}
		return a.Field < b.Field
	})
	return r
}

// JSON renders a result as indented JSON, the stable shape of docs/sample.md.
func JSON(r *Result) string {
	if r.Topics == nil {
		r.Topics = []TopicResult{}
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Sprintf("{\"error\": %q}\n", err.Error())
	}
	return string(b) + "\n"
}

// Text renders a result for a person.
func Text(r *Result) string {
	var b strings.Builder
	bad := 0
	for _, t := range r.Topics {
		state := "conforms"
		if t.Conforming != t.Messages {
			state = "departs from the contract"
			bad++
		}
		fmt.Fprintf(&b, "%s (%s): %s read, %d conforming: %s\n", t.Topic, t.Subject, plural(t.Messages, "message"), t.Conforming, state)
		if t.Note != "" {
			fmt.Fprintf(&b, "  note: %s\n", t.Note)
		}
		for _, p := range t.Problems {
			where := p.Field
			if where == "" {
				where = "(whole message)"
			}
			if p.Part != "" {
				where = "key " + where
			}
			fmt.Fprintf(&b, "  %-18s %5d  %s  (first at partition %d, offset %d)\n", p.Kind, p.Count, where, p.Example.Partition, p.Example.Offset)
			fmt.Fprintf(&b, "      %s\n", p.Message)
		}
	}
	switch {
	case len(r.Topics) == 0:
		b.WriteString("no topic was sampled: no subject of the contract gives a topic.\n")
	case bad == 0:
		fmt.Fprintf(&b, "every message of %s conforms to the contract.\n", plural(len(r.Topics), "topic"))
	default:
		verb := "carry"
		if bad == 1 {
			verb = "carries"
		}
		fmt.Fprintf(&b, "%d of %s %s messages that depart from the contract.\n", bad, plural(len(r.Topics), "topic"), verb)
	}
	return b.String()
}

// plural counts things: "1 message", "2 messages".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Sampled is the result as the health report and the monthly digest list it: the
// topics whose messages do not all conform, with their kinds of problem.
func (r *Result) Sampled(source string) *report.Sampled {
	s := &report.Sampled{Source: source, Topics: len(r.Topics), Departing: []report.Departing{}}
	for _, t := range r.Topics {
		if t.Conforming == t.Messages {
			continue
		}
		d := report.Departing{Topic: t.Topic, Subject: t.Subject, Messages: t.Messages, Conforming: t.Conforming}
		for _, p := range t.Problems {
			if !slices.Contains(d.Kinds, string(p.Kind)) {
				d.Kinds = append(d.Kinds, string(p.Kind))
			}
		}
		s.Departing = append(s.Departing, d)
	}
	return s
}
