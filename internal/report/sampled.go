package report

import (
	"fmt"
	"strings"
)

// Departing is a topic whose sampled messages depart from the contract (contractbot
// sample): how many of the messages read conform, and the kinds of problem found.
type Departing struct {
	Topic      string   `json:"topic"`
	Subject    string   `json:"subject"`
	Messages   int      `json:"messages"`
	Conforming int      `json:"conforming"`
	Kinds      []string `json:"kinds"`
}

// Sampled is what the report knows of the topics' data: the topics that depart from
// the contract in a sample of their messages (Source says which).
type Sampled struct {
	// Source names where the sample comes from ("sample.json", "serve's sampler").
	Source    string      `json:"source"`
	Topics    int         `json:"topics"`
	Departing []Departing `json:"departing"`
}

// SetSampled adds the section "topics whose data departs from the contract".
func (r *Health) SetSampled(s *Sampled) { r.Sampled = s }

// departingLine renders one topic of the section.
func departingLine(d Departing, code func(string) string) string {
	return fmt.Sprintf("%s (%s): %d of %d message(s) conform; %s", code(d.Topic), code(d.Subject), d.Conforming, d.Messages, strings.Join(d.Kinds, ", "))
}
