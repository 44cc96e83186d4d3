package verdict

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
)

// ProcessChange is a change to a rule the gate applies: who signs off (a team's entry
// in teams.yaml, a consumer file), by when (a subject's signoff_hours) or what blocks
// (a freeze). The rules of an evaluation come from the base (Input); such a change
// takes effect after the merge, so it needs the sign-off of the team it takes
// something from, whatever branch protection says.
type ProcessChange struct {
	// What is team-changed, team-removed, owner-changed, consumer-removed,
	// consumer-reowned, consumer-narrowed, signoff-hours-lengthened, freeze-removed or
	// freeze-changed.
	What string `json:"what"`
	// File is the file changed; Subject the subject, for a consumer file or
	// contract.yaml.
	File    string `json:"file"`
	Subject string `json:"subject,omitempty"`
	// Consumer is the consumer whose file changes.
	Consumer string `json:"consumer,omitempty"`
	// Team is the team whose sign-off the change needs (a team id, or the admin
	// team's "org/slug").
	Team    string `json:"team"`
	Message string `json:"message"`
	// fact is what the team's fingerprint hashes for it.
	fact string
}

// The kinds of ProcessChange.
const (
	TeamChanged            = "team-changed"
	TeamRemoved            = "team-removed"
	OwnerChanged           = "owner-changed"
	ConsumerRemoved        = "consumer-removed"
	ConsumerReowned        = "consumer-reowned"
	ConsumerNarrowed       = "consumer-narrowed"
	SignoffHoursLengthened = "signoff-hours-lengthened"
	FreezeRemoved          = "freeze-removed"
	FreezeChanged          = "freeze-changed"
)

// processChanges compares the rules of the base with the head's: every team entry the
// head edits or deletes, every consumer file it deletes, re-owns or narrows, every
// subject whose sign-off window it lengthens, and every freeze it deletes or changes
// other than by widening it.
func processChanges(in Input) []ProcessChange {
	var out []ProcessChange
	out = append(out, teamChanges(in.Base, in.Head)...)
	out = append(out, consumerChanges(in.Base, in.Head)...)
	admin, _ := adminTeam(in)
	for _, b := range in.Base.Subjects {
		h := in.Head.Subject(b.Subject)
		if h == nil {
			continue
		}
		if h.Owner != b.Owner && b.Owner != "" {
			// The owner is told as the producer and signs off its rules' changes: the
			// team it is taken from must agree.
			out = append(out, ProcessChange{What: OwnerChanged, File: h.ContractPath(), Subject: b.Subject, Team: b.Owner,
				Message: fmt.Sprintf("%s gives %s from team %s to team %s: who is told as its producer and who owns its rules changes after the merge; %s must agree", h.ContractPath(), b.Subject, b.Owner, h.Owner, b.Owner),
				fact:    "owner-changed:" + b.Subject + ":" + b.Owner + "->" + h.Owner})
		}
		if h.SignoffHours <= b.SignoffHours {
			continue
		}
		out = append(out, ProcessChange{What: SignoffHoursLengthened, File: h.ContractPath(), Subject: b.Subject, Team: b.Owner,
			Message: fmt.Sprintf("%s lengthens the sign-off window of %s from %d to %d hours: every later change to it waits longer for its readers and escalates later; its owner %s must agree", h.ContractPath(), b.Subject, b.SignoffHours, h.SignoffHours, b.Owner),
			fact:    fmt.Sprintf("signoff_hours:%d->%d", b.SignoffHours, h.SignoffHours)})
	}
	out = append(out, freezeChanges(in.Base, in.Head, admin)...)
	return out
}

// teamChanges lists the teams whose entry in teams.yaml the head edits or deletes:
// each must agree (its GitHub handles, members, channels and escalation decide who is
// asked and told on its behalf). A team added asks nobody.
func teamChanges(base, head *contract.Tree) []ProcessChange {
	if head.Teams == nil {
		return nil // the head's teams.yaml does not load: a contract file error blocks it
	}
	var out []ProcessChange
	for _, id := range base.TeamIDs() {
		b, h := base.Teams[id], head.Teams[id]
		if h == nil {
			out = append(out, ProcessChange{What: TeamRemoved, File: contract.TeamsFile, Team: id,
				Message: fmt.Sprintf("team %s is deleted from %s; it must agree", id, contract.TeamsFile), fact: "team-removed:" + id})
			continue
		}
		if diff := teamDiff(b, h); len(diff) > 0 {
			// The new values are in the fact (and the message): an approval of one
			// edit does not carry over to another edit of the same keys.
			out = append(out, ProcessChange{What: TeamChanged, File: contract.TeamsFile, Team: id,
				Message: fmt.Sprintf("the entry of team %s in %s changes (%s): who is asked and told on its behalf changes; it must agree", id, contract.TeamsFile, strings.Join(diff, ", ")),
				fact:    "team-changed:" + id + ":" + strings.Join(diff, ",")})
		}
	}
	return out
}

