package synth

import (
	"fmt"
	"strings"
	"time"
)

// The files of a synthetic repository as text: teams, contracts, consumers, schemas,
// calendar entries.

func q(s string) string { return fmt.Sprintf("%q", s) }

func (g *gen) teamsYAML() []byte {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../docs/schemas/teams.schema.json\nteams:\n")
	for i, id := range teamIDs {
		fmt.Fprintf(&b, "  %s:\n    name: %s\n    github: [%s]\n    slack: %s\n    timezone: %s\n",
			id, camel(id)+" Team", q("@acme/"+id), q("#"+id), timezones[i%len(timezones)])
		if i%3 == 0 {
			fmt.Fprintf(&b, "    escalation:\n      slack: %s\n      users: [%s]\n", q("#"+id+"-oncall"), q("@"+id+"-lead"))
		}
	}
	return []byte(b.String())
}

func (s *subject) contractYAML() []byte {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../../../docs/schemas/contract.schema.json\n")
	fmt.Fprintf(&b, "subject: %s\nformat: %s\nschema: %s\ncompatibility: %s\nowner: %s\ntier: %s\n",
		s.subject, s.format, s.schemaFile, s.compat, s.owner, s.tier)
	if !s.common {
		fmt.Fprintf(&b, "topic: %s\nkeys: {business: [event_id], event_time: occurred_at, update_time: occurred_at}\nsignoff_hours: %d\n", ident(s.domain)+"."+s.name, 24+24*(s.idx%3))
	}
	desc := fmt.Sprintf("%s, produced by the %s team.", s.docText(), s.owner)
	if s.descRev > 0 {
		desc += fmt.Sprintf(" Updated %d times.", s.descRev)
	}
	fmt.Fprintf(&b, "description: %s\n", q(desc))
	if !s.common {
		b.WriteString("fields:\n  customer.id: {pii: true, doc: \"buyer id, from the accounts service\"}\n  amount: {unit: EUR}\n")
	}
	return []byte(b.String())
}

func (c *consumer) yaml() []byte {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../../../../docs/schemas/consumer.schema.json\n")
	fmt.Fprintf(&b, "name: %s\nowner: %s\nkind: %s\nsystem: %s\n", c.name, c.owner, c.kind, systems[c.kind])
	desc := fmt.Sprintf("%s %s owned by %s.", c.kind, c.name, c.owner)
	if c.descRev > 0 {
		desc += fmt.Sprintf(" Revision %d.", c.descRev)
	}
	fmt.Fprintf(&b, "description: %s\n", q(desc))
	reads := make([]string, len(c.reads))
	for i, r := range c.reads {
		reads[i] = r
		if r == "*" {
			reads[i] = q(r)
		}
	}
	fmt.Fprintf(&b, "reads: [%s]\n", strings.Join(reads, ", "))
	if len(c.produces) > 0 {
		b.WriteString("produces:\n")
		for _, l := range c.produces {
			fmt.Fprintf(&b, "  %s:\n", l.subject)
			for _, f := range l.fields {
				fmt.Fprintf(&b, "    %s: [%s]\n", f[0], f[1])
			}
		}
	}
	return []byte(b.String())
}

func (s *subject) schemaText() []byte {
	switch {
	case s.common:
		return []byte(commonProto)
	case s.format == "protobuf":
		return renderProto(s)
	default:
		return renderAvro(s)
	}
}

func (g *gen) calendar() {
	n := max(3, min(50, len(g.chained)/200))
	n = min(n, len(g.chained))
	day := time.Date(2027, 1, 11, 0, 0, 0, 0, time.UTC)
	for k := 0; k < n; k++ {
		s := g.chained[g.rng.IntN(len(g.chained))]
		d := day.AddDate(0, 0, k*2)
		slug := fmt.Sprintf("%s-%d", strings.SplitN(s.name, "-", 2)[0], k)
		var b strings.Builder
		b.WriteString("# yaml-language-server: $schema=../docs/schemas/calendar-entry.schema.json\n")
		fmt.Fprintf(&b, "title: %s\nkind: %s\nsubjects: [%s]\nowner: %s\nwindow:\n  start: %s\n  end: %s\n  timezone: Europe/Berlin\npull_request: %d\n",
			q("Planned change to "+s.subject), calendarKinds[k%len(calendarKinds)], s.subject, s.owner,
			q(d.Format("2006-01-02")+"T10:00"), q(d.Format("2006-01-02")+"T16:00"), 100+k)
		g.put("calendar/"+d.Format("2006-01-02")+"-"+slug+".yaml", []byte(b.String()))
		g.stats.CalendarFiles++
	}
	g.put("calendar/freezes.yaml", []byte(`# yaml-language-server: $schema=../docs/schemas/freezes.schema.json
freezes:
  - name: year-end
    reason: Peak season
    start: "2026-12-18T00:00"
    end: "2027-01-04T08:00"
    timezone: Europe/Berlin
    scope: {everything: true}
  - name: weekend
    weekly: {from: "fri 18:00", to: "mon 08:00"}
    timezone: Europe/Berlin
    scope: {tiers: [core]}
`))
}
