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

// calendarPage is the month or week view of GET /calendar.
type calendarPage struct {
	layout
	View     string // month | week
	Heading  string // "December 2026", "Week of 2026-12-07"
	Zone     string
	Team     string
	Teams    []string
	TZ       string // the tz parameter, kept in links
	Date     string // the date shown, yyyy-mm-dd
	Weeks    [][]calDay
	Days     []calDay // the week view
	Items    int      // items in the view
	Conflict []calendar.Conflict
	// Recurring are the weekly freezes of the view, one row each; the days they
	// cover are hatched instead of listing every occurrence.
	Recurring []recurringFreeze
	Prev      string
	Next      string
	Today     string
	Month     string // link to the month view of Date
	Week      string // link to the week view of Date
	Feed      string // the ICS feed of the view
	Error     string
}

// calDay is one day of the grid with every item that overlaps it.
type calDay struct {
	Date    string // yyyy-mm-dd
	Label   string // "Tue 8 Dec"
	Num     int
	Outside bool // not in the month shown
	Today   bool
	Freeze  bool // a freeze overlaps the day
	// FrozenBy names the weekly freezes that overlap the day (hatched, not listed).
	FrozenBy string
	Items    []calItem
}

// recurringFreeze is a weekly freeze as one row: "every Fri 18:00 → Mon 08:00".
type recurringFreeze struct {
	Name, Window, Zone, Scope, Reason string
}

// calItem is an item as one day shows it.
type calItem struct {
	calendar.Item
	Span      string // "10:00–16:00 Europe/Berlin" or "Fri 18:00 → Mon 08:00"
	Continued bool   // began on an earlier day
	// Brief shows a continued item without its window, except on the view's first day.
	Brief    bool
	Subjects []produced
	TeamHref string
}