// teamDiff names the keys of a team's entry that differ, each with its new value as
// JSON ("slack becomes \"#orders-new\""; null for a key the head deletes).
func teamDiff(b, h *contract.Team) []string {
	var out []string
	add := func(key string, same bool, now any) {
		if !same {
			v, err := json.Marshal(now)
			if err != nil {
				v = []byte(fmt.Sprintf("%q", fmt.Sprint(now)))
			}
			out = append(out, key+" becomes "+string(v))
		}
	}
	add("name", b.Name == h.Name, h.Name)
	add("github", slices.Equal(b.GitHub, h.GitHub), h.GitHub)
	add("slack", b.Slack == h.Slack, h.Slack)
	add("escalation", reflect.DeepEqual(b.Escalation, h.Escalation), h.Escalation)
	add("timezone", b.Timezone == h.Timezone, h.Timezone)
	add("members", slices.Equal(b.Members, h.Members), h.Members)
	add("lead", reflect.DeepEqual(b.Lead, h.Lead), h.Lead)
	return out
}

// consumerChanges lists the consumer files of the base whose team stops being asked
// about something: the file deleted (while its subject stays), given to another team,
// or narrowed (a read, a produces entry or input, signoff: required or a state
// declaration taken away). The base's owner must agree. A consumer file added, or one
// that only reads or produces more, asks nobody.
func consumerChanges(base, head *contract.Tree) []ProcessChange {
	var out []ProcessChange
	for _, bs := range base.Subjects {
		hs := head.Subject(bs.Subject)
		if hs == nil {
			continue // a deleted subject: its readers sign off its deletion
		}
		for _, bc := range bs.Consumers {
			hc := consumerNamed(hs, bc.Name)
			switch {
			case hc == nil && hasErrors(head, bc.File):
				// the file is there but does not load: a lint error that blocks the
				// change, not a deletion
			case hc == nil:
				out = append(out, ProcessChange{What: ConsumerRemoved, File: bc.File, Subject: bs.Subject, Consumer: bc.Name, Team: bc.Owner,
					Message: fmt.Sprintf("consumer file %s is deleted: team %s would no longer be asked about changes to %s; it must agree", bc.File, bc.Owner, bs.Subject),
					fact:    "consumer-removed:" + bs.Subject + "/" + bc.Name})
			case hc.Owner != bc.Owner:
				out = append(out, ProcessChange{What: ConsumerReowned, File: hc.File, Subject: bs.Subject, Consumer: bc.Name, Team: bc.Owner,
					Message: fmt.Sprintf("consumer %s of %s moves from team %s to team %s; %s must agree", bc.Name, bs.Subject, bc.Owner, hc.Owner, bc.Owner),
					fact:    "consumer-reowned:" + bs.Subject + "/" + bc.Name + ":" + bc.Owner + "->" + hc.Owner})
			default:
				if lost := narrowed(bc, hc); len(lost) > 0 {
					out = append(out, ProcessChange{What: ConsumerNarrowed, File: hc.File, Subject: bs.Subject, Consumer: bc.Name, Team: bc.Owner,
						Message: fmt.Sprintf("consumer file %s no longer declares %s: team %s would no longer be asked about it; it must agree", hc.File, strings.Join(lost, ", "), bc.Owner),
						fact:    "consumer-narrowed:" + bs.Subject + "/" + bc.Name + ":" + strings.Join(lost, ",")})
				}
			}
		}
	}
	return out
}

// hasErrors reports whether t has an error diagnostic on file.
func hasErrors(t *contract.Tree, file string) bool {
	return slices.ContainsFunc(t.Diagnostics, func(d contract.Diagnostic) bool { return d.File == file && d.Severity == contract.Error })
}

