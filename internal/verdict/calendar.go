package verdict

import (
	"fmt"
	"slices"
	"time"

	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
)

// calendarChecks decides, per changed subject, whether a calendar entry is required
// and found, and whether a freeze blocks the merge now. The entries of the head count
// (an entry added in the same pull request is fine); the freezes, and the tier and
// domain they are scoped by, are the base's (calendarTree).
func calendarChecks(in Input, subjects []*SubjectReport) []*CalendarCheck {
	var out []*CalendarCheck
	cal := calendarTree(in)
	var conflicts []calendar.Conflict
	conflictsOnce := func() []calendar.Conflict {
		if conflicts == nil {
			conflicts = calendar.Conflicts(in.Head, affectedBy(in, subjects))
			if conflicts == nil {
				conflicts = []calendar.Conflict{}
			}
		}
		return conflicts
	}
	for _, sr := range subjects {
		if sr.Class == Safe || sr.Error != "" {
			continue // a subject not evaluated asks for nothing until it can be
		}
		tier := sr.Tier
		if s := in.Base.Subject(sr.Subject); s != nil && s.Tier == "core" {
			tier = "core" // demoting a subject in the same change does not skip the rule
		}
		// a new major version is planned with its readers, whatever its class
		cc := &CalendarCheck{Subject: sr.Subject, Required: calendar.EntryRequired(string(sr.Class), tier) || sr.Group != nil}
		if cc.Required {
			entry, problems := calendar.FindEntry(cal, sr.Subject, in.Now)
			if entry != nil {
				cc.Entry = entry.File
				for _, c := range conflictsOnce() {
					if c.AFile == entry.File || c.BFile == entry.File {
						cc.Conflicts = append(cc.Conflicts, c.String())
					}
				}
			} else {
				for _, p := range problems {
					cc.Problems = append(cc.Problems, p.Message)
				}
				// the suggestion waits for the sign-offs: see suggestEntries
			}
		}
		if w := calendar.MergeBlocked(cal, sr.Subject, in.Now); w != nil && sr.Class == Breaking {
			cc.Freeze, cc.FrozenUntil = w.Name, w.End
		}
		if len(sr.State) > 0 {
			cc.StateMigration, cc.StateEntry = true, stateMigrationEntry(in, sr.Subject)
		}
		if cc.Required || cc.Freeze != "" || cc.StateMigration {
			out = append(out, cc)
		}
	}
	return out
}

// suggestEntries writes, for each calendar check that still needs an entry, the next
// free window that starts after the sign-off deadlines of the subject's consumers (and
// after now): a change cannot be scheduled before the teams it needs have had their
// time to answer. It runs when the sign-offs are settled.
func suggestEntries(in Input, r *Report) {
	for _, cc := range r.Calendar {
		if !cc.Required || cc.Entry != "" {
			continue
		}
		notBefore := in.Now
		for _, so := range r.SignOffs {
			if so.Deadline.After(notBefore) && slices.ContainsFunc(so.For, func(c ConsumerRef) bool { return c.Subject == cc.Subject }) {
				notBefore = so.Deadline
			}
		}
		owner := ""
		if s := in.Head.Subject(cc.Subject); s != nil {
			owner = s.Owner
		} else if s := in.Base.Subject(cc.Subject); s != nil {
			owner = s.Owner
		}
		sug := calendar.Suggest(calendarTree(in), []string{cc.Subject}, owner, notBefore, 0)
		cc.SuggestionFile, cc.Suggestion = sug.File, sug.Content
	}
}

// calendarTree is the calendar a change is judged by: the base's subjects (their tier
// and domain scope the freezes) and freezes, with the head's planned entries. A freeze
// the change deletes or shortens still holds it; one it adds holds later changes.
func calendarTree(in Input) *contract.Tree {
	t := *in.Base
	t.Entries = in.Head.Entries
	return &t
}

// blockers says in words everything that keeps the change from merging.
func blockers(r *Report) []string {
	var out []string
	if n := len(r.Lint); n > 0 {
		out = append(out, fmt.Sprintf("the contract files have %d error(s); fix them (contractbot lint shows each with file:line:column)", n))
	}
	for _, sr := range r.Subjects {
		if sr.Error != "" {
			out = append(out, fmt.Sprintf("%s cannot be evaluated: %s", sr.Subject, sr.Error))
		}
	}
	for _, so := range r.SignOffs {
		switch so.Status {
		case Pending:
			out = append(out, fmt.Sprintf("team %s must sign off (approve the pull request) by %s", so.Team, so.Deadline.UTC().Format(time.RFC3339)))
		case Overdue:
			out = append(out, fmt.Sprintf("team %s has not signed off and the deadline (%s) has passed", so.Team, so.Deadline.UTC().Format(time.RFC3339)))
		}
	}
	for _, cc := range r.Calendar {
		if cc.Required && cc.Entry == "" {
			out = append(out, fmt.Sprintf("%s needs a calendar entry whose window is ahead and outside every freeze; add %s", cc.Subject, orDefault(cc.SuggestionFile, "one under calendar/")))
		}
		if cc.StateMigration && cc.StateEntry == "" {
			out = append(out, fmt.Sprintf("%s changes fields that jobs keep in state; add a calendar entry of kind state-migration for it (savepoint, migration, restore)", cc.Subject))
		}
		if cc.Freeze != "" {
			out = append(out, fmt.Sprintf("freeze %q is in force for %s until %s; a breaking change cannot merge before then", cc.Freeze, cc.Subject, cc.FrozenUntil.UTC().Format(time.RFC3339)))
		}
	}
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// affectedBy returns, for the calendar's conflict rule, the consumers a change to a
// subject affects: the impact found for the changed subjects (direct and through
// lineage), the direct consumers for the others.
func affectedBy(in Input, subjects []*SubjectReport) func(string) []string {
	direct := calendar.DirectConsumers(in.Head)
	known := map[string][]string{}
	for _, sr := range subjects {
		for _, a := range sr.Affected {
			known[sr.Subject] = append(known[sr.Subject], a.Subject+"/"+a.Name)
		}
	}
	return func(subject string) []string {
		if ids, ok := known[subject]; ok {
			return ids
		}
		return direct(subject)
	}
}
