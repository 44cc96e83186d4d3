package verdict

import (
	"strings"
	"testing"
)

const (
	orderDetailSchema = "contracts/dw/order-detail/order_detail.avsc"
	gmvJobConsumer    = "contracts/dw/order-detail/consumers/dws-gmv-1min.yaml"
)

// promoteAmountCents promotes dw.order-detail-value's amount_cents from long to
// double: Avro resolution allows it, so the registry accepts it at
// BACKWARD_TRANSITIVE; dws-gmv-1min keeps amount_cents in its window state.
func promoteAmountCents(r *scenarioRepo) {
	r.replace(orderDetailSchema, `{"name": "amount_cents", "type": "long",`, `{"name": "amount_cents", "type": "double",`)
}

// A compatible Avro change to a field held in a job's state needs the job owner's
// sign-off and a state-migration entry, whatever the wire says; the serializer
// decides whether the savepoint can be restored (issue 18).
func TestStateEffect(t *testing.T) {
	cases := []struct {
		serializer, savepoint string
		migratable            bool
		class                 Class
	}{
		{"pojo", "restore", false, Breaking}, // POJO cannot change a declared type
		{"avro", "restore", true, Compatible},
		{"kryo", "restore", false, Breaking},
		{"pojo", "rebuild", false, Compatible}, // no state effect: a note
	}
	for _, c := range cases {
		t.Run(c.serializer+"-"+c.savepoint, func(t *testing.T) {
			r := newScenarioRepo(t)
			if c.serializer != "pojo" || c.savepoint != "restore" { // the example's own state
				r.replace(gmvJobConsumer, "serializer: pojo", "serializer: "+c.serializer)
				r.replace(gmvJobConsumer, "savepoint: restore", "savepoint: "+c.savepoint)
				r.commit("state serializer")
			}
			promoteAmountCents(r)
			r.commit("promote amount_cents")
			rep := Assess(r.input())
			s := subjectOf(t, rep, "dw.order-detail-value")
			equal(t, "registry compatible", s.Compatible, true)
			equal(t, "class", s.Class, c.class)
			if c.savepoint == "rebuild" {
				equal(t, "state effects", len(s.State), 0)
				if !strings.Contains(strings.Join(s.Notes, "\n"), "job dws-gmv-1min (team data-warehouse) keeps amount_cents in its state but rebuilds it") {
					t.Errorf("no note for a rebuilt state: %q", s.Notes)
				}
				return
			}
			if len(s.State) != 1 {
				t.Fatalf("state effects = %+v, want one", s.State)
			}
			e := s.State[0]
			equal(t, "effect", [4]any{e.Consumer, e.Field, e.Serializer, e.Migratable}, [4]any{"dws-gmv-1min", "amount_cents", c.serializer, c.migratable})
			// The job owner signs for the job's state.
			found := false
			for _, ref := range signOffOf(t, rep, "data-warehouse").For {
				found = found || (ref.Consumer == "dws-gmv-1min" && strings.Contains(ref.Reason, "state holds amount_cents"))
			}
			if !found {
				t.Errorf("data-warehouse does not sign for dws-gmv-1min's state: %+v", signOffOf(t, rep, "data-warehouse").For)
			}
			var cc *CalendarCheck
			for _, x := range rep.Calendar {
				if x.Subject == "dw.order-detail-value" {
					cc = x
				}
			}
			if cc == nil || !cc.StateMigration || cc.StateEntry != "" {
				t.Fatalf("calendar check %+v, want a state migration with no entry", cc)
			}
			if !strings.Contains(strings.Join(rep.Blockers, "\n"), "add a calendar entry of kind state-migration") {
				t.Errorf("blockers %q lack the state migration", rep.Blockers)
			}
			if c.serializer == "pojo" {
				writeGoldens(t, "n-state-pojo", rep)
			}
		})
	}
}

// With a state-migration entry for the subject, the state no longer blocks.
func TestStateMigrationEntryFound(t *testing.T) {
	r := newScenarioRepo(t)
	promoteAmountCents(r)
	r.write("calendar/2026-12-09-order-detail-state.yaml", `title: Migrate dws-gmv-1min window state to double amount_cents
kind: state-migration
subjects: [dw.order-detail-value]
owner: data-warehouse
window:
  start: "2026-12-09T10:00"
  end: "2026-12-09T12:00"
  timezone: Asia/Shanghai
`)
	r.commit("promote with a state migration")
	rep := Assess(r.input())
	for _, cc := range rep.Calendar {
		if cc.Subject == "dw.order-detail-value" && cc.StateEntry != "calendar/2026-12-09-order-detail-state.yaml" {
			t.Errorf("state entry %q", cc.StateEntry)
		}
	}
	if strings.Contains(strings.Join(rep.Blockers, "\n"), "state-migration") {
		t.Errorf("blockers %q", rep.Blockers)
	}
}
