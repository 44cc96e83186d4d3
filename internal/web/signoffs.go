package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// SignOffSource tells the pages which pull requests wait for sign-offs. The bot
// implements it from its state (the sticky comments); the pages only read it.
type SignOffSource interface {
	OpenPullRequests(ctx context.Context) ([]PullRequestStatus, error)
}

// PullRequestStatus is an open pull request of the contract repository as the bot
// last evaluated it.
type PullRequestStatus struct {
	Repo   string // "acme/contracts"
	Number int
	URL    string
	Title  string
	// Class is the verdict class: "additive", "breaking", …
	Class       string
	HeadSHA     string
	EvaluatedAt time.Time
	Teams       []TeamSignOff
	// Subjects are the subjects the pull request changes.
	Subjects []string
}

// Sign-off statuses.
const (
	SignOffApproved = "approved"
	SignOffPending  = "pending"
	SignOffOverdue  = "overdue"
)

// TeamSignOff is one team's required sign-off on a pull request.
type TeamSignOff struct {
	Team     string
	Status   string // approved | pending | overdue
	Deadline time.Time
	// ApprovedBy is the GitHub login that signed off, when approved.
	ApprovedBy string
}

// waiting reports whether the sign-off is still missing; a pending one past its
// deadline counts as overdue.
func (s TeamSignOff) waiting() bool { return s.Status != SignOffApproved }

func (s TeamSignOff) overdue(now time.Time) bool {
	return s.Status == SignOffOverdue || s.waiting() && !s.Deadline.IsZero() && now.After(s.Deadline)
}

// prRow is a pull request as the sign-off page shows it.
type prRow struct {
	PullRequestStatus
	Overdue  bool
	Approved int
	Teams    []signOffRow
	// due is the earliest deadline of a missing sign-off, for sorting.
	due time.Time
}

type signOffRow struct {
	TeamSignOff
	Href    string
	Status  string // the status shown: overdue when pending past the deadline
	Overdue bool
	Left    string // "2 days 3 hours left", "overdue by 5 hours", ""
}

type signOffsPage struct {
	layout
	Connected bool
	Error     string
	Rows      []prRow
	Overdue   int
}

// rows turns the source's pull requests into rows: overdue ones first, then by the
// earliest missing sign-off's deadline, then fully signed off ones, then by repo and
// number. Only the sign-offs of team are kept when team is set (and pull requests
// without one are dropped).
func signOffRows(prs []PullRequestStatus, now time.Time, team string) []prRow {
	var out []prRow
	for _, pr := range prs {
		r := prRow{PullRequestStatus: pr}
		for _, s := range pr.Teams {
			if team != "" && s.Team != team {
				continue
			}
			row := signOffRow{TeamSignOff: s, Href: teamHref(s.Team), Status: s.Status, Overdue: s.overdue(now)}
			if row.Overdue {
				row.Status = SignOffOverdue
				r.Overdue = true
			}
			if s.waiting() && !s.Deadline.IsZero() {
				row.Left = timeLeft(s.Deadline.Sub(now))
				if r.due.IsZero() || s.Deadline.Before(r.due) {
					r.due = s.Deadline
				}
			}
			if !s.waiting() {
				r.Approved++
			}
			r.Teams = append(r.Teams, row)
		}
		if team != "" && len(r.Teams) == 0 {
			continue
		}
		slices.SortStableFunc(r.Teams, func(a, b signOffRow) int {
			if a.Overdue != b.Overdue {
				return boolFirst(a.Overdue)
			}
			if a.waiting() != b.waiting() {
				return boolFirst(a.waiting())
			}
			return strings.Compare(a.Team, b.Team)
		})
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b prRow) int {
		if a.Overdue != b.Overdue {
			return boolFirst(a.Overdue)
		}
		if a.due.IsZero() != b.due.IsZero() {
			return boolFirst(!a.due.IsZero())
		}
		if c := a.due.Compare(b.due); c != 0 {
			return c
		}
		if c := strings.Compare(a.Repo, b.Repo); c != 0 {
			return c
		}
		return a.Number - b.Number
	})
	return out
}

func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}

// timeLeft says how long until a deadline, or how long since, to the hour.
func timeLeft(d time.Duration) string {
	past := d < 0
	if past {
		d = -d
	}
	days, hours := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
	var s string
	switch {
	case days > 0 && hours > 0:
		s = plural(days, "day") + " " + plural(hours, "hour")
	case days > 0:
		s = plural(days, "day")
	case hours > 0:
		s = plural(hours, "hour")
	default:
		s = "less than an hour"
	}
	if past {
		return "overdue by " + s
	}
	return s + " left"
}

func (p *Pages) signOffs(w http.ResponseWriter, r *http.Request) {
	s, err := p.current()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	d := signOffsPage{layout: s.frame("Sign-offs", "signoffs"), Connected: p.SignOffs != nil}
	status := http.StatusOK
	if p.SignOffs != nil {
		prs, err := p.SignOffs.OpenPullRequests(r.Context())
		if err != nil {
			p.Log.Error("pages: reading the open pull requests failed", "err", err)
			d.Error = "The bot's state could not be read right now; try again in a minute."
			status = http.StatusServiceUnavailable
		}
		d.Rows = signOffRows(prs, p.now(), "")
		for _, r := range d.Rows {
			if r.Overdue {
				d.Overdue++
			}
		}
	}
	p.render(w, status, signOffsTmpl, d)
}
