package calendar

import (
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// Item kinds of a view.
const (
	KindEntry  = "entry"
	KindFreeze = "freeze"
)

// View is the agenda of a time range: calendar entries and freeze occurrences grouped
// by day, with conflicts marked. The CLI, the ICS feeds and the web pages render it.
type View struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Timezone is the display zone: days are calendar days in it.
	Timezone string `json:"timezone"`
	// Team filters the view when set.
	Team string `json:"team,omitempty"`
	Days []Day  `json:"days"`
	// Conflicts among the view's entries.
	Conflicts []Conflict `json:"conflicts"`
}

// Day is one calendar day of a view with what starts on it (or, on the view's first
// day, what is already under way).
type Day struct {
	// Date is yyyy-mm-dd in the view's zone.
	Date  string `json:"date"`
	Items []Item `json:"items"`
}

// Item is an entry or one freeze occurrence.
type Item struct {
	Kind  string    `json:"kind"` // entry | freeze
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Title string    `json:"title"`
	// Ongoing is true when the item began before the day it is listed on.
	Ongoing bool `json:"ongoing,omitempty"`
	// Ended is true when the item was over at the view's now (WithNow).
	Ended bool `json:"ended,omitempty"`

	// Entry fields.
	File        string   `json:"file,omitempty"`
	EntryKind   string   `json:"entry_kind,omitempty"`
	Subjects    []string `json:"subjects,omitempty"`
	Owner       string   `json:"owner,omitempty"`
	Timezone    string   `json:"timezone,omitempty"`
	PullRequest int      `json:"pull_request,omitempty"`
	Notes       string   `json:"notes,omitempty"`
	// ConflictsWith lists the files of entries this one conflicts with.
	ConflictsWith []string `json:"conflicts_with,omitempty"`
	// InFreezes names the freezes in scope of the entry's subjects that its window
	// overlaps: such an entry cannot carry a change (see FindEntry).
	InFreezes []string `json:"in_freezes,omitempty"`

	// Freeze fields.
	Reason string `json:"reason,omitempty"`
	Scope  string `json:"scope,omitempty"`
	Weekly bool   `json:"weekly,omitempty"`

	Entry  *contract.Entry  `json:"-"`
	Freeze *contract.Freeze `json:"-"`
}

// AgendaOption changes what Agenda computes.
type AgendaOption func(*agendaConfig)

type agendaConfig struct {
	now time.Time
}

// WithNow marks the items over at now as Ended: a view that starts at midnight lists
// a freeze that ended at 07:00 as ended, not as under way.
func WithNow(now time.Time) AgendaOption {
	return func(c *agendaConfig) { c.now = now }
}

// Agenda returns the entries and freeze occurrences that overlap [from, to), grouped
// by day in from's location (pass from and to in the display zone). With team set,
// it keeps the entries the team owns or whose subjects the team owns or consumes, and
// the freezes that cover everything or one of those subjects. Items are sorted by
// start, then freezes before entries, then title and file; conflicts are computed
// among every entry of the tree and marked on the listed ones.
func Agenda(tree *contract.Tree, from, to time.Time, team string, opts ...AgendaOption) View {
	var cfg agendaConfig
	for _, o := range opts {
		o(&cfg)
	}
	loc := from.Location()
	v := View{From: from, To: to, Timezone: loc.String(), Team: team, Days: []Day{}, Conflicts: []Conflict{}}
	mine := teamSubjects(tree, team)
	conflicts := Conflicts(tree, nil)
	var items []Item
	for _, e := range tree.Entries {
		if !e.Start.Before(to) || !from.Before(e.End) {
			continue
		}
		if team != "" && e.Owner != team && !slices.ContainsFunc(e.Subjects, func(s string) bool { return mine[s] }) {
			continue
		}
		it := Item{Kind: KindEntry, Start: e.Start, End: e.End, Title: e.Title, File: e.File, EntryKind: e.Kind,
			Subjects: e.Subjects, Owner: e.Owner, Timezone: e.Timezone, PullRequest: e.PullRequest, Notes: e.Notes, Entry: e}
		for _, c := range conflicts {
			if c.AFile == e.File || c.BFile == e.File {
				it.ConflictsWith = append(it.ConflictsWith, c.Other(e.File))
			}
		}
		for _, f := range freezesFor(tree, e.Subjects) {
			if len(Occurrences(f, e.Start, e.End)) > 0 {
				it.InFreezes = append(it.InFreezes, f.Name)
			}
		}
		items = append(items, it)
	}
	shown := map[string]bool{}
	for _, it := range items {
		shown[it.File] = true
	}
	for _, c := range conflicts {
		if shown[c.AFile] || shown[c.BFile] {
			v.Conflicts = append(v.Conflicts, c)
		}
	}
	for _, f := range tree.Freezes {
		if team != "" && !f.Scope.Everything && !coversAny(tree, f, mine) {
			continue
		}
		for _, w := range Occurrences(f, from, to) {
			items = append(items, Item{Kind: KindFreeze, Start: w.Start, End: w.End, Title: w.Name,
				Reason: w.Reason, Scope: ScopeString(f.Scope), Timezone: f.Timezone, Weekly: w.Weekly, Freeze: f})
		}
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		if a.Kind != b.Kind {
			return strings.Compare(b.Kind, a.Kind) // freeze before entry
		}
		if c := strings.Compare(a.Title, b.Title); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	for _, it := range items {
		day := it.Start
		if day.Before(from) {
			day = from
			it.Ongoing = true
		}
		it.Ended = !cfg.now.IsZero() && !it.End.After(cfg.now)
		date := day.In(loc).Format("2006-01-02")
		if n := len(v.Days); n == 0 || v.Days[n-1].Date != date {
			v.Days = append(v.Days, Day{Date: date})
		}
		v.Days[len(v.Days)-1].Items = append(v.Days[len(v.Days)-1].Items, it)
	}
	return v
}

// Items returns every item of the view in order.
func (v View) Items() []Item {
	var out []Item
	for _, d := range v.Days {
		out = append(out, d.Items...)
	}
	return out
}

// teamSubjects returns the subjects team owns or reads through a consumer it owns;
// nil for no team.
func teamSubjects(tree *contract.Tree, team string) map[string]bool {
	if team == "" {
		return nil
	}
	out := map[string]bool{}
	for _, s := range tree.Subjects {
		if s.Owner == team {
			out[s.Subject] = true
		}
		for _, c := range s.Consumers {
			if c.Owner == team {
				out[s.Subject] = true
			}
		}
	}
	return out
}

func coversAny(tree *contract.Tree, f *contract.Freeze, subjects map[string]bool) bool {
	for s := range subjects {
		if Covers(f, tree.Subject(s)) {
			return true
		}
	}
	return false
}
