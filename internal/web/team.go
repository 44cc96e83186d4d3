package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/contract"
)

type teamsPage struct {
	layout
	Teams []teamRow
}

type teamRow struct {
	teamView
	Href                string
	Produces, Consumers int
}

func (p *Pages) teams(w http.ResponseWriter, r *http.Request) {
	s, tree, err := p.currentTree()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	d := teamsPage{layout: s.frame("Teams", "teams")}
	ids := map[string]bool{}
	for id := range tree.Teams {
		ids[id] = true
	}
	produces, consumers := map[string]int{}, map[string]int{}
	for _, sub := range tree.Subjects {
		produces[sub.Owner]++
		ids[sub.Owner] = true
		for _, c := range sub.Consumers {
			consumers[c.Owner]++
			ids[c.Owner] = true
		}
	}
	for _, id := range sortedKeys(ids) {
		d.Teams = append(d.Teams, teamRow{teamView: newTeamView(tree, id), Href: teamHref(id), Produces: produces[id], Consumers: consumers[id]})
	}
	p.render(w, http.StatusOK, teamsTmpl, d)
}

type teamPage struct {
	layout
	Team     teamView
	Zone     string
	Owned    []ownedRow
	Reads    []readRow
	Entries  []calItem
	Calendar string
	Feed     string
	// Sign-offs: Connected is false without a source; Waiting lists the pull requests
	// that wait for this team's sign-off; SignOffError explains a source that failed.
	Connected    bool
	Waiting      []prRow
	SignOffError string
	// Deprecated are the team's consumers' reads of deprecated fields, the soonest
	// remove_after first.
	Deprecated []deprecatedRow
}

type ownedRow struct {
	S         *contract.Subject
	Href      string
	Consumers []consumerLink
}

type consumerLink struct{ Name, Owner, Href, TeamHref string }

type readRow struct {
	C        *contract.Consumer
	Href     string // the consumer on its subject's page
	Subject  produced
	Produces []produced
}

// TeamHorizon is how far ahead a team page lists planned entries.
const TeamHorizon = 366 * 24 * time.Hour

func (p *Pages) team(w http.ResponseWriter, r *http.Request) {
	s, tree, err := p.currentTree()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	id := r.PathValue("team")
	d := teamPage{layout: s.frame("Team "+id, "teams"), Team: newTeamView(tree, id)}
	for _, sub := range tree.Subjects {
		if sub.Owner == id {
			o := ownedRow{S: sub, Href: subjectHref(sub.Subject)}
			for _, c := range sub.Consumers {
				o.Consumers = append(o.Consumers, consumerLink{c.Name, c.Owner, consumerHref(c), teamHref(c.Owner)})
			}
			d.Owned = append(d.Owned, o)
		}
		for _, c := range sub.Consumers {
			if c.Owner == id {
				row := readRow{C: c, Href: consumerHref(c), Subject: produced{sub.Subject, subjectHref(sub.Subject)}}
				for _, out := range sortedProduces(c) {
					row.Produces = append(row.Produces, produced{out, subjectHref(out)})
				}
				d.Reads = append(d.Reads, row)
			}
		}
	}
	slices.SortStableFunc(d.Reads, func(a, b readRow) int { return strings.Compare(a.C.Name, b.C.Name) })
	if !d.Team.Known && len(d.Owned) == 0 && len(d.Reads) == 0 {
		p.notFound(w, s, "team "+quote(id))
		return
	}
	loc := time.UTC
	if t := tree.Teams[id]; t != nil {
		loc = calendar.Location(t.Timezone)
	}
	d.Zone = loc.String()
	d.Deprecated = deprecatedRows(teamDeprecatedReads(tree, id), p.now().UTC().Format("2006-01-02"))
	now := p.now().In(loc)
	for _, it := range calendar.Agenda(tree, now, now.Add(TeamHorizon), id).Items() {
		if it.Kind == calendar.KindEntry {
			d.Entries = append(d.Entries, newCalItem(tree, it, midnight(now), loc))
		}
	}
	d.Calendar = "/calendar?team=" + url.QueryEscape(id)
	d.Feed = "/calendar/" + url.PathEscape(id) + ".ics"
	if p.SignOffs != nil {
		d.Connected = true
		prs, err := p.SignOffs.OpenPullRequests(r.Context())
		if err != nil {
			p.Log.Error("pages: reading the open pull requests failed", "err", err)
			d.SignOffError = "The bot's state could not be read right now; try again in a minute."
		}
		for _, row := range signOffRows(prs, p.now(), id) {
			if slices.ContainsFunc(row.Teams, func(s signOffRow) bool { return s.waiting() }) {
				d.Waiting = append(d.Waiting, row)
			}
		}
	}
	p.render(w, http.StatusOK, teamTmpl, d)
}
