package verdict

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/contractbot/contractbot/internal/impact"
)

// JSONVersion is the version of the JSON document JSON writes. It changes only when a
// field is removed or changes meaning; new fields may appear within a version.
const JSONVersion = 1

// jsonDocument is the top level of the JSON output: the version, then the report.
type jsonDocument struct {
	Version int `json:"version"`
	*Report
}

// JSON renders the report as a stable JSON document (docs/verdict.md describes it):
// {"version": 1, ...the report's fields}. Lists are [] rather than null, times are
// RFC 3339 in UTC, maps are sorted by key, and the output ends with a newline.
func JSON(r *Report) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonDocument{Version: JSONVersion, Report: normalized(r)}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// normalized returns a copy of r with every nil list made empty and every time in UTC,
// leaving r as it was.
func normalized(r *Report) *Report {
	c := *r
	c.Now = utc(r.Now)
	c.Deadline = utc(r.Deadline)
	c.Subjects = make([]*SubjectReport, len(r.Subjects))
	for i, s := range r.Subjects {
		sc := *s
		sc.Findings = list(s.Findings)
		sc.Changes = list(s.Changes)
		sc.Affected = make([]impact.Affected, len(s.Affected))
		for j, a := range s.Affected {
			a.Hits = make([]impact.Hit, len(s.Affected[j].Hits))
			for k, h := range s.Affected[j].Hits {
				h.Chain, h.Reads = list(h.Chain), list(h.Reads)
				a.Hits[k] = h
			}
			sc.Affected[j] = a
		}
		c.Subjects[i] = &sc
	}
	c.SignOffs = make([]*SignOff, len(r.SignOffs))
	for i, so := range r.SignOffs {
		sc := *so
		sc.Handles = list(so.Handles)
		sc.For = make([]ConsumerRef, len(so.For))
		for j, ref := range so.For {
			ref.Fields = list(nonEmpty(ref.Fields))
			sc.For[j] = ref
		}
		sc.RequestedAt, sc.Deadline, sc.ApprovedAt = utc(so.RequestedAt), utc(so.Deadline), utc(so.ApprovedAt)
		c.SignOffs[i] = &sc
	}
	c.Calendar = make([]*CalendarCheck, len(r.Calendar))
	for i, cc := range r.Calendar {
		x := *cc
		x.FrozenUntil = utc(cc.FrozenUntil)
		c.Calendar[i] = &x
	}
	c.Lint = list(r.Lint)
	c.Blockers = list(r.Blockers)
	if r.Override != nil {
		o := *r.Override
		o.At = utc(o.At)
		c.Override = &o
	}
	c.State = make(map[string]TeamState, len(r.State))
	for k, st := range r.State {
		st.Since, st.RequestedAt = utc(st.Since), utc(st.RequestedAt)
		c.State[k] = st
	}
	return &c
}

// list returns s, or an empty list when s is nil.
func list[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// utc keeps the zero time zero (omitted by omitzero) and puts the others in UTC.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}
