package verdict

import (
	"strings"
	"testing"
)

// What contract.yaml says about the table the topic carries is part of the contract:
// a change that takes from it (another business key, event or update time, a looser
// SLA, a shorter retention, other partitions) is COMPATIBLE and asks every consumer's
// team; one that only adds to it is SAFE with a note. Each case edits order-created
// (core, two consumers) from a base that may first declare what the case changes.
func TestRulesTableChanges(t *testing.T) {
	const keys = "keys: {business: [order_id], event_time: created_at, update_time: created_at}\n"
	const table = "sla: {latency: 5m, availability: \"99.9%\"}\nretention: 7d\npartitions: 12\n"
	everyReader := map[string]Status{"data-warehouse": Pending, "platform": Pending}
	for _, c := range []struct {
		name       string
		base       string // replaces keys in the base ("" keeps the example's)
		head       string // replaces the base's keys (and table) in the head
		class      Class
		governance string // a sentence of Governance, or ""
		note       string // a sentence of Notes, or ""
	}{
		{"business key", "", "keys: {business: [order_id, user_id], event_time: created_at, update_time: created_at}\n", Compatible,
			"the business key changes from [order_id] to [order_id, user_id]", ""},
		{"business key reordered", "keys: {business: [order_id, user_id], event_time: created_at, update_time: created_at}\n",
			"keys: {business: [user_id, order_id], event_time: created_at, update_time: created_at}\n", Safe, "", "the business key's fields are reordered"},
		{"event time", "", "keys: {business: [order_id], event_time: event_time, update_time: created_at}\n", Compatible,
			"the event time changes from created_at to event_time", ""},
		{"update time", "", "keys: {business: [order_id], event_time: created_at, update_time: event_time}\n", Compatible,
			"the update time changes from created_at to event_time", ""},
		{"keys taken out", "", "", Compatible, "keys: is taken out", ""},
		{"latency loosened", keys + table, keys + "sla: {latency: 15m, availability: \"99.9%\"}\nretention: 7d\npartitions: 12\n", Compatible,
			"the SLA's latency loosens from 5m to 15m", ""},
		{"latency tightened", keys + table, keys + "sla: {latency: 1m, availability: \"99.9%\"}\nretention: 7d\npartitions: 12\n", Safe,
			"", "the SLA's latency tightens from 5m to 1m"},
		{"availability lowered", keys + table, keys + "sla: {latency: 5m, availability: \"99%\"}\nretention: 7d\npartitions: 12\n", Compatible,
			"the SLA's availability loosens from 99.9% to 99%", ""},
		{"SLA taken out", keys + table, keys + "retention: 7d\npartitions: 12\n", Compatible, "sla: is taken out", ""},
		{"SLA declared", keys, keys + "sla: {latency: 1h30m}\n", Safe, "", "an SLA is declared (latency 1h30m)"},
		{"retention shortened", keys + table, keys + "sla: {latency: 5m, availability: \"99.9%\"}\nretention: 72h\npartitions: 12\n", Compatible,
			"the retention shortens from 7d to 72h: consumers that fall behind, or replay the topic to rebuild their state, lose records older than 72h", ""},
		{"retention grown", keys + table, keys + "sla: {latency: 5m, availability: \"99.9%\"}\nretention: 30d\npartitions: 12\n", Safe,
			"", "the retention grows from 7d to 30d"},
		{"compacted to 7d", keys + "retention: forever\n", keys + "retention: 7d\n", Compatible, "from forever (a compacted topic) to 7d", ""},
		{"7d to compacted", keys + "retention: 7d\n", keys + "retention: forever\n", Compatible, "to forever (a compacted topic)", ""},
		{"partitions grown", keys + table, keys + "sla: {latency: 5m, availability: \"99.9%\"}\nretention: 7d\npartitions: 24\n", Compatible,
			"the partitions grow from 12 to 24: a key's records go to another partition", ""},
		{"partitions shrunk", keys + table, keys + "sla: {latency: 5m, availability: \"99.9%\"}\nretention: 7d\npartitions: 6\n", Compatible,
			"the partitions shrink from 12 to 6", ""},
		{"partitions declared", keys, keys + "partitions: 6\n", Safe, "", "partitions: is declared (6)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := newScenarioRepo(t)
			base := keys
			if c.base != "" && c.base != keys {
				repo.replace(orderCreatedContract, keys, c.base)
				repo.commit("base: " + c.name)
			}
			if c.base != "" {
				base = c.base
			}
			repo.replace(orderCreatedContract, base, c.head)
			repo.commit(c.name)
			in := repo.input()
			if n := len(in.Head.Diagnostics); n > 0 && c.head != "" {
				for _, d := range in.Head.Diagnostics {
					if d.File == orderCreatedContract {
						t.Fatalf("the case's contract.yaml does not lint: %+v", d)
					}
				}
			}
			r := Assess(in)
			if len(r.Subjects) != 1 {
				t.Fatalf("subjects: %d, want order-created alone", len(r.Subjects))
			}
			sr := r.Subjects[0]
			equal(t, "class", sr.Class, c.class)
			if c.governance != "" {
				if len(sr.Governance) != 1 || !strings.Contains(sr.Governance[0], c.governance) {
					t.Errorf("governance: %q, want one with %q", sr.Governance, c.governance)
				}
				equal(t, "readers asked", statuses(r), everyReader)
			} else if len(sr.Governance) != 0 || len(r.SignOffs) != 0 {
				t.Errorf("governance %q and sign-offs %+v for a change that only adds", sr.Governance, r.SignOffs)
			}
			if c.name == "business key" || c.name == "retention shortened" {
				writeGoldens(t, "table-"+strings.ReplaceAll(c.name, " ", "-"), r)
			}
			if c.note != "" && !strings.Contains(strings.Join(sr.Notes, "\n"), c.note) {
				t.Errorf("notes: %q, want one with %q", sr.Notes, c.note)
			}
		})
	}
}

