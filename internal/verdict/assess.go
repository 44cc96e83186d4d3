package verdict

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/impact"
)

// Assess computes the report for a change from in.Base to in.Head.
func Assess(in Input) *Report {
	r := &Report{Class: Safe, Now: in.Now, Override: in.Override}
	changed := map[string]bool{}
	for _, sr := range changedSubjects(in) {
		assessSubject(in, sr)
		r.Subjects = append(r.Subjects, sr)
		r.Class = worst(r.Class, sr.Class)
		if sr.Kind == Modified {
			changed[sr.Subject] = true
		}
	}
	r.Lint = lintErrors(in.Base, in.Head, changed)
	r.Process = processChanges(in)
	if len(r.Process) > 0 {
		r.Class = worst(r.Class, Compatible) // a change to the governance, as Governance is
	}
	r.Calendar = calendarChecks(in, r.Subjects)
	Settle(in, r)
	return r
}

// Settle works out the sign-offs of an assessed change again from in's reviews,
// members, prior state and override, and what blocks the merge: the second, cheap
// step of an assessment. The bot assesses once with no team members, reads the
// members of the teams whose sign-off the report requires (TeamHandles), and settles
// the report with them, so the schemas are compared once per event.
func Settle(in Input, r *Report) {
	r.Override, r.Notices = in.Override, in.Notices
	r.SignOffs, r.State = signOffs(in, r.Subjects, r.Process)
	suggestEntries(in, r)
	r.FYI = fyis(r)
	r.Blockers = blockers(r)
	r.Ready = len(r.Blockers) == 0 || in.Override != nil
	r.Deadline = time.Time{}
	for _, s := range r.SignOffs {
		if s.Status != Approved && (r.Deadline.IsZero() || s.Deadline.Before(r.Deadline)) {
			r.Deadline = s.Deadline
		}
	}
}

