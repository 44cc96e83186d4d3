package calendar

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// Working hours in which Suggest places a window, in the owner team's time zone.
const (
	workStart   = 10 // 10:00
	workEnd     = 16 // 16:00
	suggestStep = 30 * time.Minute
	// suggestHorizon bounds the search for a free window.
	suggestHorizon = 366 * 24 * time.Hour
	// DefaultDuration is the window length Suggest uses when given none.
	DefaultDuration = 2 * time.Hour
)

// SuggestedEntry is a calendar entry ready to commit.
type SuggestedEntry struct {
	// File is the path to create, calendar/<yyyy-mm-dd>-<slug>.yaml; empty when no
	// free window was found within a year.
	File string `json:"file"`
	// Content is the file's YAML.
	Content  string    `json:"content"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Timezone string    `json:"timezone"`
}

// SuggestOption changes what Suggest writes.
type SuggestOption func(*suggestConfig)

type suggestConfig struct {
	title string
	pr    int
}

// WithTitle sets the entry's title; the default names the subjects.
func WithTitle(title string) SuggestOption { return func(c *suggestConfig) { c.title = title } }

// WithPullRequest sets the entry's pull_request.
func WithPullRequest(n int) SuggestOption { return func(c *suggestConfig) { c.pr = n } }

// Suggest finds the next free window after now for a change to subjects owned by team
// owner and writes it as a calendar entry. The window lasts duration (DefaultDuration
// when zero or less), starts on a half hour, lies in working hours (10:00 to 16:00 in
// the owner's time zone, UTC when the team has none, Monday to Thursday), overlaps no
// freeze in scope of any of the subjects and no other entry naming any of them. A
// window longer than the working day starts at 10:00 and runs on. When nothing is free
// within a year, File is empty.
func Suggest(tree *contract.Tree, subjects []string, owner string, now time.Time, duration time.Duration, opts ...SuggestOption) SuggestedEntry {
	var cfg suggestConfig
	for _, o := range opts {
		o(&cfg)
	}
	if duration <= 0 {
		duration = DefaultDuration
	}
	tz := "UTC"
	if t := tree.Teams[owner]; t != nil && t.Timezone != "" {
		tz = t.Timezone
	}
	loc := Location(tz)
	busy := freezeWindows(freezesFor(tree, subjects), now, now.Add(suggestHorizon+duration))
	for _, e := range tree.Entries {
		for _, s := range subjects {
			if slices.Contains(e.Subjects, s) {
				busy = append(busy, Window{Start: e.Start, End: e.End, Name: e.File})
				break
			}
		}
	}
	local := now.In(loc)
	y, m, d := local.Date()
	for day := 0; day < int(suggestHorizon/(24*time.Hour)); day++ {
		open := time.Date(y, m, d+day, workStart, 0, 0, 0, loc)
		if wd := open.Weekday(); wd < time.Monday || wd > time.Thursday {
			continue
		}
		last := time.Date(y, m, d+day, workEnd, 0, 0, 0, loc).Add(-duration)
		if last.Before(open) {
			last = open
		}
		for start := open; !start.After(last); start = start.Add(suggestStep) {
			if !start.After(now) {
				continue
			}
			end := start.Add(duration)
			if free(busy, start, end) {
				return render(cfg, subjects, owner, tz, start, end)
			}
		}
	}
	return SuggestedEntry{Timezone: tz}
}

func free(busy []Window, start, end time.Time) bool {
	for _, w := range busy {
		if w.Overlaps(start, end) {
			return false
		}
	}
	return true
}

var reNotSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a file-name slug from s: lower case, runs of other characters as one
// hyphen, at most 48 characters.
func slug(s string) string {
	out := strings.Trim(reNotSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(out) > 48 {
		out = strings.TrimRight(out[:48], "-")
	}
	if out == "" {
		out = "change"
	}
	return out
}

// yamlString quotes s as a YAML double-quoted scalar (JSON's escapes are YAML's).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func render(cfg suggestConfig, subjects []string, owner, tz string, start, end time.Time) SuggestedEntry {
	loc := Location(tz)
	title := cfg.title
	if title == "" {
		title = "Change " + join(subjects)
	}
	name := cfg.title
	if name == "" && len(subjects) > 0 {
		name = strings.TrimSuffix(subjects[0], "-value")
	}
	file := fmt.Sprintf("%s/%s-%s.yaml", contract.CalendarDir, start.In(loc).Format("2006-01-02"), slug(name))
	qs := make([]string, len(subjects))
	for i, s := range subjects {
		qs[i] = yamlString(s)
	}
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../docs/schemas/calendar-entry.schema.json\n")
	fmt.Fprintf(&b, "title: %s\n", yamlString(title))
	b.WriteString("kind: schema-change\n")
	fmt.Fprintf(&b, "subjects: [%s]\n", strings.Join(qs, ", "))
	fmt.Fprintf(&b, "owner: %s\n", yamlString(owner))
	b.WriteString("window:\n")
	fmt.Fprintf(&b, "  start: %q\n", start.In(loc).Format("2006-01-02T15:04"))
	fmt.Fprintf(&b, "  end: %q\n", end.In(loc).Format("2006-01-02T15:04"))
	fmt.Fprintf(&b, "  timezone: %s\n", tz)
	if cfg.pr > 0 {
		fmt.Fprintf(&b, "pull_request: %d\n", cfg.pr)
	}
	return SuggestedEntry{File: file, Content: b.String(), Start: start, End: end, Timezone: tz}
}
