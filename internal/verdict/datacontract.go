package verdict

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
)

// ContractChange is one change to a subject's data contract: its rules (contract.yaml's
// `rules:`, the registry's ruleSet) or a field's PII tag (the registry's metadata).
// Publishing registers the schema again with them, as a new version.
type ContractChange struct {
	// What is rule-added, rule-removed, rule-changed, tag-added or tag-removed.
	What string `json:"what"`
	// Rule, Kind and Mode name a rule; OnFailure is its on_failure as written.
	Rule      string `json:"rule,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Mode      string `json:"mode,omitempty"`
	OnFailure string `json:"on_failure,omitempty"`
	// Digest identifies the rule's definition in the head (contract.Rule.Digest; the
	// base's for a rule removed): a sign-off or override of the rule binds to its
	// expression, params, tags and actions, not only its name.
	Digest string `json:"digest,omitempty"`
	// Field and Tag name a tag on a field.
	Field string `json:"field,omitempty"`
	Tag   string `json:"tag,omitempty"`
	// Producers: the rule can reject the records producers write (a CONDITION run on
	// WRITE whose failure action is ERROR or DLQ). Readers: it can reject or alter the
	// records consumers read (such a CONDITION run on READ or in a migration, or a
	// TRANSFORM).
	Producers bool   `json:"producers,omitempty"`
	Readers   bool   `json:"readers,omitempty"`
	Message   string `json:"message"`
}

// dataContractDiffers reports whether the rules or PII tags of two versions of a
// subject differ.
func dataContractDiffers(b, h *contract.Subject) bool {
	return !slices.EqualFunc(b.Rules, h.Rules, contract.Rule.Same) || !maps.Equal(piiFields(b), piiFields(h))
}

func piiFields(s *contract.Subject) map[string]bool {
	out := map[string]bool{}
	for path, f := range s.Fields {
		if f.PII {
			out[path] = true
		}
	}
	return out
}

// dataContractChanges lists what changed in the subject's data contract and classes
// it (docs/verdict.md, "Data contracts"): a rule that can reject producers' writes,
// or reject or alter what readers get, is COMPATIBLE and asks the producers' or the
// readers' teams to sign off; tags, a removed rule and a rule that takes no action
// are SAFE. Every such change is a new registry version with the same schema.
func dataContractChanges(t *contract.Tree, b, h *contract.Subject, sr *SubjectReport) {
	if bytes.Equal(b.SchemaText, h.SchemaText) && metadataChanged(b, h) {
		sr.Notes = append(sr.Notes, fmt.Sprintf("the schema is the same but its data contract (the registry's metadata and rules) changes: publish registers a new version of %s", sr.Subject))
	}
	old := map[string]contract.Rule{}
	for _, r := range b.Rules {
		old[r.Name] = r
	}
	for _, r := range h.Rules {
		was, ok := old[r.Name]
		delete(old, r.Name)
		switch {
		case !ok:
			sr.DataContract = append(sr.DataContract, ruleChange("rule-added", r, sr))
		case !was.Same(r):
			sr.DataContract = append(sr.DataContract, ruleChange("rule-changed", r, sr))
		}
	}
	for _, r := range b.Rules {
		if _, ok := old[r.Name]; ok {
			c := ContractChange{What: "rule-removed", Rule: r.Name, Kind: r.Kind, Mode: r.Mode, OnFailure: r.OnFailure, Digest: r.Digest()}
			c.Message = fmt.Sprintf("data rule %q (%s, mode %s) is removed: serializers no longer run it", r.Name, r.Kind, r.Mode)
			sr.DataContract = append(sr.DataContract, c)
		}
	}
	bp, hp := piiFields(b), piiFields(h)
	for _, f := range slices.Sorted(maps.Keys(hp)) {
		if !bp[f] {
			sr.DataContract = append(sr.DataContract, ContractChange{What: "tag-added", Field: f, Tag: "PII",
				Message: fmt.Sprintf("field %s is marked pii: the registry's metadata tags it PII", f)})
		}
	}
	for _, f := range slices.Sorted(maps.Keys(bp)) {
		if !hp[f] {
			sr.DataContract = append(sr.DataContract, ContractChange{What: "tag-removed", Field: f, Tag: "PII",
				Message: fmt.Sprintf("field %s is no longer marked pii: the registry's metadata drops its PII tag", f)})
		}
	}
	for _, c := range sr.DataContract {
		if c.Producers || c.Readers {
			sr.Class = worst(sr.Class, Compatible)
		}
	}
	if len(piiDropped(b, h, sr.Changes)) > 0 {
		sr.Class = worst(sr.Class, Compatible) // the admin team signs off (dataContractSignOffs)
	}
	noProducersNote(t, h, sr)
}

// noProducersNote says, when a rule can reject writes and no consumer file declares
// that it produces into the subject, whom to tell instead.
func noProducersNote(t *contract.Tree, h *contract.Subject, sr *SubjectReport) {
	if !slices.ContainsFunc(sr.DataContract, func(c ContractChange) bool { return c.Producers }) || len(producersOf(t, sr.Subject)) > 0 {
		return
	}
	where := "its topic"
	if h.Topic != "" {
		where = "topic " + h.Topic
	}
	sr.Notes = append(sr.Notes, fmt.Sprintf("no consumer file declares that it produces into %s (produces: %s), so no producer is asked to sign off; tell the teams that write to %s before merging", sr.Subject, sr.Subject, where))
}

// ruleChange describes a rule added or changed in the head and whom it reaches.
func ruleChange(what string, r contract.Rule, sr *SubjectReport) ContractChange {
	c := ContractChange{What: what, Rule: r.Name, Kind: r.Kind, Mode: r.Mode, OnFailure: r.OnFailure, Digest: r.Digest()}
	verb := "is added"
	if what == "rule-changed" {
		verb = "changes"
	}
	head := fmt.Sprintf("data rule %q (%s, mode %s", r.Name, r.Kind, r.Mode)
	if r.OnFailure != "" {
		head += ", on_failure " + r.OnFailure
	}
	head += ") " + verb
	var effects []string
	if r.Kind == "CONDITION" {
		if a := r.Action("WRITE", true); a == "ERROR" || a == "DLQ" {
			c.Producers = true
			effects = append(effects, fmt.Sprintf("producers' serializers will %s every record it refuses", refuse(a)))
		}
		for _, m := range []string{"READ", "UPGRADE", "DOWNGRADE"} {
			if a := r.Action(m, true); a == "ERROR" || a == "DLQ" {
				c.Readers = true
				effects = append(effects, fmt.Sprintf("consumers' deserializers will %s every record it refuses", refuse(a)))
				break
			}
		}
	} else if r.Kind == "TRANSFORM" && !r.Disabled {
		c.Readers = true
		effects = append(effects, "it changes the records consumers read")
	}
	switch {
	case len(effects) == 0:
		c.Message = head + "; it takes no action that stops or alters a record"
	default:
		who := []string{"the owner " + sr.Owner}
		if c.Producers {
			who = append(who, "the producers")
		}
		if c.Readers {
			who = append(who, "the consumers")
		}
		c.Message = fmt.Sprintf("%s: %s; %s must agree to it", head, strings.Join(effects, ", and "), strings.Join(who, " and "))
	}
	return c
}

func refuse(action string) string {
	if action == "DLQ" {
		return "send to the dead-letter topic"
	}
	return "fail on"
}

// dataContractSignOffs asks for the sign-offs a subject's data contract changes need:
// the teams of the jobs that declare they produce into it (consumer files with
// `produces:` naming it) when a rule can reject their writes, and the teams of its
// direct consumers when a rule can reject or alter what they read.
func dataContractSignOffs(in Input, sr *SubjectReport, required map[string]bool, need func(team, subject string, ref ConsumerRef)) {
	var producers, readers, producerDefs, readerDefs []string
	for _, c := range sr.DataContract {
		if c.Producers {
			producers = append(producers, c.Rule)
			producerDefs = append(producerDefs, "rule:"+c.Rule+":"+c.Digest)
		}
		if c.Readers {
			readers = append(readers, c.Rule)
			readerDefs = append(readerDefs, "rule:"+c.Rule+":"+c.Digest)
		}
	}
	// No legacy form: earlier releases hashed the rules' names only, so a remembered
	// fingerprint of theirs cannot tell one expression from another (an approval
	// given then is asked again once).
	if len(producers) > 0 {
		// The producers of the base: a change that deletes their produces: entries
		// still asks them.
		for _, c := range producersOf(in.Base, sr.Subject) {
			reason := fmt.Sprintf("it produces into %s, and data rule(s) %s can reject its writes", sr.Subject, quoteAll(producers))
			need(c.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: c.Name, Effect: checker.ChangesMeaning, Reason: reason,
				facts: append([]string{"produces", "rules:" + strings.Join(producers, ",")}, producerDefs...)})
		}
	}
	b, h := in.Base.Subject(sr.Subject), in.Head.Subject(sr.Subject)
	if b != nil && h != nil {
		admin, _ := adminTeam(in)
		for _, f := range piiDropped(b, h, sr.Changes) {
			need(admin, sr.Subject, ConsumerRef{Subject: sr.Subject, File: h.ContractPath(), Fields: []string{f}, Effect: checker.ChangesMeaning,
				Reason: fmt.Sprintf("field %s is no longer marked pii: the registry drops its PII tag and the rules scoped to PII stop applying to it; the admin team (%s) must agree", f, admin),
				facts:  []string{"pii-removed:" + f}})
		}
	}
	if b != nil && len(readers) > 0 {
		for _, c := range b.Consumers {
			if !required[c.Name] {
				reason := fmt.Sprintf("data rule(s) %s can reject or alter the records it reads", quoteAll(readers))
				need(c.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: c.Name, Effect: checker.ChangesMeaning, Reason: reason,
					facts: append([]string{"reads", "rules:" + strings.Join(readers, ",")}, readerDefs...)})
			}
		}
	}
}

// producersOf lists the consumers of the tree that declare they produce into subject.
func producersOf(t *contract.Tree, subject string) []*contract.Consumer {
	var out []*contract.Consumer
	for _, s := range t.Subjects {
		for _, c := range s.Consumers {
			if _, ok := c.Produces[subject]; ok {
				out = append(out, c)
			}
		}
	}
	return out
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
