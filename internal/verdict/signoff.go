package verdict

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
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
func signOffs(in Input, subjects []*SubjectReport) ([]*SignOff, map[string]TeamState) {
	byTeam := map[string]*SignOff{}
	hours := map[string]int{}
	need := func(team, subject string, ref ConsumerRef) {
		so := byTeam[team]
		if so == nil {
			so = &SignOff{Team: team}
			if t := in.Base.Teams[team]; t != nil {
				so.Handles = t.GitHub
			} else if t := in.Head.Teams[team]; t != nil {
				so.Handles = t.GitHub
			}
			byTeam[team] = so
		}
		so.For = append(so.For, ref)
		h := contract.DefaultSignoffHours
		if s := in.Head.Subject(subject); s != nil {
			h = s.SignoffHours
		} else if s := in.Base.Subject(subject); s != nil {
			h = s.SignoffHours
		}
		if cur, ok := hours[team]; !ok || h < cur {
			hours[team] = h
		}
	}
	for _, sr := range subjects {
		required := map[string]bool{}
		for _, a := range sr.Affected {
			if !a.Direct || a.Effect.Rank() < checker.ChangesMeaning.Rank() {
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
			if sr.Kind == Deleted {
				reason = "the subject it reads is deleted"
			}
			required[a.Name] = true
			need(a.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: a.Name, Effect: a.Effect, Fields: sortedKeys(fields), Reason: reason + fingerprintSep + strings.Join(kinds, ";")})
		}
		if len(sr.Governance) == 0 {
			continue
		}
		if s := in.Base.Subject(sr.Subject); s != nil {
			for _, c := range s.Consumers {
				if required[c.Name] {
					continue
				}
				need(c.Owner, sr.Subject, ConsumerRef{Subject: sr.Subject, Consumer: c.Name, Effect: checker.ChangesMeaning,
					Reason: "the contract it relies on changes: " + strings.Join(sr.Governance, "; ")})
			}
		}
	}
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
		sort.Slice(so.For, func(i, j int) bool {
			if so.For[i].Subject != so.For[j].Subject {
				return so.For[i].Subject < so.For[j].Subject
			}
			return so.For[i].Consumer < so.For[j].Consumer
		})
		so.Fingerprint = fingerprint(so.For)
		for i := range so.For {
			so.For[i].Reason, _, _ = strings.Cut(so.For[i].Reason, fingerprintSep)
		}
		st, seen := in.Prior[team]
		switch {
		case !seen:
			st = TeamState{Fingerprint: so.Fingerprint, RequestedAt: firstRequest(in)}
		case st.Fingerprint != so.Fingerprint:
			so.Dropped = "what the change does to this team's consumers changed since the last review; approve again"
			st = TeamState{Fingerprint: so.Fingerprint, Since: in.Now, RequestedAt: in.Now}
		}
		state[team] = st
		so.RequestedAt = st.RequestedAt
		so.Deadline = st.RequestedAt.Add(time.Duration(hours[team]) * time.Hour)
		so.Status = Pending
		if by := approver(in, so, latest, st.Since); by != "" {
			so.Status, so.ApprovedBy, so.Dropped = Approved, by, ""
		} else if !in.Now.Before(so.Deadline) {
			so.Status = Overdue
		}
		out = append(out, so)
	}
	return out, state
}

// fingerprintSep separates a reason from the detail that only feeds the fingerprint.
const fingerprintSep = "\x00"

// fingerprint hashes what the change does to a team's consumers.
func fingerprint(refs []ConsumerRef) string {
	h := sha256.New()
	for _, r := range refs {
		fmt.Fprintf(h, "%s|%s|%s|%s\n", r.Subject, r.Consumer, r.Effect, r.Reason)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func firstRequest(in Input) time.Time {
	if !in.OpenedAt.IsZero() {
		return in.OpenedAt
	}
	return in.Now
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

// approver returns the login of a team member whose latest review approves, given
// after since; the author's approval never counts for a team they are not in.
func approver(in Input, so *SignOff, latest map[string]Review, since time.Time) string {
	logins := make([]string, 0, len(latest))
	for l := range latest {
		logins = append(logins, l)
	}
	sort.Strings(logins)
	for _, login := range logins {
		r := latest[login]
		if r.State != "APPROVED" || r.SubmittedAt.Before(since) {
			continue
		}
		if isMember(in, so.Handles, login) {
			return login
		}
	}
	return ""
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