func (p *Pages) calendar(w http.ResponseWriter, r *http.Request) {
	s, tree, err := p.currentTree()
	if err != nil {
		p.unavailable(w, err)
		return
	}
	q := r.URL.Query()
	d := calendarPage{layout: s.frame("Calendar", "calendar"),
		View: "month", Team: q.Get("team"), TZ: q.Get("tz")}
	if q.Get("view") == "week" {
		d.View = "week"
	} else if v := q.Get("view"); v != "" && v != "month" {
		d.Error = "view " + quote(v) + " is not known: showing the month (use view=month or view=week)."
	}
	if d.Team != "" && tree.Teams[d.Team] == nil {
		p.notFound(w, s, "team "+quote(d.Team))
		return
	}
	loc := time.UTC
	switch {
	case d.TZ != "":
		l, err := time.LoadLocation(d.TZ)
		if err != nil || d.TZ == "Local" {
			d.Error = "time zone " + quote(d.TZ) + " is not an IANA zone name (like Europe/Berlin): showing UTC."
			d.TZ = ""
		} else {
			loc = l
		}
	case d.Team != "":
		loc = calendar.Location(tree.Teams[d.Team].Timezone)
	}
	d.Zone = loc.String()
	for id := range tree.Teams {
		d.Teams = append(d.Teams, id)
	}
	slices.Sort(d.Teams)
	now := p.now().In(loc)
	today := midnight(now)
	day := today
	if v := q.Get("date"); v != "" {
		t, err := time.ParseInLocation("2006-01-02", v, loc)
		if err != nil {
			d.Error = "date " + quote(v) + " is not a date like 2026-12-08: showing today."
		} else {
			day = t
		}
	}
	d.Date = day.Format("2006-01-02")

	var from, to time.Time
	if d.View == "month" {
		first := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, loc)
		from = weekStart(first)
		to = weekStart(first.AddDate(0, 1, 0).AddDate(0, 0, -1)).AddDate(0, 0, 7)
		d.Heading = first.Format("January 2006")
		d.Prev = p.calendarHref(d, "month", first.AddDate(0, -1, 0))
		d.Next = p.calendarHref(d, "month", first.AddDate(0, 1, 0))
	} else {
		from = weekStart(day)
		to = from.AddDate(0, 0, 7)
		d.Heading = "Week of " + from.Format("Mon 2 January 2006")
		d.Prev = p.calendarHref(d, "week", from.AddDate(0, 0, -7))
		d.Next = p.calendarHref(d, "week", from.AddDate(0, 0, 7))
	}
	d.Today = p.calendarHref(d, d.View, today)
	d.Month = p.calendarHref(d, "month", day)
	d.Week = p.calendarHref(d, "week", day)
	d.Feed = "/calendar.ics"
	if d.Team != "" {
		d.Feed = "/calendar/" + url.PathEscape(d.Team) + ".ics"
	}

	view := calendar.Agenda(tree, from, to, d.Team, calendar.WithNow(p.now()))
	items := view.Items()
	d.Items = len(items)
	seen := map[*contract.Freeze]bool{}
	for _, it := range items {
		if f := it.Freeze; it.Weekly && f != nil && f.Weekly != nil && !seen[f] {
			seen[f] = true
			w := f.Weekly
			d.Recurring = append(d.Recurring, recurringFreeze{Name: f.Name, Zone: f.Timezone, Scope: it.Scope, Reason: f.Reason,
				Window: w.FromDay.String()[:3] + " " + w.FromTime + " → " + w.ToDay.String()[:3] + " " + w.ToTime})
		}
	}
	d.Conflict = view.Conflicts
	var days []calDay
	for t := from; t.Before(to); t = t.AddDate(0, 0, 1) {
		end := t.AddDate(0, 0, 1)
		cd := calDay{Date: t.Format("2006-01-02"), Label: t.Format("Mon 2 Jan"), Num: t.Day(),
			Outside: d.View == "month" && t.Month() != day.Month(), Today: t.Equal(today)}
		for _, it := range items {
			if !it.Start.Before(end) || !it.End.After(t) {
				continue
			}
			if it.Kind == calendar.KindFreeze {
				cd.Freeze = true
			}
			if it.Weekly {
				if !strings.Contains(cd.FrozenBy, it.Title) {
					cd.FrozenBy = strings.TrimPrefix(cd.FrozenBy+", "+it.Title, ", ")
				}
				continue
			}
			ci := newCalItem(tree, it, t, loc)
			ci.Brief = ci.Continued && !t.Equal(from)
			cd.Items = append(cd.Items, ci)
		}
		days = append(days, cd)
	}
	if d.View == "month" {
		for i := 0; i < len(days); i += 7 {
			d.Weeks = append(d.Weeks, days[i:i+7])
		}
	} else {
		d.Days = days
	}
	if d.Team != "" {
		d.Title = "Calendar of " + d.Team
	}
	p.render(w, http.StatusOK, calendarTmpl, d)
}

func newCalItem(tree *contract.Tree, it calendar.Item, day time.Time, loc *time.Location) calItem {
	ci := calItem{Item: it, Continued: it.Start.Before(day), Span: span(it.Start, it.End, loc)}
	for _, s := range it.Subjects {
		ci.Subjects = append(ci.Subjects, produced{s, subjectHref(s)})
	}
	if it.Owner != "" {
		ci.TeamHref = teamHref(it.Owner)
	}
	return ci
}

// span writes an item's window in loc: "10:00–16:00" within a day, else with dates.
func span(start, end time.Time, loc *time.Location) string {
	a, b := start.In(loc), end.In(loc)
	if a.Year() == b.Year() && a.YearDay() == b.YearDay() {
		return a.Format("Mon 2 Jan 15:04") + "–" + b.Format("15:04")
	}
	return a.Format("Mon 2 Jan 15:04") + " → " + b.Format("Mon 2 Jan 2006 15:04")
}

// calendarHref links to a view of the calendar at date, keeping the team and zone.
func (p *Pages) calendarHref(d calendarPage, view string, date time.Time) string {
	v := url.Values{}
	v.Set("view", view)
	v.Set("date", date.Format("2006-01-02"))
	if d.Team != "" {
		v.Set("team", d.Team)
	}
	if d.TZ != "" {
		v.Set("tz", d.TZ)
	}
	return "/calendar?" + v.Encode()
}

func midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// weekStart returns the Monday of t's week, at midnight.
func weekStart(t time.Time) time.Time {
	t = midnight(t)
	return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
}

func teamHref(id string) string { return "/teams/" + url.PathEscape(id) }

func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return "“" + strings.ToValidUTF8(s, "") + "”"
}