// TeamHandles lists the GitHub team handles ("@org/slug") of the sign-offs a report
// requires, sorted and without repeats: the teams whose members Settle needs.
func (r *Report) TeamHandles() []string {
	var out []string
	for _, so := range r.SignOffs {
		for _, h := range so.Handles {
			if strings.Contains(h, "/") && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	slices.Sort(out)
	return out
}

// changedSubjects pairs base and head subjects by registry name.
func changedSubjects(in Input) []*SubjectReport {
	var out []*SubjectReport
	names := map[string]bool{}
	for _, s := range in.Base.Subjects {
		names[s.Subject] = true
	}
	for _, s := range in.Head.Subjects {
		names[s.Subject] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, name := range sorted {
		b, h := in.Base.Subject(name), in.Head.Subject(name)
		var sr *SubjectReport
		switch {
		case name == "":
			continue // a contract.yaml without a valid subject name: a lint error
		case b == nil:
			sr = header(h, Added)
		case h == nil && in.Head.IsUnreadable(b.Dir):
			continue // its contract.yaml cannot be read here: a lint error, not a deletion
		case h == nil:
			sr = header(b, Deleted)
		case changed(b, h):
			// Judged on what changed whether or not its folder also moved (issue 25:
			// a move must not hide a change in the same pull request).
			sr = header(h, Modified)
		case b.Dir != h.Dir:
			sr = header(h, Moved)
		default:
			continue
		}
		if b != nil && h != nil {
			if b.Dir != h.Dir {
				sr.OldDir = b.Dir
			}
			if b.Compatibility != h.Compatibility {
				sr.OldLevel = b.Compatibility
			}
		}
		out = append(out, sr)
	}
	return out
}

func header(s *contract.Subject, k Kind) *SubjectReport {
	return &SubjectReport{
		Subject: s.Subject, Kind: k, Dir: s.Dir, Format: s.Format, Owner: s.Owner, Tier: s.Tier,
		SchemaFile: s.SchemaFile, Level: s.Compatibility, Class: Safe, Compatible: true,
	}
}

// assessSubject fills in findings, changes, impact and class.
func assessSubject(in Input, sr *SubjectReport) {
	b, h := in.Base.Subject(sr.Subject), in.Head.Subject(sr.Subject)
	if dirs := in.Head.Duplicates[sr.Subject]; len(dirs) > 1 {
		// Two folders claim the name: which schema the registry would get depends on
		// folder order, so nothing about it is judged (a new folder that copies an
		// existing subject's contract.yaml is not an added subject).
		sr.Error = fmt.Sprintf("subject %s is claimed by %d folders (%s); it is judged once only one folder names it (see the contract file errors)",
			sr.Subject, len(dirs), strings.Join(dirs, ", "))
		sr.Class = Breaking
		return
	}
	switch sr.Kind {
	case Added:
		sr.Notes = append(sr.Notes, "new subject: nobody consumes it yet")
		return
	case Moved:
		sr.Notes = append(sr.Notes, fmt.Sprintf("the folder moved from %s to %s; the subject, its schema and its level are unchanged", sr.OldDir, sr.Dir))
		return
	case Deleted:
		sr.Affected = impact.Analyze(in.Base, sr.Subject, []checker.Change{{
			Kind: checker.FieldRemoved, Path: impact.WholeSubject, Effect: checker.Breaks,
			Message: fmt.Sprintf("subject %s is deleted", sr.Subject),
		}})
		if len(sr.Affected) > 0 {
			sr.Class = Breaking
		}
		return
	}
	if sr.OldDir != "" {
		sr.Notes = append(sr.Notes, fmt.Sprintf("the folder moved from %s to %s; the subject is judged on what else changed as if it had not moved", sr.OldDir, sr.Dir))
	}
	if n := contractErrors(in.Head, h); n > 0 {
		// A mistake in contract.yaml (compatability: for compatibility) is a lint error,
		// not a change of the contract: nothing is judged until the file is right.
		sr.Error = fmt.Sprintf("%s has %d error(s) (see the contract file errors); the change is judged once they are fixed", h.ContractPath(), n)
		sr.Class = Breaking
		if h.Compatibility == "" {
			sr.Level, sr.OldLevel = b.Compatibility, ""
		}
		return
	}
	governance(b, h, sr)
	if schemaChanged(b, h) {
		if err := compareSchemas(in, b, h, sr); err != nil {
			sr.Error = err.Error()
			sr.Class = Breaking
			return
		}
	} else {
		sr.SchemaUnchanged = true
	}
	fieldMetaChanges(b, h, sr)
	sr.Affected = impact.Analyze(in.Base, sr.Subject, sr.Changes)
	if newGroup(b, h) {
		groupChange(b, h, sr)
	}
	if !sr.Compatible {
		sr.Class = Breaking
	}
	for _, a := range sr.Affected {
		switch a.Effect {
		case checker.Breaks:
			sr.Class = Breaking
		case checker.ChangesMeaning:
			sr.Class = worst(sr.Class, Compatible)
		}
	}
	if len(sr.Governance) > 0 {
		sr.Class = worst(sr.Class, Compatible)
	}
	if sr.Group != nil && len(sr.Group.Migration) > 0 {
		sr.Class = Breaking
	}
	removalPolicyFindings(in, b, h, sr)
	stateEffects(b, sr)
	dataRuleFindings(b, h, sr)
	dataContractChanges(in.Base, b, h, sr)
	deprecatedReads(in, h, sr)
	newDeprecations(b, h, sr)
}

// contractErrors counts the errors in s's contract.yaml that make its keys unreliable
// (a misspelt, missing or mistyped key, a bad value, an unknown owner), so that the
// subject is not judged on them. A fields: entry naming a field the change removed is
// not one of them: that is the change's impact.
func contractErrors(t *contract.Tree, s *contract.Subject) int {
	n, p := 0, s.ContractPath()
	for _, d := range t.Diagnostics {
		if d.File == p && d.Severity == contract.Error && keyErrors[d.Code] {
			n++
		}
	}
	return n
}

var keyErrors = map[string]bool{
	contract.CodeYAMLSyntax: true, contract.CodeAlias: true, contract.CodeUnknownKey: true, contract.CodeMissingKey: true,
	contract.CodeWrongType: true, contract.CodeInvalidValue: true, contract.CodeFormatOption: true, contract.CodeUnknownTeam: true,
}

// governance records the contract changes consumers must agree to, and notes others.
// Each change consumers must agree to is a sentence (Governance) and a fact (governs)
// the sign-off fingerprints hash.
func governance(b, h *contract.Subject, sr *SubjectReport) {
	govern := func(fact, format string, args ...any) {
		sr.Governance = append(sr.Governance, fmt.Sprintf(format, args...))
		sr.governs = append(sr.governs, fact)
	}
	if b.Compatibility != h.Compatibility {
		bl, _ := checker.ParseLevel(b.Compatibility)
		hl, _ := checker.ParseLevel(h.Compatibility)
		if hl.Strictness() < bl.Strictness() || (bl.Backward() && !hl.Backward()) || (bl.Forward() && !hl.Forward()) {
			govern("level:"+b.Compatibility+"->"+h.Compatibility, "the compatibility level is loosened from %s to %s: the registry will accept changes that %s consumers can no longer rely on", bl, hl, sr.Subject)
		} else {
			sr.Notes = append(sr.Notes, fmt.Sprintf("the compatibility level is tightened from %s to %s", bl, hl))
		}
	}
	if b.Owner != h.Owner {
		govern("owner:"+b.Owner+"->"+h.Owner, "the owner changes from %s to %s: another team will decide on this subject's changes", b.Owner, h.Owner)
	}
	if b.Format != h.Format {
		govern("format:"+b.Format+"->"+h.Format, "the format changes from %s to %s: every consumer needs a new deserializer", b.Format, h.Format)
	}
	if bp, hp := b.RemovalPolicy(), h.RemovalPolicy(); contract.LoosensRemoval(b, h) {
		govern("removal:"+bp+"->"+hp, "the removal policy is loosened from %s to %s: fields consumers read may then be removed or renamed without a deprecation period", bp, hp)
	} else if bp != hp {
		sr.Notes = append(sr.Notes, fmt.Sprintf("the removal policy is tightened from %s to %s", bp, hp))
	}
	switch b.Tier {
	case h.Tier:
	case "core":
		govern("tier:"+b.Tier+"->"+h.Tier, "the tier changes from core to %s: COMPATIBLE changes will no longer need a calendar entry, and core freezes no longer hold it", orDefault(h.Tier, "standard"))
	default:
		sr.Notes = append(sr.Notes, fmt.Sprintf("tier changes from %s to %s", b.Tier, h.Tier))
	}
	if b.Topic != h.Topic {
		govern("topic:"+b.Topic+"->"+h.Topic, "the topic changes from %q to %q: consumers must subscribe to the new topic", b.Topic, h.Topic)
	}
	switch {
	case b.SignoffHours == h.SignoffHours:
	case h.SignoffHours < b.SignoffHours:
		govern(fmt.Sprintf("signoff_hours:%d->%d", b.SignoffHours, h.SignoffHours), "the sign-off window shortens from %d to %d hours: its consumers will have less time to answer a change", b.SignoffHours, h.SignoffHours)
	default:
		sr.Notes = append(sr.Notes, fmt.Sprintf("the sign-off window changes from %d to %d hours (after the merge; this change keeps %d)", b.SignoffHours, h.SignoffHours, b.SignoffHours))
	}
	tableGovernance(b, h, govern, func(format string, args ...any) { sr.Notes = append(sr.Notes, fmt.Sprintf(format, args...)) })
	if b.Description != h.Description {
		sr.Notes = append(sr.Notes, "the description changes")
	}
}

// compareSchemas runs the registry check at the head's level and the field diff.
func compareSchemas(in Input, b, h *contract.Subject, sr *SubjectReport) error {
	level, err := checker.ParseLevel(h.Compatibility)
	if err != nil {
		return err
	}
	if b.Format != h.Format {
		sr.Compatible = false
		sr.Findings = append(sr.Findings, checker.Finding{
			Rule: "FORMAT_CHANGED", Path: "", Span: located.Span{File: h.SchemaFile, Line: 1, Column: 1}, Against: 1,
			Message: fmt.Sprintf("the schema format changes from %s to %s; no registry accepts that as a new version of the same subject. Create a new subject instead.", b.Format, h.Format),
		})
		sr.Changes = append(sr.Changes, checker.Change{Kind: checker.TypeChanged, Path: impact.WholeSubject, Old: b.Format, New: h.Format, Effect: checker.Breaks, Message: "the format changes"})
		return nil
	}
	eng := h.Engine()
	if eng == nil {
		return fmt.Errorf("unknown format %q", h.Format)
	}
	// The earlier versions (one per canonical form), numbered, and the base's number
	// (0: unknown).
	var all []contract.Earlier
	if in.History != nil {
		all = in.History(sr.Subject)
	}
	id := identify(eng, b, h, all)
	id.note(sr)
	var history []numbered
	var otherGroups []int
	for i, hi := range all {
		switch {
		case i+1 == id.base:
		case !hi.InGroup(h.Group):
			otherGroups = append(otherGroups, i+1)
		default:
			history = append(history, numbered{hi.Input, i + 1})
		}
	}
	baseVersion := id.base
	if !level.Transitive() {
		history = nil
	} else if len(otherGroups) > 0 && !newGroup(b, h) {
		sr.Notes = append(sr.Notes, fmt.Sprintf("%s %s not compared: %s of another compatibility group than %s=%s, and a registry compares a version only with its own group's",
			capitalize(versionRange(otherGroups)), pluralIs(len(otherGroups)), pluralThey(len(otherGroups)), h.Group.Key, h.Group.Value))
	}
	next, nerr := h.Schema()
	old, oerr := b.Schema()
	if nerr != nil || oerr != nil {
		return schemaError(b, h)
	}
	if newGroup(b, h) {
		// A new compatibility group: the registry checks it against no earlier
		// version (the field diff still says what changes for the readers).
		history = nil
	}
	prev, skipped := parseHistory(in, eng, b, h, history, sr)
	prev = append(prev, checker.Version{Schema: old, Number: baseVersion})
	res := eng.Check(prev, next, level, h.ProtobufRules)
	if newGroup(b, h) {
		res = &checker.Result{Compatible: true}
	}
	if skipped != nil {
		res.Compatible = false
		res.Findings = append(res.Findings, *skipped)
	}
	sr.Changes = eng.Diff(old, next)
	sr.Compatible = res.Compatible
	sr.Findings = res.Findings
	for i := range sr.Findings {
		sr.Findings[i].File = contract.RepoPath(sr.Findings[i].File)
	}
	for i := range sr.Changes {
		sr.Changes[i].File = contract.RepoPath(sr.Changes[i].File)
	}
	return nil
}

// numbered is an earlier version of a schema with its version number.
type numbered struct {
	checker.Input
	version int
}

func schemaError(b, h *contract.Subject) error {
	if _, err := h.Schema(); err != nil {
		return fmt.Errorf("the new schema %s does not parse; fix it first (see the lint errors)", h.SchemaFile)
	}
	return fmt.Errorf("the previous schema %s does not parse, so the change cannot be compared", b.SchemaFile)
}

// lintErrors returns the head tree's errors, leaving out the ones the change itself
// causes in consumer files (a consumer reading a removed field): those are impact,
// shown with the subject, not a mistake in the consumer's file.
func lintErrors(base, head *contract.Tree, changed map[string]bool) contract.Diagnostics {
	var out contract.Diagnostics
	for _, d := range head.Diagnostics {
		if d.Severity != contract.Error {
			continue
		}
		if d.Code == contract.CodeUnknownField && removedByChange(base, head, changed, d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// removedByChange reports whether an unknown-field error in a consumer file of a
// changed subject names a field the base's schema has (Diagnostic.Field): a read,
// state field or lineage input the change removed, which is its impact on the consumer
// (shown with the subject), not a mistake in the file. A field the base never had (a
// typo) stays an error.
func removedByChange(base, head *contract.Tree, changed map[string]bool, d contract.Diagnostic) bool {
	subj := head.SubjectOfConsumerFile(d.File)
	if subj == "" || !changed[subj] || d.Field == "" {
		return false
	}
	b := base.Subject(subj)
	return b != nil && b.HasFieldPath(d.Field)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func pluralIs(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func pluralThey(n int) string {
	if n == 1 {
		return "it is"
	}
	return "they are"
}
