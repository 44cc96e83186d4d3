package calendar

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

func weekly(from time.Weekday, fromTime string, to time.Weekday, toTime, tz string) *contract.Freeze {
	return &contract.Freeze{Name: "weekend", Weekly: &contract.Weekly{FromDay: from, FromTime: fromTime, ToDay: to, ToTime: toTime},
		Timezone: tz, Scope: contract.Scope{Everything: true}}
}

func windows(ws []Window) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "%s..%s\n", w.Start.UTC().Format(time.RFC3339), w.End.UTC().Format(time.RFC3339))
	}
	return b.String()
}

func TestWeeklyFreezeAcrossDaylightSavingChanges(t *testing.T) {
	f := weekly(time.Friday, "18:00", time.Monday, "08:00", "Europe/Berlin")
	tests := []struct {
		name     string
		from, to time.Time
		want     string
	}{
		{
			// Summer time starts on Sunday 2026-03-29: Friday 18:00 is CET (+01:00),
			// Monday 08:00 is CEST (+02:00); the window is 61 hours long.
			"march", utc("2026-03-20T00:00:00Z"), utc("2026-04-04T00:00:00Z"),
			"2026-03-20T17:00:00Z..2026-03-23T07:00:00Z\n" +
				"2026-03-27T17:00:00Z..2026-03-30T06:00:00Z\n" +
				"2026-04-03T16:00:00Z..2026-04-06T06:00:00Z\n",
		},
		{
			// Summer time ends on Sunday 2026-10-25: 63 hours.
			"october", utc("2026-10-17T00:00:00Z"), utc("2026-10-31T00:00:00Z"),
			"2026-10-16T16:00:00Z..2026-10-19T06:00:00Z\n" +
				"2026-10-23T16:00:00Z..2026-10-26T07:00:00Z\n" +
				"2026-10-30T17:00:00Z..2026-11-02T07:00:00Z\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := windows(Occurrences(f, tt.from, tt.to)); got != tt.want {
				t.Errorf("occurrences:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	// Every occurrence starts and ends at the same local wall-clock time.
	for _, w := range Occurrences(f, utc("2026-01-01T00:00:00Z"), utc("2027-01-01T00:00:00Z")) {
		s, e := w.Start.In(berlin), w.End.In(berlin)
		if s.Weekday() != time.Friday || s.Format("15:04") != "18:00" || e.Weekday() != time.Monday || e.Format("15:04") != "08:00" {
			t.Fatalf("occurrence %s..%s is not Friday 18:00 to Monday 08:00 in Berlin", s, e)
		}
	}
}

func TestWeeklyFreezeOngoingAtFromAndInsideOneWeek(t *testing.T) {
	f := weekly(time.Friday, "18:00", time.Monday, "08:00", "Europe/Berlin")
	// A Sunday: the occurrence that began on Friday is still running.
	sun := at(berlin, "2026-12-13 12:00")
	got := Occurrences(f, sun, sun.Add(time.Minute))
	if len(got) != 1 || !got[0].Start.Equal(at(berlin, "2026-12-11 18:00")) || !got[0].End.Equal(at(berlin, "2026-12-14 08:00")) {
		t.Fatalf("got %s", windows(got))
	}
	// Monday 08:00 is the end: nothing at 08:00 itself.
	mon := at(berlin, "2026-12-14 08:00")
	if got := Occurrences(f, mon, mon.Add(time.Hour)); len(got) != 0 {
		t.Errorf("freeze still active at its end: %s", windows(got))
	}
	// A window inside one day and one that lasts a whole week.
	lunch := weekly(time.Wednesday, "12:00", time.Wednesday, "13:00", "UTC")
	if got := windows(Occurrences(lunch, utc("2026-12-01T00:00:00Z"), utc("2026-12-10T00:00:00Z"))); got != "2026-12-02T12:00:00Z..2026-12-02T13:00:00Z\n2026-12-09T12:00:00Z..2026-12-09T13:00:00Z\n" {
		t.Errorf("same-day weekly window:\n%s", got)
	}
	always := weekly(time.Monday, "00:00", time.Monday, "00:00", "UTC")
	if got := Occurrences(always, utc("2026-12-02T00:00:00Z"), utc("2026-12-03T00:00:00Z")); len(got) != 1 || got[0].End.Sub(got[0].Start) != 7*24*time.Hour {
		t.Errorf("equal from and to must be a whole week, got %s", windows(got))
	}
}

func TestFreezeAcrossTheYearBoundary(t *testing.T) {
	tree := load(t, nil)
	var yearEnd *contract.Freeze
	for _, f := range tree.Freezes {
		if f.Name == "year-end" {
			yearEnd = f
		}
	}
	if yearEnd == nil {
		t.Fatal("the example tree has no year-end freeze")
	}
	// Asked about New Year's Day only, the one-off freeze is returned whole.
	got := Occurrences(yearEnd, utc("2027-01-01T00:00:00Z"), utc("2027-01-02T00:00:00Z"))
	if want := "2026-12-17T23:00:00Z..2027-01-04T07:00:00Z\n"; windows(got) != want {
		t.Errorf("got %s, want %s", windows(got), want)
	}
	if got := Occurrences(yearEnd, utc("2027-01-04T07:00:00Z"), utc("2027-02-01T00:00:00Z")); len(got) != 0 {
		t.Errorf("after its end: %s", windows(got))
	}
	// A weekly window that wraps from Thursday 2026-12-31 into 2027.
	f := weekly(time.Thursday, "18:00", time.Monday, "08:00", "Asia/Shanghai")
	got = Occurrences(f, at(shanghai, "2027-01-01 00:00"), at(shanghai, "2027-01-01 01:00"))
	if len(got) != 1 || !got[0].Start.Equal(at(shanghai, "2026-12-31 18:00")) || !got[0].End.Equal(at(shanghai, "2027-01-04 08:00")) {
		t.Errorf("got %s", windows(got))
	}
}

func TestCoversByScope(t *testing.T) {
	tree := load(t, nil)
	orders := tree.Subject("orders.order-created-value")     // orders, core
	users := tree.Subject("users.user-profile-value")        // users, standard
	dwDetail := tree.Subject("dw.order-detail-value")        // dw, core
	inventory := tree.Subject("inventory.stock-level-value") // inventory, standard
	tests := []struct {
		scope contract.Scope
		subj  *contract.Subject
		want  bool
	}{
		{contract.Scope{Everything: true}, users, true},
		{contract.Scope{Everything: true}, nil, true},
		{contract.Scope{Domains: []string{"orders"}}, orders, true},
		{contract.Scope{Domains: []string{"orders"}}, dwDetail, false},
		{contract.Scope{Domains: []string{"orders", "users"}}, users, true},
		{contract.Scope{Tiers: []string{"core"}}, dwDetail, true},
		{contract.Scope{Tiers: []string{"core"}}, inventory, false},
		{contract.Scope{Tiers: []string{"standard"}}, inventory, true},
		{contract.Scope{Tiers: []string{"core"}}, nil, false},
		{contract.Scope{}, orders, false},
	}
	for _, tt := range tests {
		name := "<nil>"
		if tt.subj != nil {
			name = tt.subj.Subject
		}
		if got := Covers(&contract.Freeze{Scope: tt.scope}, tt.subj); got != tt.want {
			t.Errorf("Covers(%s, %s) = %v, want %v", ScopeString(tt.scope), name, got, tt.want)
		}
	}
}
