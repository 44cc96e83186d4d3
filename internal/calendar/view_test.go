package calendar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func agendaSummary(v View) string {
	var b strings.Builder
	for _, d := range v.Days {
		for _, it := range d.Items {
			name := it.File
			if it.Kind == KindFreeze {
				name = "freeze " + it.Title
			}
			fmt.Fprintf(&b, "%s %s %s", d.Date, it.Start.In(v.From.Location()).Format("15:04"), name)
			if it.Ongoing {
				b.WriteString(" (ongoing)")
			}
			for _, c := range it.ConflictsWith {
				b.WriteString(" !" + c)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestAgendaGroupsByDayInTheDisplayZone(t *testing.T) {
	tree := load(t, nil)
	// 2026-12-08 10:00-16:00 Berlin is 17:00-23:00 in Shanghai; the weekend freeze
	// (Friday 18:00 Berlin) starts on Saturday 01:00 there.
	v := Agenda(tree, at(shanghai, "2026-12-07 00:00"), at(shanghai, "2026-12-13 00:00"), "")
	want := "2026-12-08 17:00 calendar/2026-12-08-split-order-amount.yaml\n" +
		"2026-12-10 14:00 calendar/2026-12-10-dws-gmv-state-migration.yaml\n" +
		"2026-12-12 01:00 freeze weekend\n"
	// The previous weekend's occurrence ends Monday 2026-12-07 15:00 Shanghai: ongoing.
	want = "2026-12-07 01:00 freeze weekend (ongoing)\n" + want
	if got := agendaSummary(v); got != want {
		t.Errorf("agenda:\n%s\nwant:\n%s", got, want)
	}
	if v.Timezone != "Asia/Shanghai" {
		t.Errorf("zone %s", v.Timezone)
	}
}

func TestAgendaForATeam(t *testing.T) {
	tree := load(t, nil)
	from, to := at(berlin, "2026-12-01 00:00"), at(berlin, "2027-01-31 00:00")
	all := agendaSummary(Agenda(tree, from, to, ""))
	if !strings.Contains(all, "2027-01-12-fraud-score-reasons-v2.yaml") {
		t.Fatalf("the full agenda lacks the risk entry:\n%s", all)
	}
	// accounts owns only users.user-profile-value (standard tier) and no entry: it sees
	// the year-end freeze (everything) and no weekend freeze (core tier).
	acc := agendaSummary(Agenda(tree, from, to, "accounts"))
	if acc != "2026-12-18 00:00 freeze year-end\n" {
		t.Errorf("accounts:\n%s", acc)
	}
	// analytics consumes dw.order-detail-value: it sees the 2026-12-08 entry, not the
	// risk entry, and the weekend freezes (the subjects it reads are core).
	an := agendaSummary(Agenda(tree, from, to, "analytics"))
	if !strings.Contains(an, "split-order-amount") || strings.Contains(an, "fraud-score") || !strings.Contains(an, "freeze weekend") {
		t.Errorf("analytics:\n%s", an)
	}
}

func TestAgendaMarksConflicts(t *testing.T) {
	tree := load(t, map[string]string{
		"calendar/2026-12-08-backfill.yaml": entryYAML("Backfill order detail", "[dw.order-detail-value]", "data-warehouse", "2026-12-08T22:00", "2026-12-09T01:00", "Asia/Shanghai"),
	})
	v := Agenda(tree, at(berlin, "2026-12-08 00:00"), at(berlin, "2026-12-09 00:00"), "")
	want := "2026-12-08 10:00 calendar/2026-12-08-split-order-amount.yaml !calendar/2026-12-08-backfill.yaml\n" +
		"2026-12-08 15:00 calendar/2026-12-08-backfill.yaml !calendar/2026-12-08-split-order-amount.yaml\n"
	if got := agendaSummary(v); got != want {
		t.Errorf("agenda:\n%s\nwant:\n%s", got, want)
	}
	if len(v.Conflicts) != 1 {
		t.Fatalf("conflicts: %+v", v.Conflicts)
	}
	var text bytes.Buffer
	if err := WriteText(&text, v); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CONFLICT with calendar/2026-12-08-backfill.yaml", "Conflicts:\n  - calendar/2026-12-08-split-order-amount.yaml and calendar/2026-12-08-backfill.yaml overlap", "2 entries, 0 freeze window(s), 1 conflict(s)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, v); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Days []struct {
			Items []struct {
				File          string   `json:"file"`
				ConflictsWith []string `json:"conflicts_with"`
			} `json:"items"`
		} `json:"days"`
		Conflicts []struct{ A, B, Message string } `json:"conflicts"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Conflicts) != 1 || back.Conflicts[0].B != "calendar/2026-12-08-backfill.yaml" || back.Days[0].Items[0].ConflictsWith[0] != "calendar/2026-12-08-backfill.yaml" {
		t.Errorf("JSON: %s", js.String())
	}
}

func TestAgendaEmpty(t *testing.T) {
	tree := load(t, nil)
	v := Agenda(tree, at(berlin, "2027-02-01 00:00"), at(berlin, "2027-02-05 00:00"), "accounts")
	var b bytes.Buffer
	if err := WriteText(&b, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Nothing planned and no freeze in this range.") {
		t.Errorf("text:\n%s", b.String())
	}
	var js bytes.Buffer
	_ = WriteJSON(&js, v)
	if !strings.Contains(js.String(), `"days": []`) || !strings.Contains(js.String(), `"conflicts": []`) {
		t.Errorf("empty lists must be [] in JSON:\n%s", js.String())
	}
}

func TestAgendaListsAnEntryUnderWayOnTheFirstDay(t *testing.T) {
	tree := load(t, nil)
	v := Agenda(tree, at(berlin, "2026-12-08 12:00"), at(berlin, "2026-12-09 00:00"), "orders")
	if got, want := agendaSummary(v), "2026-12-08 10:00 calendar/2026-12-08-split-order-amount.yaml (ongoing)\n"; got != want {
		t.Errorf("agenda:\n%s\nwant:\n%s", got, want)
	}
}

func TestAgendaMarksEntriesInAFreeze(t *testing.T) {
	tree := load(t, map[string]string{
		"calendar/2026-12-11-friday.yaml": entryYAML("Friday evening", "[orders.order-created-value]", "orders", "2026-12-11T17:00", "2026-12-11T19:00", "Europe/Berlin"),
		"calendar/2026-12-11-users.yaml":  entryYAML("Friday evening, standard tier", "[users.user-profile-value]", "accounts", "2026-12-11T17:00", "2026-12-11T19:00", "Europe/Berlin"),
	})
	v := Agenda(tree, at(berlin, "2026-12-11 00:00"), at(berlin, "2026-12-12 00:00"), "")
	got := map[string]string{}
	for _, it := range v.Items() {
		if it.Kind == KindEntry {
			got[it.File] = strings.Join(it.InFreezes, ",")
		}
	}
	if got["calendar/2026-12-11-friday.yaml"] != "weekend" || got["calendar/2026-12-11-users.yaml"] != "" {
		t.Errorf("in freezes: %v", got)
	}
}
