package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/impact"
)

// The rules of the removal policy (contract.yaml `policy: {removal:}`, defaults by
// tier): a field leaves a schema only after a deprecation period.
const (
	// RuleRemovedNotDeprecated: a field was removed or renamed without having been
	// deprecated in contract.yaml first.
	RuleRemovedNotDeprecated = "FIELD_REMOVED_NOT_DEPRECATED"
	// RuleRemovedEarly: a deprecated field was removed or renamed before its
	// remove_after day (or it has none).
	RuleRemovedEarly = "FIELD_REMOVED_BEFORE_REMOVE_AFTER"
)

// PolicyFinding is a change the subject's policy forbids (BREAKING by policy) or
// flags (COMPATIBLE by policy) whatever the wire check and the declared readers say.
type PolicyFinding struct {
	Rule string `json:"rule"`
	// Path is the field removed (its old path for a rename).
	Path string `json:"path"`
	// Policy is the removal policy that applied: strict or warn.
	Policy string `json:"policy"`
	// Class is what the policy makes of the change.
	Class  Class  `json:"class"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Message says what happened and what to do.
	Message string `json:"message"`
}

// removalPolicy is the stricter of the base's and the head's policy: a change cannot
// loosen the rule it is judged by.
func removalPolicy(b, h *contract.Subject) string {
	bp, hp := b.RemovalPolicy(), h.RemovalPolicy()
	if slices.Index(contract.RemovalPolicies, bp) < slices.Index(contract.RemovalPolicies, hp) {
		return bp
	}
	return hp
}

// removalPolicyFindings judges the fields a change removes or renames by the subject's
// removal policy and the base's deprecations, and raises the class accordingly.
func removalPolicyFindings(in Input, b, h *contract.Subject, sr *SubjectReport) {
	pol := removalPolicy(b, h)
	removed := map[string]bool{}
	for _, c := range sr.Changes {
		if c.Kind == checker.FieldRemoved {
			removed[c.Path] = true
		}
	}
	for _, c := range sr.Changes {
		path, verb := c.Path, "removed"
		switch c.Kind {
		case checker.FieldRemoved:
		case checker.FieldRenamed:
			path, verb = c.OldPath, "renamed to "+c.Path
		default:
			continue
		}
		if path == "" || path == impact.WholeSubject || removed[parentPath(path)] {
			continue // a field of a removed record: the record is named
		}
		if sr.Group != nil && sr.Group.covered[path] {
			continue // a new major version migrates it both ways (groupChange)
		}
		field, dep := b.DeprecationOf(path)
		var rule, why string
		switch {
		case dep == nil:
			rule = RuleRemovedNotDeprecated
			why = fmt.Sprintf("field %s is %s but was never deprecated", path, verb)
		case dep.RemoveAfter.IsZero() || in.Now.Before(dep.RemoveAfter):
			rule = RuleRemovedEarly
			when := "it has no remove_after day"
			if !dep.RemoveAfter.IsZero() {
				when = "its remove_after day is " + dep.RemoveAfter.Format("2006-01-02")
			}
			why = fmt.Sprintf("field %s is %s while still in its deprecation period (%s deprecated since %s; %s)", path, verb, field, dep.Since.Format("2006-01-02"), when)
		default:
			sr.Notes = append(sr.Notes, fmt.Sprintf("field %s is %s after its deprecation period (deprecated since %s, removable after %s)", path, verb, dep.Since.Format("2006-01-02"), dep.RemoveAfter.Format("2006-01-02")))
			continue
		}
		if pol == contract.RemovalOff {
			continue
		}
		class := Breaking
		if pol == contract.RemovalWarn {
			class = Compatible
		}
		sr.Policy = append(sr.Policy, PolicyFinding{
			Rule: rule, Path: path, Policy: pol, Class: class, File: c.File, Line: c.Line, Column: c.Column,
			Message: fmt.Sprintf("%s. %s", why, policyFix(rule, b, path)),
		})
		sr.Class = worst(sr.Class, class)
	}
}

// policyFix says what the author can do about a policy finding.
func policyFix(rule string, b *contract.Subject, path string) string {
	if rule == RuleRemovedNotDeprecated {
		return fmt.Sprintf("Deprecate it first in %s (fields: %s: deprecated: {since, remove_after, replacement}) and remove it after remove_after, or plan the change with its readers.", b.ContractPath(), path)
	}
	return "Keep it until its remove_after day has passed, or plan the change with its readers."
}

func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// deprecatedReads notes, for a changed subject, every consumer that still reads a
// deprecated field (lint warns in the consumer's file; check says it with the change).
// While a dual-write window of the subject (a calendar entry of kind dual-write) has
// not ended, a read of a field it replaces is a warning naming the window's end:
// after it the field is removed as any deprecated field.
func deprecatedReads(in Input, h *contract.Subject, sr *SubjectReport) {
	dual := calendar.DualWrite(in.Head, h.Subject, in.Now)
	for _, c := range h.Consumers {
		for _, r := range c.Reads {
			field, d := h.DeprecationOf(r)
			switch {
			case d == nil:
				continue
			case dual != nil && d.Replacement != "":
				sr.Warnings = append(sr.Warnings, fmt.Sprintf("consumer %s (team %s) still reads %s, which is written next to its replacement %s only during the dual-write window %s (until %s); it should read %s before then",
					c.Name, c.Owner, field, d.Replacement, dual.File, dual.End.UTC().Format("2006-01-02 15:04 UTC"), d.Replacement))
				continue
			}
			n := fmt.Sprintf("consumer %s (team %s) still reads %s, deprecated since %s", c.Name, c.Owner, field, d.Since.Format("2006-01-02"))
			if !d.RemoveAfter.IsZero() {
				n += ", to be removed after " + d.RemoveAfter.Format("2006-01-02")
			}
			if d.Replacement != "" {
				n += "; it should read " + d.Replacement
			}
			sr.Notes = append(sr.Notes, n)
		}
	}
}

// newDeprecations lists the consumers that read a field the change deprecates: one
// the base does not deprecate, or deprecates with other dates or replacement. Their
// teams hear of it (the FYI), so that the replacement is read before remove_after
// rather than found out when the removal's pull request asks them to sign off.
func newDeprecations(b, h *contract.Subject, sr *SubjectReport) {
	var deprecated []string // what a consumer reading "*" reads of them
	for p, m := range h.Fields {
		if m.Deprecated != nil {
			deprecated = append(deprecated, p)
		}
	}
	slices.Sort(deprecated)
	for _, c := range h.Consumers {
		reads := c.Reads
		if slices.Contains(reads, "*") {
			reads = deprecated
		}
		told := map[string]bool{} // a field once per consumer, however many of its reads it covers
		for _, r := range reads {
			field, d := h.DeprecationOf(r)
			if d == nil || told[field] {
				continue
			}
			told[field] = true
			if bf, bd := b.DeprecationOf(r); bf == field && sameDeprecation(bd, d) {
				continue
			}
			why := "deprecated since " + d.Since.Format("2006-01-02")
			if !d.RemoveAfter.IsZero() {
				why += ", to be removed after " + d.RemoveAfter.Format("2006-01-02")
			}
			if d.Replacement != "" {
				why += "; read " + d.Replacement + " instead"
			}
			sr.Deprecated = append(sr.Deprecated, DeprecatedRead{Team: c.Owner,
				ConsumerRef: ConsumerRef{Subject: h.Subject, Consumer: c.Name, Effect: checker.Harmless, Fields: []string{field}, Reason: why}})
		}
	}
}
