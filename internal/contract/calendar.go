package contract

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

var (
	reEntryFile = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})-[a-z0-9][a-z0-9-]*\.yaml$`)
	reWeekly    = regexp.MustCompile(`^(mon|tue|wed|thu|fri|sat|sun)\s+([01]\d|2[0-3]):([0-5]\d)$`)
	weekdays    = map[string]time.Weekday{"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday}
)

// localLayouts are the accepted forms of a local time; RFC 3339 with an offset is
// accepted too.
var localLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05"}

// ParseTime reads a calendar time: a local time in loc, or RFC 3339 with an offset.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range localLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: write it as \"2026-12-08T10:00\" (local to the timezone key) or with an offset, \"2026-12-08T10:00:00+01:00\"", s)
}

// loadCalendar reads calendar/: planned entries and freezes.yaml. The folder is
// optional.
func (l *loader) loadCalendar(t *Tree) ([]*Entry, []*Freeze) {
	entries, ok := l.listDir(CalendarDir)
	if !ok {
		return nil, nil
	}
	var ds Diagnostics
	defer func() { l.add(ds) }()
	var out []*Entry
	var freezes []*Freeze
	for _, e := range entries {
		p := CalendarDir + "/" + e.Name
		f := &file{path: p, diags: &ds}
		switch {
		case e.Symlink:
			f.report(Pos{1, 1}, CodeSymlink, "%s is a symbolic link; the loader never follows links. Replace it with the real file.", p)
		case p == FreezesFile:
			freezes = l.loadFreezes(f, t)
		case e.Dir || !strings.HasSuffix(e.Name, ".yaml"):
			switch {
			case isDoc(e.Name):
			case !e.Dir && misnamed(e.Name, "freezes.yaml"):
				f.report(Pos{1, 1}, CodeFileName, "%s", renameTo(p, FreezesFile))
			case !e.Dir && strings.HasSuffix(e.Name, ".yml"):
				f.report(Pos{1, 1}, CodeFileName, "%s", renameTo(p, strings.TrimSuffix(p, ".yml")+".yaml"))
			default:
				f.report(Pos{1, 1}, CodeFileName, "calendar/ holds freezes.yaml and entries named <yyyy-mm-dd>-<slug>.yaml; %s is neither.", e.Name)
			}
		default:
			m := reEntryFile.FindStringSubmatch(e.Name)
			if m == nil {
				f.report(Pos{1, 1}, CodeFileName, "calendar entry %s must be named <yyyy-mm-dd>-<slug>.yaml, e.g. 2026-12-08-split-order-amount.yaml.", e.Name)
				continue
			}
			if en := l.loadEntry(f, t); en != nil {
				if day := en.Start.In(location(en.Timezone)).Format("2006-01-02"); day != m[1] {
					f.report(en.Pos, CodeFileName, "the file name says %s but the window starts on %s; rename the file to %s-….yaml.", m[1], day, day)
				}
				out = append(out, en)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].File < out[j].File
	})
	return out, freezes
}

func location(tz string) *time.Location {
	if tz == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return time.UTC
	}
	return loc
}

// zone reads an optional timezone key.
func zone(o *object) (string, *time.Location, bool) {
	tz, ok := o.str("timezone")
	if !ok {
		return "UTC", time.UTC, !o.has("timezone")
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "" || tz == "Local" {
		o.f.report(o.valuePos("timezone"), CodeInvalidValue, "timezone %q is not an IANA time zone name; write one like Europe/Berlin or UTC.", tz)
		return "", nil, false
	}
	return tz, loc, true
}

// window reads start and end from o and checks their order.
func window(o *object, loc *time.Location) (start, end time.Time, ok bool) {
	ok = true
	for _, k := range []string{"start", "end"} {
		s, has := o.str(k)
		if !has {
			ok = false
			continue
		}
		v, err := ParseTime(s, loc)
		if err != nil {
			o.f.report(o.valuePos(k), CodeBadTime, "%s: %v.", k, err)
			ok = false
			continue
		}
		if k == "start" {
			start = v
		} else {
			end = v
		}
	}
	if ok && !end.After(start) {
		o.f.report(o.valuePos("end"), CodeWindowOrder, "the window ends (%s) before it starts (%s); end must be after start.", end.Format(time.RFC3339), start.Format(time.RFC3339))
		ok = false
	}
	return start, end, ok
}

// subjectNames lists every subject of the tree (of the index, for a partial load).
func (l *loader) subjectNames(t *Tree) []string {
	if l.index != nil {
		var out []string
		for n := range l.index.All() {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	out := make([]string, 0, len(t.Subjects))
	for _, s := range t.Subjects {
		out = append(out, s.Subject)
	}
	return out
}

// knownSubject reports whether a subject exists in the tree, loaded or not.
func (l *loader) knownSubject(t *Tree, name string) bool {
	if l.index != nil {
		_, ok := l.index.Folder(name)
		return ok
	}
	return t.Subject(name) != nil
}

// loadEntry reads one planned change.
func (l *loader) loadEntry(f *file, t *Tree) *Entry {
	data, _, ok := l.read(f, f.path, MaxYAMLBytes)
	if !ok {
		return nil
	}
	o := f.parse(data)
	if o == nil {
		return nil
	}
	o.expect("a calendar entry", []string{"title", "kind", "subjects", "owner", "window"}, []string{"pull_request", "notes"})
	en := &Entry{File: f.path, Pos: o.pos}
	en.Title, _ = o.str("title")
	if v, ok := o.str("kind"); ok && o.oneOfValue("kind", v, EntryKinds) {
		en.Kind = v
	}
	if subs, ok := o.strList("subjects"); ok {
		if len(subs) == 0 {
			f.report(o.valuePos("subjects"), CodeInvalidValue, "subjects is empty; list the subjects this change touches.")
		}
		for _, s := range subs {
			if !l.knownSubject(t, s.val) {
				f.report(s.pos, CodeUnknownSubject, "subject %q is not in the tree.%s", s.val, didYouMean(s.val, l.subjectNames(t)))
			}
			en.Subjects = append(en.Subjects, s.val)
		}
	}
	if v, ok := o.str("owner"); ok && l.checkTeam(f, o.valuePos("owner"), v, "owner") {
		en.Owner = v
	}
	if v, ok := o.integer("pull_request"); ok {
		if v < 1 {
			f.report(o.valuePos("pull_request"), CodeInvalidValue, "pull_request must be a pull request number (1 or more).")
		}
		en.PullRequest = v
	}
	en.Notes, _ = o.str("notes")
	w := o.child("window", "window")
	if w == nil {
		return nil
	}
	w.expect("window", []string{"start", "end"}, []string{"timezone"})
	tz, loc, ok := zone(w)
	if !ok {
		return nil
	}
	en.Timezone = tz
	start, end, ok := window(w, loc)
	if !ok {
		return nil
	}
	en.Start, en.End = start, end
	return en
}

// loadFreezes reads calendar/freezes.yaml.
func (l *loader) loadFreezes(f *file, t *Tree) []*Freeze {
	data, _, ok := l.read(f, f.path, MaxYAMLBytes)
	if !ok {
		return nil
	}
	o := f.parse(data)
	if o == nil {
		return nil
	}
	o.expect("freezes.yaml", []string{"freezes"}, nil)
	// The domains of the loaded subjects, and in a partial load those of the index,
	// read only when a scope names a domain no loaded subject has.
	domains := map[string]bool{}
	for _, s := range t.Subjects {
		domains[s.Domain] = true
	}
	indexed := false
	hasDomain := func(d string) bool {
		if !domains[d] && !indexed && l.index != nil {
			indexed = true
			for _, dir := range l.index.All() { // contracts/<domain>/<name>
				domain, _, _ := strings.Cut(strings.TrimPrefix(dir, ContractsDir+"/"), "/")
				domains[domain] = true
			}
		}
		return domains[d]
	}
	var out []*Freeze
	seen := map[string]bool{}
	for _, fo := range o.list("freezes", "freeze") {
		fo.expect("a freeze", []string{"name", "scope"}, []string{"reason", "start", "end", "weekly", "timezone"})
		fr := &Freeze{Pos: fo.pos}
		if v, ok := fo.str("name"); ok {
			if seen[v] {
				f.report(fo.valuePos("name"), CodeDuplicateName, "a freeze named %q is already defined above; give each freeze its own name.", v)
			}
			seen[v] = true
			fr.Name = v
		}
		fr.Reason, _ = fo.str("reason")
		tz, loc, ok := zone(fo)
		if !ok {
			continue
		}
		fr.Timezone = tz
		oneOff := fo.has("start") || fo.has("end")
		switch {
		case oneOff && fo.has("weekly"):
			f.report(fo.keys["weekly"], CodeInvalidValue, "a freeze has either start and end or weekly, not both; split it into two freezes.")
			continue
		case oneOff:
			if !fo.has("start") || !fo.has("end") {
				f.report(fo.pos, CodeMissingKey, "a one-off freeze needs both start and end; add the missing one.")
				continue
			}
			start, end, ok := window(fo, loc)
			if !ok {
				continue
			}
			fr.Start, fr.End = start, end
		case fo.has("weekly"):
			wo := fo.child("weekly", "weekly")
			if wo == nil {
				continue
			}
			wo.expect("weekly", []string{"from", "to"}, nil)
			from, ok1 := weeklyPoint(wo, "from")
			to, ok2 := weeklyPoint(wo, "to")
			if !ok1 || !ok2 {
				continue
			}
			fr.Weekly = &Weekly{FromDay: from.day, FromTime: from.clock, ToDay: to.day, ToTime: to.clock}
		default:
			f.report(fo.pos, CodeMissingKey, "a freeze needs a window: add start and end, or weekly: {from: \"fri 18:00\", to: \"mon 08:00\"}.")
			continue
		}
		so := fo.child("scope", "scope")
		if so == nil {
			continue
		}
		so.expect("scope", nil, []string{"everything", "domains", "tiers"})
		if n := len(so.vals); n != 1 {
			f.report(fo.valuePos("scope"), CodeInvalidValue, "scope takes exactly one of everything: true, domains: [...] or tiers: [...]; found %d.", n)
			continue
		}
		if v, ok := so.boolean("everything"); ok {
			if !v {
				f.report(so.valuePos("everything"), CodeInvalidValue, "everything: false freezes nothing; use domains or tiers instead.")
			}
			fr.Scope.Everything = v
		}
		if ds, ok := so.strList("domains"); ok {
			for _, d := range ds {
				if !hasDomain(d.val) {
					f.report(d.pos, CodeInvalidValue, "domain %q has no subjects in contracts/; name a folder under contracts/.", d.val)
				}
				fr.Scope.Domains = append(fr.Scope.Domains, d.val)
			}
		}
		if ts, ok := so.strList("tiers"); ok {
			for _, tier := range ts {
				if tier.val != "core" && tier.val != "standard" {
					f.report(tier.pos, CodeInvalidValue, "tier %q is not a tier; use \"core\" or \"standard\".", tier.val)
				}
				fr.Scope.Tiers = append(fr.Scope.Tiers, tier.val)
			}
		}
		out = append(out, fr)
	}
	return out
}

type weekPoint struct {
	day   time.Weekday
	clock string
}

func weeklyPoint(o *object, key string) (weekPoint, bool) {
	s, ok := o.str(key)
	if !ok {
		return weekPoint{}, false
	}
	m := reWeekly.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		o.f.report(o.valuePos(key), CodeBadTime, "%s %q must be a weekday and a time, like \"fri 18:00\" (days: mon tue wed thu fri sat sun).", key, s)
		return weekPoint{}, false
	}
	return weekPoint{weekdays[m[1]], m[2] + ":" + m[3]}, true
}