// A change of the description alone is a modified subject with a note: SAFE, no
// sign-off, but not "no change".
func TestRulesDescriptionOnly(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace(orderCreatedContract, "description: >-\n", "description: >-\n  Reworded.\n")
	repo.commit("reword")
	r := Assess(repo.input())
	if len(r.Subjects) != 1 {
		t.Fatalf("subjects: %d, want order-created", len(r.Subjects))
	}
	equal(t, "class", r.Class, Safe)
	if len(r.SignOffs) != 0 || !strings.Contains(strings.Join(r.Subjects[0].Notes, "\n"), "the description changes") {
		t.Errorf("sign-offs %+v, notes %q", r.SignOffs, r.Subjects[0].Notes)
	}
}

// A field's deprecation is SAFE and asks nobody to sign off, but the teams of its
// readers are told (FYI.Deprecated): a consumer that names the field, and one that
// reads "*". A deprecation the base already had tells nobody again; a team that signs
// off anyway is not told beside it.
func TestNewDeprecationTellsItsReaders(t *testing.T) {
	const dep = "  coupon_code:\n    deprecated: {since: \"2026-12-01\", remove_after: \"2027-03-01\"}\n"
	repo := newScenarioRepo(t)
	repo.replace(orderCreatedContract, "fields:\n", "fields:\n"+dep)
	repo.commit("deprecate coupon_code")
	r := Assess(repo.input())
	equal(t, "class", r.Class, Safe)
	if len(r.SignOffs) != 0 {
		t.Fatalf("sign-offs for a deprecation: %+v", r.SignOffs)
	}
	told := map[string]string{}
	for _, f := range r.FYI {
		for _, c := range f.Deprecated {
			told[f.Team] += c.Consumer + ":" + strings.Join(c.Fields, ",") + ":" + c.Reason
		}
	}
	const why = "coupon_code:deprecated since 2026-12-01, to be removed after 2027-03-01"
	equal(t, "told", told, map[string]string{"data-warehouse": "dwd-order-detail:" + why, "platform": "ods-order-archive:" + why})

	repo.replace(orderCreatedContract, "doc: order total after discounts", "doc: the order total after discounts")
	repo.commit("reword amount")
	for _, f := range Assess(repo.input()).FYI {
		if len(f.Deprecated) > 0 {
			t.Errorf("a deprecation the base already had is told again: %+v", f)
		}
	}

	signing := newScenarioRepo(t)
	signing.replace(orderCreatedContract, "fields:\n", "fields:\n"+dep)
	signing.replace(orderCreatedContract, "tier: core\n", "tier: standard\n")
	signing.commit("deprecate coupon_code, demote")
	r = Assess(signing.input())
	if len(r.FYI) != 0 || len(r.SignOffs) != 2 {
		t.Errorf("teams that sign off are told beside it: FYI %+v, %d sign-offs", r.FYI, len(r.SignOffs))
	}
}

// A consumer that reads two fields under one deprecated record is told of the record
// once.
func TestNewDeprecationOncePerField(t *testing.T) {
	repo := newScenarioRepo(t)
	repo.replace(orderCreatedContract, "fields:\n", "fields:\n  product_info:\n    deprecated: {since: \"2026-12-01\"}\n")
	repo.commit("deprecate product_info")
	var got []string
	for _, d := range Assess(repo.input()).Subjects[0].Deprecated {
		got = append(got, d.Consumer+":"+strings.Join(d.Fields, ","))
	}
	equal(t, "deprecated reads", strings.Join(got, " "), "dwd-order-detail:product_info ods-order-archive:product_info")
}
