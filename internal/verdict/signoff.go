package verdict

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/impact"
)

// signOffs works out which teams must sign off, whether they have, and the team state
// to remember. A team must sign off for each of its consumers that reads the changed
// subject directly and for which the change breaks or changes meaning, and for every
// direct consumer of a subject whose governance changes.
func signOffs(in Input, subjects []*SubjectReport, process []ProcessChange) ([]*SignOff, map[string]TeamState) {
	byTeam := map[string]*SignOff{}
	hours := map[string]int{}
	admin, adminHandles := adminTeam(in)
	// Everything here comes from the base (Input): a team's handles, a subject's
	// sign-off window. A team the base does not know has no handles (nobody can
	// sign off for it but an override); a subject the base lacks has the default
	// window.
	need := func(team, subject string, ref ConsumerRef) {
		so := byTeam[team]
		if so == nil {
			so = &SignOff{Team: team}
			if team == admin {
				so.Handles = adminHandles
			} else if t := in.Base.Teams[team]; t != nil {
				so.Handles = t.GitHub
			}
			byTeam[team] = so
		}
		so.For = append(so.For, ref)
		h := contract.DefaultSignoffHours
		if s := in.Base.Subject(subject); s != nil {
			h = s.SignoffHours
		}
		if cur, ok := hours[team]; !ok || h < cur {
			hours[team] = h
		}
	}
	for _, sr := range subjects {
		required := map[string]bool{}
		for _, a := range sr.Affected {
			gated := a.Direct || (a.Consumer != nil && a.Consumer.Signoff == contract.SignoffRequired)
			if !gated || a.Effect.Rank() < checker.ChangesMeaning.Rank() {
				continue
			}
			fields := map[string]bool{}
			var kinds []string
			for _, h := range a.Hits {
				if h.Field != impact.WholeSubject { // a deleted subject: no field to name
					fields[h.Field] = true
				}
				kinds = append(kinds, fmt.Sprintf("%s %s %s->%s", h.Field, h.Change.Kind, h.Change.Old, h.Change.New))
			}
			reason := "the change breaks fields it reads"
			if a.Effect == checker.ChangesMeaning {
				reason = "fields it reads change their meaning or range"
			}
			if !a.Direct {
				reason = fmt.Sprintf("it asks to sign off changes that reach it through lineage (signoff: required), %d hop(s) away: ", a.Hops) + reason
			}
			if sr.Kind == Deleted {
				reason = "the subject it reads is deleted"
			}
			required[a.Name] = true
			facts := slices.Clone(kinds)
			if !a.Direct {
				facts = append(facts, fmt.Sprintf("hops:%d", a.Hops))
			}
			if sr.Kind == Deleted {
				facts = append(facts, "subject-deleted")
			}
			need(a.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: a.Name, Effect: a.Effect, Fields: sortedKeys(fields), Reason: reason,
				facts: facts, legacy: reason + fingerprintSep + strings.Join(kinds, ";")})
		}
		for _, se := range sr.State {
			effect, reason := checker.ChangesMeaning, "its "+se.Serializer+" state holds "+se.Field+", which the change alters: "+se.Why+"; migrate the state with a savepoint"
			if !se.Migratable {
				effect, reason = checker.Breaks, "its "+se.Serializer+" state holds "+se.Field+" and cannot be restored after the change: "+se.Why
			}
			need(se.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: se.Consumer, Effect: effect, Fields: []string{se.Field}, Reason: reason,
				facts:  []string{"state:" + se.Field + ":" + string(se.Change) + ":" + se.Serializer + ":" + strconv.FormatBool(se.Migratable)},
				legacy: reason + fingerprintSep + "state:" + se.Field + ":" + string(se.Change)})
		}
		for _, b := range in.SQLBreaks {
			if b.Subject == sr.Subject {
				reason := fmt.Sprintf("the change breaks its Flink SQL: %s:%d: %s", b.File, b.Line, b.Message)
				required[b.Consumer] = true
				need(b.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: b.Consumer, Effect: checker.Breaks, Reason: reason,
					facts: []string{"sql:" + b.Fact}, legacy: reason})
			}
		}
		dataContractSignOffs(in, sr, required, need)
		if len(sr.Governance) == 0 {
			continue
		}
		if s := in.Base.Subject(sr.Subject); s != nil {
			for _, c := range s.Consumers {
				if required[c.Name] {
					continue
				}
				reason := "the contract it relies on changes: " + strings.Join(sr.Governance, "; ")
				need(c.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: c.Name, Effect: checker.ChangesMeaning, Reason: reason,
					facts: slices.Clone(sr.governs), legacy: reason})
			}
		}
	}
	processSignOffs(process, need)
	teams := make([]string, 0, len(byTeam))
	for t := range byTeam {
		teams = append(teams, t)
	}
	sort.Strings(teams)
	latest := latestReviews(in.Reviews)
	state := map[string]TeamState{}
	var out []*SignOff
	for _, team := range teams {
		so := byTeam[team]
		sort.SliceStable(so.For, func(i, j int) bool {
			a, b := so.For[i], so.For[j]
			if a.Subject != b.Subject {
				return a.Subject < b.Subject
			}
			if a.Consumer != b.Consumer {
				return a.Consumer < b.Consumer
			}
			return a.File < b.File
		})
		so.Fingerprint = fingerprint(so.For)
		st := teamState(in, so, legacyFingerprint(so.For))
		so.Fingerprint = st.Fingerprint
		state[team] = st
		so.RequestedAt = st.RequestedAt
		so.Deadline = st.RequestedAt.Add(time.Duration(hours[team]) * time.Hour)
		so.Status = Pending
		if rv, ok := approval(in, so, latest, st); ok {
			so.Status, so.ApprovedBy, so.ApprovedAt = Approved, strings.ToLower(rv.Login), rv.SubmittedAt
		} else {
			if _, stale := approvalBefore(in, so, latest); stale {
				so.Dropped = "what the change does to this team's consumers changed since the approval; approve again"
				if in.Memory == Rebuilt {
					so.Dropped = "contractbot could not verify its memory of this pull request, so only approvals of the latest commit count; approve again"
				}
			}
			if !in.Now.Before(so.Deadline) {
				so.Status = Overdue
			}
		}
		out = append(out, so)
	}
	return out, state
}

