package calendar

import (
	"strings"
	"testing"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

func TestEntryRequired(t *testing.T) {
	tests := []struct {
		class, tier string
		want        bool
	}{
		{"BREAKING", "core", true},
		{"BREAKING", "standard", true},
		{"breaking", "standard", true},
		{"COMPATIBLE", "core", true},
		{"COMPATIBLE", "standard", false},
		{"SAFE", "core", false},
		{"SAFE", "standard", false},
		{"", "core", false},
	}
	for _, tt := range tests {
		if got := EntryRequired(tt.class, tt.tier); got != tt.want {
			t.Errorf("EntryRequired(%q, %q) = %v, want %v", tt.class, tt.tier, got, tt.want)
		}
	}
}

const ordersSubject = "orders.order-created-value"

func TestFindEntryValidWindowAhead(t *testing.T) {
	tree := load(t, nil)
	now := at(berlin, "2026-12-01 09:00")
	e, problems := FindEntry(tree, ordersSubject, now)
	if e == nil || e.File != "calendar/2026-12-08-split-order-amount.yaml" || problems != nil {
		t.Fatalf("got %v, %v", e, problems)
	}
	// A window under way still counts.
	if e, _ := FindEntry(tree, ordersSubject, at(berlin, "2026-12-08 15:59")); e == nil {
		t.Error("a window that has started but not ended must count")
	}
	// No entry names inventory: nil and no problems.
	if e, ps := FindEntry(tree, "inventory.stock-level-value", now); e != nil || ps != nil {
		t.Errorf("inventory: got %v, %v", e, ps)
	}
}

func TestFindEntryEnded(t *testing.T) {
	tree := load(t, nil)
	e, problems := FindEntry(tree, ordersSubject, at(berlin, "2026-12-08 16:00"))
	if e != nil {
		t.Fatalf("an ended window was accepted: %s", e.File)
	}
	if len(problems) != 1 || problems[0].Code != ProblemEnded || problems[0].File != "calendar/2026-12-08-split-order-amount.yaml" {
		t.Fatalf("problems: %+v", problems)
	}
	if !strings.Contains(problems[0].Message, "ended Tue 2026-12-08 16:00 CET") {
		t.Errorf("message does not say when it ended: %s", problems[0].Message)
	}
}

func TestFindEntryOverlappingAFreeze(t *testing.T) {
	// Friday 17:00-19:00 Berlin crosses the start of the weekly core freeze; 2026-12-21
	// lies in the year-end freeze.
	tree := load(t, map[string]string{
		"calendar/2026-12-11-friday.yaml": entryYAML("Friday evening", "[orders.order-created-value, users.user-profile-value]", "orders", "2026-12-11T17:00", "2026-12-11T19:00", "Europe/Berlin"),
		"calendar/2026-12-21-xmas.yaml":   entryYAML("During the year-end freeze", "[users.user-profile-value]", "accounts", "2026-12-21T10:00", "2026-12-21T12:00", "Europe/Berlin"),
	})
	now := at(berlin, "2026-12-09 09:00") // after the 2026-12-08 entry
	e, problems := FindEntry(tree, ordersSubject, now)
	if e != nil {
		t.Fatalf("an entry overlapping the weekend freeze was accepted: %s", e.File)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.File+" "+p.Code)
	}
	want := []string{"calendar/2026-12-08-split-order-amount.yaml ended", "calendar/2026-12-11-friday.yaml freeze"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	fp := problems[1]
	if fp.Freeze == nil || fp.Freeze.Name != "weekend" || !fp.Freeze.Start.Equal(at(berlin, "2026-12-11 18:00")) {
		t.Errorf("freeze of the problem: %+v", fp.Freeze)
	}
	if !strings.Contains(fp.Message, `overlaps freeze "weekend" (Fri 2026-12-11 18:00 CET to Mon 2026-12-14 08:00 CET)`) {
		t.Errorf("message: %s", fp.Message)
	}
	// The weekend freeze covers the core tier only: the same window is fine for the
	// standard-tier users subject, which picks it as its earliest valid entry and
	// skips the one inside the year-end freeze (scope everything).
	e, problems = FindEntry(tree, "users.user-profile-value", now)
	if e == nil || e.File != "calendar/2026-12-11-friday.yaml" || problems != nil {
		t.Fatalf("users: got %v, %+v", e, problems)
	}
	e, problems = FindEntry(tree, "users.user-profile-value", at(berlin, "2026-12-12 00:00"))
	if e != nil || len(problems) != 2 || problems[1].Code != ProblemFreeze || problems[1].Freeze.Name != "year-end" {
		t.Fatalf("users after the first window: got %v, %+v", e, problems)
	}
}

func TestFindEntryScopeByDomain(t *testing.T) {
	freezes := `freezes:
  - name: orders-migration
    start: "2026-12-08T00:00"
    end: "2026-12-09T00:00"
    timezone: Europe/Berlin
    scope: {domains: [orders]}
`
	tree := load(t, map[string]string{"calendar/freezes.yaml": freezes})
	now := at(berlin, "2026-12-01 09:00")
	// The 2026-12-08 entry names an orders subject and a dw one: invalid for the first,
	// valid for the second.
	if e, ps := FindEntry(tree, ordersSubject, now); e != nil || len(ps) != 1 || ps[0].Freeze.Name != "orders-migration" {
		t.Errorf("orders: got %v, %+v", e, ps)
	}
	if e, ps := FindEntry(tree, "dw.order-detail-value", now); e == nil || ps != nil {
		t.Errorf("dw: got %v, %+v", e, ps)
	}
}

func TestMergeBlocked(t *testing.T) {
	tree := load(t, nil)
	tests := []struct {
		subject string
		now     time.Time
		want    string // freeze name, "" for not blocked
		until   time.Time
	}{
		{ordersSubject, at(berlin, "2026-12-12 10:00"), "weekend", at(berlin, "2026-12-14 08:00")},
		{"users.user-profile-value", at(berlin, "2026-12-12 10:00"), "", time.Time{}},
		{ordersSubject, at(berlin, "2026-12-14 08:00"), "", time.Time{}},
		{ordersSubject, at(berlin, "2026-12-11 17:59"), "", time.Time{}},
		{"users.user-profile-value", at(berlin, "2026-12-28 10:00"), "year-end", at(berlin, "2027-01-04 08:00")},
		// Both freezes hold on 2027-01-02 and end together: the one that started first.
		{ordersSubject, at(berlin, "2027-01-02 10:00"), "year-end", at(berlin, "2027-01-04 08:00")},
		// On Friday 2027-01-01 only the year-end freeze has begun.
		{ordersSubject, at(berlin, "2027-01-01 12:00"), "year-end", at(berlin, "2027-01-04 08:00")},
	}
	for _, tt := range tests {
		w := MergeBlocked(tree, tt.subject, tt.now)
		switch {
		case tt.want == "" && w != nil:
			t.Errorf("%s at %s: blocked by %s", tt.subject, tt.now, w.Name)
		case tt.want != "" && (w == nil || w.Name != tt.want || !w.End.Equal(tt.until)):
			t.Errorf("%s at %s: got %+v, want %s until %s", tt.subject, tt.now, w, tt.want, tt.until)
		}
	}
}

func TestMergeBlockedUntilTheLastActiveFreezeEnds(t *testing.T) {
	freezes := `freezes:
  - name: weekend
    weekly: {from: "fri 18:00", to: "mon 08:00"}
    timezone: Europe/Berlin
    scope: {tiers: [core]}
  - name: orders-migration
    start: "2026-12-12T00:00"
    end: "2026-12-16T00:00"
    timezone: Europe/Berlin
    scope: {domains: [orders]}
`
	tree := load(t, map[string]string{"calendar/freezes.yaml": freezes})
	// Saturday: both hold; the migration freeze started later but ends later.
	w := MergeBlocked(tree, ordersSubject, at(berlin, "2026-12-12 10:00"))
	if w == nil || w.Name != "orders-migration" || !w.End.Equal(at(berlin, "2026-12-16 00:00")) {
		t.Errorf("got %+v", w)
	}
	// dw.order-detail-value is core but not in the orders domain: the weekend only.
	w = MergeBlocked(tree, "dw.order-detail-value", at(berlin, "2026-12-12 10:00"))
	if w == nil || w.Name != "weekend" {
		t.Errorf("dw: got %+v", w)
	}
}

// A dual-write window (a dual-version period, issue 33) plans no change of its own: it
// does not carry a breaking change to its subject, and DualWrite finds it.
func TestFindEntrySkipsDualWrite(t *testing.T) {
	tree := &contract.Tree{Entries: []*contract.Entry{{
		File: "calendar/2026-12-07-gmv-dual-write.yaml", Kind: contract.KindDualWrite, Subjects: []string{"s"},
		Start: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC), End: time.Date(2027, 1, 11, 10, 0, 0, 0, time.UTC),
	}}}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if e, ps := FindEntry(tree, "s", now); e != nil || ps != nil {
		t.Errorf("FindEntry = %v, %v; want nothing", e, ps)
	}
	if e := DualWrite(tree, "s", now); e == nil || e.File != "calendar/2026-12-07-gmv-dual-write.yaml" {
		t.Errorf("DualWrite = %v", e)
	}
	if e := DualWrite(tree, "s", time.Date(2027, 1, 12, 0, 0, 0, 0, time.UTC)); e != nil {
		t.Errorf("DualWrite after the window = %v, want nil", e)
	}
}
