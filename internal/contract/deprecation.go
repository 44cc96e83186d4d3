package contract

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/checker/located"
)

// Deprecation is a field's `deprecated:` entry in contract.yaml's `fields:`: the
// field is on its way out, readers move to Replacement, and it may be removed once
// RemoveAfter has passed.
type Deprecation struct {
	Since       time.Time `json:"since"`
	RemoveAfter time.Time `json:"remove_after,omitzero"`
	Replacement string    `json:"replacement,omitempty"`
	// Pos locates the deprecated key, ReplacementPos the replacement's value.
	Pos            Pos `json:"-"`
	ReplacementPos Pos `json:"-"`
}

// Removal policies: what removing or renaming a field that was not deprecated, or
// before its remove_after date, makes of a change (contract.yaml `policy: {removal:}`).
const (
	// RemovalStrict: BREAKING by policy, whoever reads the field (every tier's
	// default).
	RemovalStrict = "strict"
	// RemovalWarn: COMPATIBLE by policy: named in the verdict, a calendar entry for
	// core subjects. A subject opts into it explicitly.
	RemovalWarn = "warn"
	// RemovalOff: the wire check and the declared readers decide alone.
	RemovalOff = "off"
)

// RemovalPolicies lists the allowed `policy: {removal:}` values, strictest first.
var RemovalPolicies = []string{RemovalStrict, RemovalWarn, RemovalOff}

// Policy is contract.yaml's `policy:`; empty values take the default.
type Policy struct {
	Removal string `json:"removal,omitempty"`
}

// DefaultRemoval is the removal policy when contract.yaml sets none, whatever the
// tier: a field is removed or renamed only after its deprecation period, and a
// subject that wants less says so (policy: {removal: warn|off}).
const DefaultRemoval = RemovalStrict

// RemovalPolicy is the subject's removal policy: its own, or the default.
func (s *Subject) RemovalPolicy() string {
	if s.Policy.Removal != "" {
		return s.Policy.Removal
	}
	return DefaultRemoval
}

// LoosensRemoval reports whether a subject's removal policy in to is looser than in
// from (strict to warn or off, warn to off).
func LoosensRemoval(from, to *Subject) bool {
	return slices.Index(RemovalPolicies, to.RemovalPolicy()) > slices.Index(RemovalPolicies, from.RemovalPolicy())
}

// DeprecationOf returns the deprecation that covers a field path: the path's own or
// that of a field it is nested in (a deprecated record deprecates its fields), or nil.
func (s *Subject) DeprecationOf(path string) (string, *Deprecation) {
	for p := path; p != ""; {
		if m, ok := s.Fields[p]; ok && m.Deprecated != nil {
			return p, m.Deprecated
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return "", nil
}

// dateLayout is how contract.yaml writes a day.
const dateLayout = "2006-01-02"

// deprecation reads a field's `deprecated:` mapping.
func deprecation(fm *object, name string) *Deprecation {
	do := fm.child("deprecated", fmt.Sprintf("deprecated of field %q", name))
	if do == nil {
		return nil
	}
	do.expect(fmt.Sprintf("deprecated of field %q", name), []string{"since"}, []string{"remove_after", "replacement"})
	d := &Deprecation{Pos: fm.keys["deprecated"]}
	date := func(key string) time.Time {
		v, ok := do.str(key)
		if !ok {
			return time.Time{}
		}
		t, err := time.Parse(dateLayout, v)
		if err != nil {
			do.f.report(do.valuePos(key), CodeBadTime, "%s %q of field %q must be a day, like \"2027-01-31\".", key, v, name)
		}
		return t
	}
	d.Since, d.RemoveAfter = date("since"), date("remove_after")
	if !d.Since.IsZero() && !d.RemoveAfter.IsZero() && !d.RemoveAfter.After(d.Since) {
		do.f.report(do.valuePos("remove_after"), CodeInvalidValue, "remove_after (%s) of field %q must come after since (%s); give readers time to move.", d.RemoveAfter.Format(dateLayout), name, d.Since.Format(dateLayout))
	}
	d.Replacement, _ = do.str("replacement")
	d.ReplacementPos = do.valuePos("replacement")
	return d
}

// policy reads contract.yaml's optional `policy:`.
func policy(o *object) Policy {
	po := o.child("policy", "policy")
	if po == nil {
		return Policy{}
	}
	po.expect("policy", nil, []string{"removal"})
	var p Policy
	if v, ok := po.str("removal"); ok && po.oneOfValue("removal", v, RemovalPolicies) {
		p.Removal = v
	}
	return p
}

// checkDeprecations checks, once the schema is parsed, that replacements exist, and
// warns on every consumer read of a deprecated field (CodeReadsDeprecated).
func checkDeprecations(f *file, s *Subject, ds *Diagnostics) {
	paths := s.FieldPaths()
	for _, name := range sortedFieldNames(s) {
		d := s.Fields[name].Deprecated
		if d == nil || d.Replacement == "" || paths == nil || s.HasFieldPath(d.Replacement) {
			continue
		}
		f.report(d.ReplacementPos, CodeUnknownField, "replacement %q of deprecated field %q does not exist in %s.%s", d.Replacement, name, s.SchemaFile, didYouMean(d.Replacement, paths))
	}
	for _, c := range s.Consumers {
		for i, r := range c.Reads {
			field, d := s.DeprecationOf(r)
			if d == nil || i >= len(c.ReadPos) {
				continue
			}
			*ds = append(*ds, Diagnostic{Span: located.Span{File: c.File, Line: c.ReadPos[i].Line, Column: c.ReadPos[i].Column}, Severity: Warning, Code: CodeReadsDeprecated,
				Message: fmt.Sprintf("%s reads %s of %s, deprecated since %s%s.%s", c.Name, field, s.Subject, d.Since.Format(dateLayout), removeAfterWords(d), replacementWords(d))})
		}
	}
}

func removeAfterWords(d *Deprecation) string {
	if d.RemoveAfter.IsZero() {
		return ""
	}
	return " and to be removed after " + d.RemoveAfter.Format(dateLayout)
}

func replacementWords(d *Deprecation) string {
	if d.Replacement == "" {
		return " Stop reading it, and tell its owner when you have."
	}
	return fmt.Sprintf(" Read %s instead, and tell its owner when you have.", d.Replacement)
}

func sortedFieldNames(s *Subject) []string {
	out := make([]string, 0, len(s.Fields))
	for k := range s.Fields {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