// fingerprint hashes what the change does to a team's consumers, from facts only:
// the subject, the consumer or file, the effect and the structured facts (field, kind
// of change, old and new, rule names, lineage hops), never the sentences a person
// reads, so a release that rewords a message keeps every approval.
func fingerprint(refs []ConsumerRef) string {
	h := sha256.New()
	for _, r := range refs {
		fmt.Fprintf(h, "%q|%q|%q|%q|%q\n", r.Subject, r.Consumer, r.File, r.Effect, r.facts)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// fingerprintSep separated a reason from its detail in legacyFingerprint.
const fingerprintSep = "\x00"

// legacyFingerprint is the fingerprint earlier releases wrote, which hashed the
// reasons' sentences: a team whose remembered fingerprint is this one for the same
// change keeps it (teamState), so upgrading drops no approval. It is "" when a
// reference has no such form (a requirement that earlier releases did not make).
func legacyFingerprint(refs []ConsumerRef) string {
	h := sha256.New()
	for _, r := range refs {
		if r.legacy == "" {
			return ""
		}
		fmt.Fprintf(h, "%s|%s|%s|%s\n", r.Subject, r.Consumer, r.Effect, r.legacy)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// teamState is a team's sign-off state now: kept while its fingerprint is the same,
// started afresh when the fingerprint is new. A requirement present at a pull
// request's first evaluation dates from the opening; one that appears later (a new
// team, a changed fingerprint) from now; one whose history cannot be verified from
// the last review request GitHub shows, or now.
//
// A remembered fingerprint that is legacy (the form earlier releases wrote for the
// same change) counts as the same, and is kept.
func teamState(in Input, so *SignOff, legacy string) TeamState {
	fresh := TeamState{Fingerprint: so.Fingerprint, Since: in.Now, RequestedAt: in.Now, Head: in.HeadSHA}
	if in.PriorHead != "" && in.PriorHead == in.HeadSHA {
		fresh.Head = "" // the head did not move: the base did, and the head's approvals predate it
	}
	st, seen := in.Prior[so.Team]
	if seen && legacy != "" && st.Fingerprint == legacy {
		so.Fingerprint = legacy
	}
	switch {
	case in.Memory == Rebuilt:
		fresh.Head = in.HeadSHA
		for _, h := range so.Handles {
			if at, ok := in.Requested[strings.ToLower(h)]; ok && at.Before(fresh.RequestedAt) {
				fresh.RequestedAt = at
			}
		}
		return fresh
	case in.Prior == nil:
		opened := in.OpenedAt
		if opened.IsZero() {
			opened = in.Now
		}
		return TeamState{Fingerprint: so.Fingerprint, RequestedAt: opened}
	case !seen || st.Fingerprint != so.Fingerprint:
		return fresh
	}
	return st
}

// latestReviews keeps each reviewer's latest review that carries a decision: a
// comment does not replace an approval on GitHub, a dismissal does.
func latestReviews(reviews []Review) map[string]Review {
	out := map[string]Review{}
	for _, r := range reviews {
		if r.State == "COMMENTED" || r.State == "PENDING" {
			continue
		}
		login := strings.ToLower(strings.TrimPrefix(r.Login, "@"))
		if cur, ok := out[login]; !ok || !r.SubmittedAt.Before(cur.SubmittedAt) {
			out[login] = r
		}
	}
	return out
}

// approval returns the latest approving review of a team member that counts: given
// after the team's fingerprint appeared, or on the head commit it appeared at; when
// the memory is rebuilt, only an approval of the head commit. The
// author's approval never counts for a team they are not in.
func approval(in Input, so *SignOff, latest map[string]Review, st TeamState) (Review, bool) {
	for _, login := range slices.Sorted(maps.Keys(latest)) {
		r := latest[login]
		if r.State != "APPROVED" || !isMember(in, so.Handles, login) {
			continue
		}
		if in.Memory == Rebuilt { // nothing dates the requirement: the head commit's approvals only
			if r.CommitID == in.HeadSHA {
				return r, true
			}
			continue
		}
		if !r.SubmittedAt.Before(st.Since) || (st.Head != "" && r.CommitID == st.Head) {
			return r, true
		}
	}
	return Review{}, false
}

// approvalBefore returns a team member's approval that does not count (given before
// the fingerprint appeared): the team is told its approval was dropped.
func approvalBefore(in Input, so *SignOff, latest map[string]Review) (Review, bool) {
	for _, login := range slices.Sorted(maps.Keys(latest)) {
		if r := latest[login]; r.State == "APPROVED" && isMember(in, so.Handles, login) {
			return r, true
		}
	}
	return Review{}, false
}

// isMember reports whether login belongs to one of a team's GitHub handles.
func isMember(in Input, handles []string, login string) bool {
	for _, h := range handles {
		if strings.EqualFold(h, "@"+login) {
			return true
		}
		for _, m := range in.Members[h] {
			if strings.EqualFold(m, login) {
				return true
			}
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
