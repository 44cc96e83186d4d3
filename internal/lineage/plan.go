package lineage

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/lineage/flinksql"
)

// Declared is what a job's consumer file under one input subject should say, after its
// SQL.
type Declared struct {
	// Subject is the input subject; File the consumer file (relative to the root).
	Subject string
	File    string
	// Existing is the consumer as the tree has it, nil when the file does not exist.
	Existing *contract.Consumer
	// Read is false for a consumer file of the job under a subject the SQL does not read.
	Read bool
	// Reads are the subject's field paths the SQL reads, sorted.
	Reads []string
	// Produces maps each output subject to its fields, each to the input fields it is
	// made of; FieldOrder keeps the sink's column order per output subject.
	Produces   map[string]map[string][]string
	FieldOrder map[string][]string
}

// Plan works out, for the job named job, the consumer file of every subject its SQL
// reads. Notes say what was left out and why (a column that is no field of its subject,
// a Kafka table whose topic no contract names).
func Plan(res flinksql.Result, tree *contract.Tree, job string) ([]*Declared, []string) {
	p := &planner{tree: tree, job: job, decl: map[string]*Declared{}, noted: map[string]bool{}}
	p.mapTables(res.Tables)
	for _, st := range res.Statements {
		p.statement(st)
	}
	// consumer files of this job under subjects the SQL no longer reads
	for _, s := range tree.Subjects {
		for _, c := range s.Consumers {
			if c.Name == job && p.decl[s.Subject] == nil {
				p.decl[s.Subject] = &Declared{Subject: s.Subject, File: c.File, Existing: c,
					Produces: map[string]map[string][]string{}, FieldOrder: map[string][]string{}}
			}
		}
	}
	out := slices.Collect(maps.Values(p.decl))
	slices.SortFunc(out, func(a, b *Declared) int { return strings.Compare(a.File, b.File) })
	for _, d := range out {
		slices.Sort(d.Reads)
		d.Reads = slices.Compact(d.Reads)
	}
	return out, p.notes
}

type planner struct {
	tree    *contract.Tree
	job     string
	subject map[string]*contract.Subject // table name -> subject
	decl    map[string]*Declared         // input subject -> declaration
	notes   []string
	noted   map[string]bool
}

func (p *planner) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !p.noted[n] {
		p.noted[n] = true
		p.notes = append(p.notes, n)
	}
}

// mapTables finds the subject of every table with a Kafka topic.
func (p *planner) mapTables(tables []flinksql.Table) {
	byTopic := map[string][]*contract.Subject{}
	for _, s := range p.tree.Subjects {
		if s.Topic != "" {
			byTopic[s.Topic] = append(byTopic[s.Topic], s)
		}
	}
	p.subject = map[string]*contract.Subject{}
	for _, t := range tables {
		if t.Topic == "" {
			continue
		}
		cands := byTopic[t.Topic]
		if len(cands) > 1 {
			// a topic with a key and a value subject: the value is what columns are
			var values []*contract.Subject
			for _, s := range cands {
				if strings.HasSuffix(s.Subject, "-value") {
					values = append(values, s)
				}
			}
			cands = values
		}
		switch len(cands) {
		case 0:
			p.note("table %s: no contract names its topic %q; its columns are left out.", t.Name, t.Topic)
		case 1:
			p.subject[t.Name] = cands[0]
		default:
			p.note("table %s: several subjects name its topic %q; its columns are left out.", t.Name, t.Topic)
		}
	}
}

// split finds the source table of a path "table.column.field" among the statement's
// sources (table names may hold dots).
func split(p string, sources []string) (string, string) {
	best := ""
	for _, s := range sources {
		if strings.HasPrefix(p, s+".") && len(s) > len(best) {
			best = s
		}
	}
	if best == "" {
		return "", ""
	}
	return best, p[len(best)+1:]
}

func (p *planner) declared(s *contract.Subject) *Declared {
	d := p.decl[s.Subject]
	if d == nil {
		d = &Declared{Subject: s.Subject, File: path.Join(s.Dir, "consumers", p.job+".yaml"),
			Produces: map[string]map[string][]string{}, FieldOrder: map[string][]string{}}
		for _, c := range s.Consumers {
			if c.Name == p.job {
				d.Existing, d.File = c, c.File
			}
		}
		p.decl[s.Subject] = d
	}
	d.Read = true
	return d
}

// field returns the subject and field path of a source path, when it is a field.
func (p *planner) field(src string, sources []string) (*contract.Subject, string) {
	table, fp := split(src, sources)
	s := p.subject[table]
	if s == nil {
		return nil, ""
	}
	if !s.HasFieldPath(fp) {
		p.note("%s.%s is not a field of %s (a computed or metadata column?); it is left out.", table, fp, s.Subject)
		return nil, ""
	}
	return s, fp
}

func (p *planner) statement(st flinksql.Statement) {
	for _, r := range st.Reads {
		if s, fp := p.field(r, st.Sources); s != nil {
			d := p.declared(s)
			d.Reads = append(d.Reads, fp)
		}
	}
	for _, t := range st.Sources {
		if s := p.subject[t]; s != nil {
			p.declared(s) // a subject read without a field (COUNT(*)) is still read
		}
	}
	out := p.subject[st.Sink]
	if out == nil {
		return
	}
	for _, col := range st.Order {
		if !out.HasFieldPath(col) {
			p.note("sink %s: column %s is not a field of %s; it is left out.", st.Sink, col, out.Subject)
			continue
		}
		for _, src := range st.Columns[col] {
			s, fp := p.field(src, st.Sources)
			if s == nil {
				continue
			}
			d := p.declared(s)
			m := d.Produces[out.Subject]
			if m == nil {
				m = map[string][]string{}
				d.Produces[out.Subject] = m
			}
			if _, ok := m[col]; !ok {
				d.FieldOrder[out.Subject] = append(d.FieldOrder[out.Subject], col)
			}
			if !slices.Contains(m[col], fp) {
				m[col] = append(m[col], fp)
			}
		}
	}
}
