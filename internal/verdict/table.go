package verdict

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractbot/contractbot/internal/contract"
)

// What contract.yaml says about the table a subject's topic carries (keys:, sla:,
// retention:, partitions:) is part of the contract as much as the schema: a consumer
// deduplicates and joins on the business key, windows on the event time, keeps the
// latest row by the update time, builds its own freshness on the SLA, replays within
// the retention and relies on per-key order within a partition. A change that takes
// any of that away is one every consumer agrees to (Governance); one that only adds
// to it is told (Notes).

// tableChanged reports whether keys:, sla:, retention: or partitions: differ.
func tableChanged(b, h *contract.Subject) bool {
	return !sameKeys(b.Keys, h.Keys) || !sameSLA(b.SLA, h.SLA) || b.Retention != h.Retention || b.Partitions != h.Partitions
}

func sameKeys(b, h *contract.Keys) bool {
	if b == nil || h == nil {
		return b == h
	}
	return slices.Equal(b.Business, h.Business) && b.EventTime == h.EventTime && b.UpdateTime == h.UpdateTime
}

func sameSLA(b, h *contract.SLA) bool {
	if b == nil || h == nil {
		return b == h
	}
	return *b == *h
}

// tableGovernance records the changes of keys:, sla:, retention: and partitions:
// through govern (consumers agree) and note (told).
func tableGovernance(b, h *contract.Subject, govern func(fact, format string, args ...any), note func(format string, args ...any)) {
	keysGovernance(b.Keys, h.Keys, govern, note)
	slaGovernance(b.SLA, h.SLA, govern, note)
	retentionGovernance(b.Retention, h.Retention, govern, note)
	partitionsGovernance(b.Partitions, h.Partitions, govern, note)
}

func keysGovernance(b, h *contract.Keys, govern func(fact, format string, args ...any), note func(format string, args ...any)) {
	switch {
	case sameKeys(b, h):
		return
	case b == nil:
		note("keys: are declared (business key %s)", fieldList(h.Business))
		return
	case h == nil:
		govern("keys:removed", "keys: is taken out: consumers lose the declared business key %s, event time and update time they deduplicate, join and window by", fieldList(b.Business))
		return
	}
	if bs, hs := sorted(b.Business), sorted(h.Business); !slices.Equal(bs, hs) {
		govern("keys.business:"+strings.Join(bs, ",")+"->"+strings.Join(hs, ","),
			"the business key changes from %s to %s: consumers that deduplicate, join, upsert or compact on it will take other records for one entity", fieldList(b.Business), fieldList(h.Business))
	} else if !slices.Equal(b.Business, h.Business) {
		note("the business key's fields are reordered (%s to %s)", fieldList(b.Business), fieldList(h.Business))
	}
	if b.EventTime != h.EventTime {
		govern("keys.event_time:"+b.EventTime+"->"+h.EventTime,
			"the event time changes from %s to %s: consumers that window, order or set watermarks by event time will place records in other windows", orNone(b.EventTime), orNone(h.EventTime))
	}
	if b.UpdateTime != h.UpdateTime {
		govern("keys.update_time:"+b.UpdateTime+"->"+h.UpdateTime,
			"the update time changes from %s to %s: consumers that keep the latest row of each key will pick other rows", orNone(b.UpdateTime), orNone(h.UpdateTime))
	}
}

func fieldList(fs []string) string {
	if len(fs) == 0 {
		return "(none)"
	}
	return "[" + strings.Join(fs, ", ") + "]"
}

func sorted(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}

func slaGovernance(b, h *contract.SLA, govern func(fact, format string, args ...any), note func(format string, args ...any)) {
	switch {
	case sameSLA(b, h):
		return
	case b == nil:
		note("an SLA is declared (latency %s)", short(h.Latency))
		return
	case h == nil:
		govern("sla:removed", "sla: is taken out: consumers lose the promise of latency %s their own freshness builds on", short(b.Latency))
		return
	}
	switch {
	case h.Latency > b.Latency:
		govern("sla.latency:"+b.Latency.String()+"->"+h.Latency.String(),
			"the SLA's latency loosens from %s to %s: consumers whose own freshness builds on it will get records later", short(b.Latency), short(h.Latency))
	case h.Latency < b.Latency:
		note("the SLA's latency tightens from %s to %s", short(b.Latency), short(h.Latency))
	}
	ba, bok := availability(b.Availability)
	ha, hok := availability(h.Availability)
	switch {
	case b.Availability == h.Availability:
	case bok && (!hok || ha < ba):
		govern("sla.availability:"+b.Availability+"->"+h.Availability,
			"the SLA's availability loosens from %s to %s: consumers whose own availability builds on it can count on less", b.Availability, orNone(h.Availability))
	default:
		note("the SLA's availability changes from %s to %s", orNone(b.Availability), orNone(h.Availability))
	}
}

// short writes a duration as contract.yaml does: 5m, not 5m0s.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// availability reads "99.9%"; false for "" or a value lint refuses.
func availability(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	return v, err == nil && strings.HasSuffix(s, "%")
}

// retentionHours reads retention: as hours, forever as the most; false for "" or a
// value lint refuses.
func retentionHours(s string) (int, bool) {
	if s == "forever" {
		return math.MaxInt, true
	}
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n <= 0 {
		return 0, false
	}
	switch s[len(s)-1] {
	case 'h':
		return n, true
	case 'd':
		return n * 24, true
	}
	return 0, false
}

func retentionGovernance(b, h string, govern func(fact, format string, args ...any), note func(format string, args ...any)) {
	if b == h {
		return
	}
	bh, bok := retentionHours(b)
	hh, hok := retentionHours(h)
	fact := "retention:" + b + "->" + h
	switch {
	case !bok && !hok:
	case !bok:
		note("retention: is declared (%s)", h)
	case !hok:
		note("retention: is no longer declared (was %s); the topic's own setting holds", b)
	case b == "forever":
		govern(fact, "the retention changes from forever (a compacted topic) to %s: the latest record of a key is no longer kept, so consumers that rebuild their state from the topic lose the keys not written within %s", h, h)
	case h == "forever":
		govern(fact, "the retention changes from %s to forever (a compacted topic): a consumer that replays the topic gets only the latest record of each key, and a record without a value deletes its key", b)
	case hh < bh:
		govern(fact, "the retention shortens from %s to %s: consumers that fall behind, or replay the topic to rebuild their state, lose records older than %s", b, h, h)
	default:
		note("the retention grows from %s to %s", b, h)
	}
}

func partitionsGovernance(b, h int, govern func(fact, format string, args ...any), note func(format string, args ...any)) {
	fact := fmt.Sprintf("partitions:%d->%d", b, h)
	switch {
	case b == h:
	case b == 0:
		note("partitions: is declared (%d)", h)
	case h == 0:
		note("partitions: is no longer declared (was %d); the topic's own count holds", b)
	case h > b:
		govern(fact, "the partitions grow from %d to %d: a key's records go to another partition from then on, so per-key order holds only on each side of the change, and consumers that keep state per partition must rebuild it", b, h)
	default:
		govern(fact, "the partitions shrink from %d to %d: Kafka cannot take partitions from a topic, so it is created again; consumers must reset their offsets, and per-key order across the change is lost", b, h)
	}
}
