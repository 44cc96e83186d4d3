package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// Keys is contract.yaml's `keys:`: what identifies a row of a real-time table and
// which fields carry its times.
type Keys struct {
	// Business lists the fields whose values identify one business entity (the
	// primary key of the table the stream feeds), e.g. [order_id] or [window_start,
	// channel].
	Business []string `json:"business,omitempty"`
	// EventTime is the field with the time the business event happened.
	EventTime string `json:"event_time,omitempty"`
	// UpdateTime is the field with the time the row was last changed; an event that is
	// never re-emitted names its event time.
	UpdateTime string `json:"update_time,omitempty"`
}

// SLA is contract.yaml's `sla:`: what the producer promises.
type SLA struct {
	// Latency is the most time from the business event to the record on the topic.
	Latency time.Duration `json:"latency,omitempty"`
	// Availability is the share of time the stream meets Latency, "99.9%".
	Availability string `json:"availability,omitempty"`
}

// keysKeys are the keys of `keys:`, in the order messages name them.
var keysKeys = []string{"business", "event_time", "update_time"}

var (
	reRetention    = regexp.MustCompile(`^([1-9][0-9]{0,5})(h|d)$`)
	reAvailability = regexp.MustCompile(`^(100|[1-9]?[0-9](\.[0-9]{1,4})?)%$`)
)

// MaxPartitions bounds `partitions:` (Kafka's practical limit per topic).
const MaxPartitions = 10000

// fieldRef is a field path named in contract.yaml, checked against the schema once it
// is parsed.
type fieldRef struct {
	item
	key string // "keys.business", "keys.event_time", ...
}

// tableKeys reads keys:, sla:, retention: and partitions:; it returns the field paths
// keys: names, for the check against the schema.
func tableKeys(o *object, s *Subject) []fieldRef {
	var refs []fieldRef
	if ko := o.child("keys", "keys"); ko != nil {
		ko.expect("keys", nil, keysKeys)
		s.Keys = &Keys{}
		if items, ok := ko.strList("business"); ok {
			if len(items) == 0 {
				ko.f.report(ko.valuePos("business"), CodeInvalidValue, "keys: business lists no field; name the fields that identify one row, e.g. business: [order_id].")
			}
			for _, it := range items {
				s.Keys.Business = append(s.Keys.Business, it.val)
				refs = append(refs, fieldRef{it, "keys.business"})
			}
		}
		for _, k := range keysKeys[1:] {
			if v, ok := ko.str(k); ok {
				refs = append(refs, fieldRef{item{v, ko.valuePos(k)}, "keys." + k})
				if k == "event_time" {
					s.Keys.EventTime = v
				} else {
					s.Keys.UpdateTime = v
				}
			}
		}
	}
	if so := o.child("sla", "sla"); so != nil {
		so.expect("sla", []string{"latency"}, []string{"availability"})
		s.SLA = &SLA{}
		if v, ok := so.str("latency"); ok {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				so.f.report(so.valuePos("latency"), CodeInvalidValue, "sla: latency %q must be a positive duration, like \"30s\", \"5m\" or \"1h\".", v)
			}
			s.SLA.Latency = d
		}
		if v, ok := so.str("availability"); ok {
			if !reAvailability.MatchString(v) {
				so.f.report(so.valuePos("availability"), CodeInvalidValue, "sla: availability %q must be a percentage, like \"99.9%%\".", v)
			}
			s.SLA.Availability = v
		}
	}
	if v, ok := o.str("retention"); ok {
		if v != "forever" && !reRetention.MatchString(v) {
			o.f.report(o.valuePos("retention"), CodeInvalidValue, "retention %q must be hours or days, like \"72h\" or \"7d\", or \"forever\" (a compacted topic).", v)
		}
		s.Retention = v
	}
	if v, ok := o.integer("partitions"); ok {
		if v < 1 || v > MaxPartitions {
			o.f.report(o.valuePos("partitions"), CodeInvalidValue, "partitions must be between 1 and %d, found %d.", MaxPartitions, v)
		}
		s.Partitions = v
	}
	return refs
}

// checkTableKeys checks, once the schema is parsed, that the fields keys: names
// exist, and that a core subject with a topic declares all three keys and documents
// every top-level field (errors; warnings for the standard tier). undocumented lists
// the top-level fields the schema gives no doc, with their positions in it.
func checkTableKeys(f *file, s *Subject, refs []fieldRef, undocumented []item) {
	paths := s.FieldPaths()
	if paths == nil {
		return // the schema did not parse: reported there
	}
	for _, r := range refs {
		if !s.HasFieldPath(r.val) {
			f.report(r.pos, CodeUnknownField, "%s names field %q, which does not exist in %s.%s", r.key, r.val, s.SchemaFile, didYouMean(r.val, paths))
		}
	}
	sev, why := Warning, "standard subjects should"
	if s.Tier == "core" {
		sev, why = Error, "core subjects must"
	}
	at := s.KeyPos["tier"]
	if at.Line == 0 {
		at = Pos{1, 1}
	}
	if s.Topic != "" {
		var missing []string
		for _, k := range keysKeys {
			if s.Keys == nil || (k == "business" && len(s.Keys.Business) == 0) ||
				(k == "event_time" && s.Keys.EventTime == "") || (k == "update_time" && s.Keys.UpdateTime == "") {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			p := at
			if s.Keys != nil {
				p = s.KeyPos["keys"]
			}
			what := "keys: lacks " + quoteJoin(missing)
			if s.Keys == nil {
				what = "declares no keys"
			}
			*f.diags = append(*f.diags, Diagnostic{Span: located.Span{File: f.path, Line: max(p.Line, 1), Column: max(p.Column, 1)}, Severity: sev, Code: CodeMissingKeys,
				Message: fmt.Sprintf("%s has a topic but %s; %s declare the business key, the event time and the update time of the rows they carry: keys: {business: [<field>, ...], event_time: <field>, update_time: <field>} (an event that is never re-emitted names its event time as update time).", s.Subject, what, why)})
		}
	}
	for _, u := range undocumented {
		if m, ok := s.Fields[u.val]; ok && m.Doc != "" {
			continue
		}
		*f.diags = append(*f.diags, Diagnostic{Span: located.Span{File: s.SchemaFile, Line: max(u.pos.Line, 1), Column: max(u.pos.Column, 1)}, Severity: sev, Code: CodeMissingDoc,
			Message: fmt.Sprintf("field %q of %s has no documentation; %s document every top-level field: say what it holds in the schema (its doc or comment), or in %s under fields: %s: doc:.", u.val, s.Subject, why, s.ContractPath(), u.val)})
	}
}

// undocumentedTop lists the top-level fields a parsed schema gives no documentation,
// with their positions; nil when the format cannot describe its fields.
func undocumentedTop(sch checker.Schema) []item {
	d, ok := sch.(checker.FieldDescriber)
	if !ok {
		return nil
	}
	var out []item
	for _, fi := range d.DescribeFields() {
		if fi.Depth != 0 || fi.Doc != "" {
			continue
		}
		line, col, _ := sch.Pos(fi.Path)
		out = append(out, item{fi.Path, Pos{line, col}})
	}
	return out
}

func quoteJoin(ss []string) string {
	out := ""
	for i, s := range ss {
		switch {
		case i == 0:
		case i == len(ss)-1:
			out += " and "
		default:
			out += ", "
		}
		out += strconv.Quote(s)
	}
	return out
}
