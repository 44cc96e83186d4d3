package calendar

import (
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// loadSuggested loads the example tree with the suggested entry added and checks that
// the loader accepts it as written.
func loadSuggested(t *testing.T, s SuggestedEntry) *contract.Tree {
	t.Helper()
	if s.File == "" {
		t.Fatal("no window suggested")
	}
	tree := load(t, map[string]string{s.File: s.Content})
	for _, e := range tree.Entries {
		if e.File == s.File {
			if !e.Start.Equal(s.Start) || !e.End.Equal(s.End) || e.Timezone != s.Timezone {
				t.Errorf("loaded window %s..%s %s, suggested %s..%s %s", e.Start, e.End, e.Timezone, s.Start, s.End, s.Timezone)
			}
			return tree
		}
	}
	t.Fatalf("the loader did not read %s", s.File)
	return nil
}

func TestSuggestSkipsFreezesAndWeekends(t *testing.T) {
	tree := load(t, nil)
	// Thursday 2026-12-17 15:00 Berlin: 2 hours no longer fit today, Friday to Sunday are
	// not working days, and the year-end freeze runs to Monday 2027-01-04 08:00.
	now := at(berlin, "2026-12-17 15:00")
	s := Suggest(tree, []string{ordersSubject}, "orders", now, 2*time.Hour, WithPullRequest(99))
	if want := at(berlin, "2027-01-04 10:00"); !s.Start.Equal(want) || !s.End.Equal(want.Add(2*time.Hour)) {
		t.Fatalf("suggested %s..%s, want %s", s.Start, s.End, want)
	}
	if s.File != "calendar/2027-01-04-orders-order-created.yaml" || s.Timezone != "Europe/Berlin" {
		t.Errorf("file %s, zone %s", s.File, s.Timezone)
	}
	want := `# yaml-language-server: $schema=../docs/schemas/calendar-entry.schema.json
title: "Change orders.order-created-value"
kind: schema-change
subjects: ["orders.order-created-value"]
owner: "orders"
window:
  start: "2027-01-04T10:00"
  end: "2027-01-04T12:00"
  timezone: Europe/Berlin
pull_request: 99
`
	if s.Content != want {
		t.Errorf("content:\n%s\nwant:\n%s", s.Content, want)
	}
	tree2 := loadSuggested(t, s)
	if e, ps := FindEntry(tree2, ordersSubject, now); e == nil || e.File != s.File {
		t.Errorf("FindEntry does not accept the suggested entry: %v %+v", e, ps)
	}
}

func TestSuggestSkipsOtherEntriesAndUsesTheOwnersZone(t *testing.T) {
	tree := load(t, nil)
	// Tuesday 2026-12-08 08:00 Berlin: the day's 10:00-16:00 belongs to the entry that
	// already names orders.order-created-value, so the next free window is Wednesday.
	now := at(berlin, "2026-12-08 08:00")
	s := Suggest(tree, []string{ordersSubject, "users.user-profile-value"}, "orders", now, 0,
		WithTitle("Add loyalty tier: users & orders"))
	if want := at(berlin, "2026-12-09 10:00"); !s.Start.Equal(want) || s.End.Sub(s.Start) != DefaultDuration {
		t.Fatalf("suggested %s..%s, want %s for %s", s.Start, s.End, want, DefaultDuration)
	}
	if s.File != "calendar/2026-12-09-add-loyalty-tier-users-orders.yaml" {
		t.Errorf("file %s", s.File)
	}
	loadSuggested(t, s)

	// data-warehouse works in Asia/Shanghai. Thursday 2026-12-10 12:40 there: a
	// one-hour change fits at 13:00, before the 14:00-15:30 entry for the GMV subject.
	now = at(shanghai, "2026-12-10 12:40")
	s = Suggest(tree, []string{"dws.gmv-1min-value"}, "data-warehouse", now, time.Hour)
	if want := at(shanghai, "2026-12-10 13:00"); !s.Start.Equal(want) {
		t.Errorf("one hour at 12:40: suggested %s, want %s", s.Start.In(shanghai), want)
	}
	// At 13:10 it no longer fits before the entry, nor after it (15:30 + 1h is past
	// 16:00); Friday is not a change day, and Monday 10:00 Shanghai is 03:00 Berlin,
	// inside the weekend freeze of core subjects until 08:00 Berlin = 15:00 Shanghai.
	now = at(shanghai, "2026-12-10 13:10")
	s = Suggest(tree, []string{"dws.gmv-1min-value"}, "data-warehouse", now, time.Hour)
	if want := at(shanghai, "2026-12-14 15:00"); !s.Start.Equal(want) {
		t.Errorf("one hour at 13:10: suggested %s, want %s", s.Start.In(shanghai), want)
	}
	s = Suggest(tree, []string{"dws.gmv-1min-value"}, "data-warehouse", now, 3*time.Hour)
	// Three hours do not fit on Monday after the freeze either: Tuesday 10:00.
	if want := at(shanghai, "2026-12-15 10:00"); !s.Start.Equal(want) {
		t.Errorf("three hours: suggested %s, want %s", s.Start.In(shanghai), want)
	}
	if s.Timezone != "Asia/Shanghai" {
		t.Errorf("zone %s", s.Timezone)
	}
	loadSuggested(t, s)
}

func TestSuggestedContentQuotesWhatYAMLWouldMisread(t *testing.T) {
	tree := load(t, nil)
	s := Suggest(tree, []string{ordersSubject}, "orders", at(berlin, "2026-12-01 09:00"), time.Hour,
		WithTitle(`Rename "amount": #2, yes: no`))
	if !strings.Contains(s.Content, `title: "Rename \"amount\": #2, yes: no"`) {
		t.Errorf("content:\n%s", s.Content)
	}
	tree2 := loadSuggested(t, s)
	for _, e := range tree2.Entries {
		if e.File == s.File && e.Title != `Rename "amount": #2, yes: no` {
			t.Errorf("title read back as %q", e.Title)
		}
	}
}

func TestSuggestALongWindowStartsAtTheBeginningOfTheDay(t *testing.T) {
	tree := load(t, nil)
	// A standard-tier subject (no weekend freeze), asked on Monday 2026-12-14 at 10:05:
	// eight hours do not fit in working hours, so the window starts at 10:00 on the next
	// change day and runs on past 16:00.
	s := Suggest(tree, []string{"users.user-profile-value"}, "accounts", at(berlin, "2026-12-14 10:05"), 8*time.Hour)
	if want := at(berlin, "2026-12-15 10:00"); !s.Start.Equal(want) || !s.End.Equal(want.Add(8*time.Hour)) {
		t.Errorf("suggested %s..%s", s.Start, s.End)
	}
	loadSuggested(t, s)
	// A team without a time zone works in UTC.
	tree.Teams["accounts"].Timezone = ""
	s = Suggest(tree, []string{"users.user-profile-value"}, "accounts", utc("2026-12-14T09:00:00Z"), time.Hour)
	if s.Timezone != "UTC" || !s.Start.Equal(utc("2026-12-14T10:00:00Z")) {
		t.Errorf("UTC team: suggested %s in %s", s.Start, s.Timezone)
	}
}