func consumerNamed(s *contract.Subject, name string) *contract.Consumer {
	for _, c := range s.Consumers {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// narrowed names what a consumer file of the base declared that the head's no longer
// does, in words of the file's keys.
func narrowed(b, h *contract.Consumer) []string {
	var out []string
	if !slices.Contains(h.Reads, "*") {
		for _, r := range b.Reads {
			if !slices.Contains(h.Reads, r) {
				out = append(out, fmt.Sprintf("reads %s", r))
			}
		}
	}
	for _, target := range slices.Sorted(maps.Keys(b.Produces)) {
		hf, ok := h.Produces[target]
		if !ok {
			out = append(out, "produces "+target)
			continue
		}
		for _, field := range slices.Sorted(maps.Keys(b.Produces[target])) {
			hin, ok := hf[field]
			if !ok {
				out = append(out, fmt.Sprintf("produces %s.%s", target, field))
				continue
			}
			for _, input := range b.Produces[target][field] {
				if !slices.Contains(hin, input) {
					out = append(out, fmt.Sprintf("produces %s.%s from %s", target, field, input))
				}
			}
		}
	}
	if b.Signoff == contract.SignoffRequired && h.Signoff != contract.SignoffRequired {
		out = append(out, "signoff: required")
	}
	if b.State != nil && !reflect.DeepEqual(b.State, h.State) {
		out = append(out, "its state as it was")
	}
	return out
}

// freezeChanges lists the freezes of the base that the head deletes or changes other
// than by widening (a one-off window that starts no later, ends no earlier, and covers
// at least the same scope): the admin team must agree, since a freeze holds every
// change in its scope.
func freezeChanges(base, head *contract.Tree, admin string) []ProcessChange {
	var out []ProcessChange
	for _, b := range base.Freezes {
		i := slices.IndexFunc(head.Freezes, func(f *contract.Freeze) bool { return f.Name == b.Name })
		if i < 0 {
			out = append(out, ProcessChange{What: FreezeRemoved, File: contract.FreezesFile, Team: admin,
				Message: fmt.Sprintf("freeze %q is deleted from %s; the admin team (%s) must agree", b.Name, contract.FreezesFile, admin),
				fact:    "freeze-removed:" + b.Name})
			continue
		}
		if h := head.Freezes[i]; !widens(b, h) {
			out = append(out, ProcessChange{What: FreezeChanged, File: contract.FreezesFile, Team: admin,
				Message: fmt.Sprintf("freeze %q in %s changes in a way that lets changes through that it held (window or scope %s became %s); the admin team (%s) must agree",
					b.Name, contract.FreezesFile, freezeWords(b), freezeWords(h), admin),
				fact: "freeze-changed:" + b.Name + ":" + freezeWords(b) + "->" + freezeWords(h)})
		}
	}
	return out
}

// widens reports whether freeze h holds at least what b held.
func widens(b, h *contract.Freeze) bool {
	if b.Weekly != nil || h.Weekly != nil {
		if !reflect.DeepEqual(b.Weekly, h.Weekly) || b.Timezone != h.Timezone || b.Start != h.Start || b.End != h.End {
			return false
		}
	} else if h.Start.After(b.Start) || h.End.Before(b.End) {
		return false
	}
	if h.Scope.Everything {
		return true
	}
	if b.Scope.Everything {
		return false
	}
	return !slices.ContainsFunc(b.Scope.Domains, func(d string) bool { return !slices.Contains(h.Scope.Domains, d) }) &&
		!slices.ContainsFunc(b.Scope.Tiers, func(t string) bool { return !slices.Contains(h.Scope.Tiers, t) })
}

func freezeWords(f *contract.Freeze) string {
	when := f.Start.UTC().Format("2006-01-02T15:04Z") + " to " + f.End.UTC().Format("2006-01-02T15:04Z")
	if w := f.Weekly; w != nil {
		when = fmt.Sprintf("weekly %s %s to %s %s %s", w.FromDay, w.FromTime, w.ToDay, w.ToTime, f.Timezone)
	}
	return when + ", scope " + calendar.ScopeString(f.Scope)
}

// adminTeam is the team whose sign-off a change to the process needs: Input.AdminTeam
// ("org/slug", its handle "@org/slug"), else the base's team "platform". An admin team
// that a team of the base's teams.yaml lists under github: is that team (the first by
// id), so its sign-off has the team's Slack channel, escalation and time zone.
func adminTeam(in Input) (string, []string) {
	if a := strings.TrimPrefix(strings.TrimSpace(in.AdminTeam), "@"); a != "" {
		ids := slices.Sorted(maps.Keys(in.Base.Teams))
		for _, id := range ids {
			for _, h := range in.Base.Teams[id].GitHub {
				if strings.EqualFold(h, "@"+a) {
					return id, in.Base.Teams[id].GitHub
				}
			}
		}
		return a, []string{"@" + a}
	}
	if t := in.Base.Teams[contract.PlatformTeam]; t != nil {
		return contract.PlatformTeam, t.GitHub
	}
	return contract.PlatformTeam, nil
}

// processSignOffs asks the team of each process change to sign off.
func processSignOffs(changes []ProcessChange, need func(team, subject string, ref ConsumerRef)) {
	for _, pc := range changes {
		ref := ConsumerRef{Subject: pc.Subject, Consumer: pc.Consumer, File: pc.File, Effect: checker.ChangesMeaning, Reason: pc.Message, facts: []string{pc.fact}}
		need(pc.Team, pc.Subject, ref)
	}
}
