package web

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/calendar"
	"github.com/contractbot/contractbot/internal/clock"
	"github.com/contractbot/contractbot/internal/contract"
)

// FeedWindow is the span a feed covers around now.
const (
	FeedPast   = 30 * 24 * time.Hour
	FeedFuture = 366 * 24 * time.Hour
)

// Feeds serves the calendar as iCalendar feeds: GET /calendar.ics (everything) and
// GET /calendar/{team}.ics (what concerns one team), so a team subscribes in Google
// Calendar or Outlook. Responses carry an ETag of the commit and the team.
type Feeds struct {
	Tree *Tree
	// Clock tells the time (the computer's when nil).
	Clock clock.Clock
	Log   *slog.Logger
	// Name is the calendar's display name.
	Name string
	// PublicURL is where people reach the pages (serve --public-url, e.g.
	// https://contracts.example.com): each event links to its week there. Empty: no
	// links. Never taken from a request: a Host header is the sender's to choose, and
	// a feed is cached by clients and proxies.
	PublicURL string
}

// Mount adds the feed routes to mux.
func (f *Feeds) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /calendar.ics", func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, "") })
	mux.HandleFunc("GET /calendar/{file}", func(w http.ResponseWriter, r *http.Request) {
		team, ok := strings.CutSuffix(r.PathValue("file"), ".ics")
		if !ok || team == "" {
			http.NotFound(w, r)
			return
		}
		f.serve(w, r, team)
	})
}

func (f *Feeds) serve(w http.ResponseWriter, r *http.Request, team string) {
	tree, head, err := f.Tree.Current()
	if err != nil {
		f.Log.Error("calendar feed: loading the tree failed", "err", err)
		http.Error(w, "the contract tree cannot be read right now", http.StatusServiceUnavailable)
		return
	}
	if team != "" && tree.Teams[team] == nil {
		http.Error(w, fmt.Sprintf("no team %q in contracts/teams.yaml", team), http.StatusNotFound)
		return
	}
	now := f.now().UTC()
	day := now.Truncate(24 * time.Hour)
	etag := fmt.Sprintf(`"%s-%s-%s"`, head.String()[:16], team, day.Format("20060102"))
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	view := calendar.Agenda(tree, day.Add(-FeedPast), day.Add(FeedFuture), team)
	name := f.Name
	if name == "" {
		name = "Schema changes"
	}
	if team != "" {
		name += " (" + team + ")"
	}
	var buf bytes.Buffer
	seq := f.Tree.Sequences(tree, head)
	sequence := func(it calendar.Item) int {
		if it.Kind == "freeze" {
			return seq[contract.FreezesFile]
		}
		return seq[it.File]
	}
	base := strings.TrimSuffix(f.PublicURL, "/")
	eventURL := func(it calendar.Item) string {
		if base == "" {
			return ""
		}
		// The week of the calendar page that shows the event.
		return base + "/calendar?view=week&date=" + it.Start.In(calendar.Location(it.Timezone)).Format("2006-01-02")
	}
	if err := calendar.WriteICS(&buf, view, calendar.ICSOptions{Now: day, Name: name, Sequence: sequence, EventURL: eventURL}); err != nil {
		f.Log.Error("calendar feed: rendering failed", "err", err)
		http.Error(w, "the feed could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "max-age=300")
	w.Write(buf.Bytes())
}

// now is the feeds' clock's time.
func (f *Feeds) now() time.Time { return clock.Now(f.Clock) }
