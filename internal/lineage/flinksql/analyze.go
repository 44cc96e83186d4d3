package flinksql

import (
	"fmt"
	"slices"
	"strings"
)

// Result is the lineage of a set of scripts; its JSON shape is documented in
// docs/lineage.md and is stable.
type Result struct {
	Tables     []Table     `json:"tables"`
	Statements []Statement `json:"statements"`
	Errors     []*Error    `json:"errors,omitempty"`
}

// Table is a table declared with CREATE TABLE.
type Table struct {
	Name      string `json:"name"`
	Connector string `json:"connector,omitempty"`
	Topic     string `json:"topic,omitempty"`
}

// Statement is the lineage of one INSERT (or CREATE TABLE ... AS SELECT).
type Statement struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Sink    string   `json:"sink"`
	Sources []string `json:"sources"`
	// Columns maps each sink column to the source columns ("table.column.field") whose
	// values flow into it.
	Columns map[string][]string `json:"columns"`
	// Reads is every source column the statement uses anywhere.
	Reads []string `json:"reads"`
	// Unresolved says what the resolver could not attribute, instead of guessing.
	Unresolved []string `json:"unresolved,omitempty"`
	// Order is the sink columns in their order (for printing).
	Order []string `json:"-"`
}

// Analyzer accumulates the tables and views of scripts in order and resolves each
// INSERT against what was declared before it (in the same or an earlier script).
type Analyzer struct {
	tables  []*tableDef // in order of declaration, for Result
	tableIx index[*tableDef]
	viewIx  index[*CreateView]
	res     Result
	sets    [][2]string
}

type tableDef struct {
	file    string
	def     *CreateTable
	display string
	cols    []col // resolved on first use
	done    bool
	asCols  []string // CTAS without a column list: the query's column names
}

// Analyze parses and resolves scripts given as file name and text, in order.
func Analyze(files ...[2]string) Result {
	a := &Analyzer{}
	for _, f := range files {
		a.Add(Parse(f[0], f[1]))
	}
	return a.Result()
}

// Result returns what was found so far.
func (a *Analyzer) Result() Result {
	out := a.res
	out.Tables = nil
	for _, t := range a.tables {
		out.Tables = append(out.Tables, Table{Name: t.display, Connector: t.def.Connector(), Topic: t.def.Topic()})
	}
	if out.Tables == nil {
		out.Tables = []Table{}
	}
	if out.Statements == nil {
		out.Statements = []Statement{}
	}
	return out
}

// TableDef is a table as the scripts declare it last (LIKE merged), with its file.
type TableDef struct {
	File string
	*CreateTable
}

// Defs returns the tables declared so far, in order of first declaration.
func (a *Analyzer) Defs() []TableDef {
	out := make([]TableDef, len(a.tables))
	for i, t := range a.tables {
		out[i] = TableDef{t.file, t.def}
	}
	return out
}

// Sets returns the options the scripts SET, in order.
func (a *Analyzer) Sets() [][2]string { return a.sets }

// Add resolves the statements of one parsed script.
func (a *Analyzer) Add(s *Script) {
	a.res.Errors = append(a.res.Errors, s.Errors...)
	a.sets = append(a.sets, s.Sets...)
	for _, st := range s.Stmts {
		switch st := st.(type) {
		case *CreateTable:
			a.createTable(s.File, st)
		case *CreateView:
			a.viewIx.add(st.Name, st)
		case *Insert:
			a.insert(s.File, st)
		case *CreateDatabaseAs:
			a.createDatabaseAs(s.File, st)
		}
	}
}

func (a *Analyzer) createTable(file string, ct *CreateTable) {
	d := &tableDef{file: file, def: ct, display: ct.Name.String()}
	if len(ct.Like) > 0 {
		if src := a.table(ct.Like); src != nil {
			merged := *ct
			merged.Columns = append(append([]ColumnDef{}, src.def.Columns...), ct.Columns...)
			if len(merged.Options) == 0 {
				merged.Options = src.def.Options
			} else {
				merged.Options = append(append([][2]string{}, src.def.Options...), ct.Options...)
				merged.Options = lastWins(merged.Options)
			}
			d.def = &merged
		}
	}
	replaced := false
	for i, t := range a.tables {
		if t.display == d.display {
			a.tables[i], replaced = d, true
		}
	}
	if !replaced {
		a.tables = append(a.tables, d)
	}
	if ct.As == nil {
		a.tableIx.add(ct.Name, d)
	} else {
		// the query reads what was declared before (REPLACE TABLE t AS SELECT ... FROM t
		// reads the old t), never the table it creates
		defer a.tableIx.add(ct.Name, d)
		st := a.resolveInsert(file, &Insert{Pos: ct.Pos, Table: ct.Name, Query: ct.As}, d, true)
		for _, c := range st.Order {
			if !slices.ContainsFunc(ct.Columns, func(d ColumnDef) bool { return d.Name == c }) {
				d.asCols = append(d.asCols, c)
			}
		}
		a.res.Statements = append(a.res.Statements, st.Statement)
	}
}

// createDatabaseAs resolves CDAS as one CREATE TABLE ... AS TABLE per table it names;
// the tables of INCLUDING ALL TABLES (or of a pattern) are known only when it runs.
func (a *Analyzer) createDatabaseAs(file string, cd *CreateDatabaseAs) {
	names, known := cdasTables(cd.Including, cd.Excluding)
	for _, n := range names {
		ct := &CreateTable{Pos: cd.Pos, Name: append(slices.Clone(cd.Name), n),
			As: selectStar(cd.Pos, append(slices.Clone(cd.Source), n))}
		a.createTable(file, ct)
	}
	if !known {
		a.res.Statements = append(a.res.Statements, Statement{File: file, Line: cd.Line,
			Sink: cd.Name.String(), Sources: []string{cd.Source.String()}, Columns: map[string][]string{}, Reads: []string{},
			Unresolved: []string{fmt.Sprintf("CREATE DATABASE %s AS DATABASE %s copies tables that the script does not name (ALL TABLES or a pattern); name them in INCLUDING TABLE 'a|b' to see each table's lineage", cd.Name, cd.Source)}})
	}
}

// cdasTables lists the tables an INCLUDING TABLE pattern names, less the EXCLUDING
// ones; known is false when it has a part that is not a plain name (ALL TABLES, a
// regular expression).
func cdasTables(including, excluding string) (names []string, known bool) {
	if including == "" {
		return nil, false
	}
	plain := func(s string) bool {
		return s != "" && strings.IndexFunc(s, func(r rune) bool {
			return !(r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
		}) < 0
	}
	excluded := strings.Split(excluding, "|")
	known = true
	for _, n := range strings.Split(including, "|") {
		n = strings.TrimSpace(n)
		switch {
		case !plain(n):
			known = false
		case !slices.Contains(excluded, n):
			names = append(names, n)
		}
	}
	return names, known
}

// lastWins keeps the last value of each option key, in first-seen order.
func lastWins(opts [][2]string) [][2]string {
	idx := map[string]int{}
	var out [][2]string
	for _, kv := range opts {
		if i, ok := idx[strings.ToLower(kv[0])]; ok {
			out[i] = kv
			continue
		}
		idx[strings.ToLower(kv[0])] = len(out)
		out = append(out, kv)
	}
	return out
}

// index finds a declared name exactly, then ignoring case, then by its last part
// (default_catalog.default_database.orders is orders); a later declaration wins.
type index[T any] struct {
	exact, fold, last map[string]T
}

func (ix *index[T]) add(n Name, v T) {
	if ix.exact == nil {
		ix.exact, ix.fold, ix.last = map[string]T{}, map[string]T{}, map[string]T{}
	}
	ix.exact[n.String()] = v
	ix.fold[strings.ToLower(n.String())] = v
	ix.last[strings.ToLower(lastOf(n))] = v
}

func (ix *index[T]) get(n Name) (T, bool) {
	full := n.String()
	if v, ok := ix.exact[full]; ok {
		return v, true
	}
	if v, ok := ix.fold[strings.ToLower(full)]; ok {
		return v, true
	}
	v, ok := ix.last[strings.ToLower(lastOf(n))]
	return v, ok
}

func (a *Analyzer) table(n Name) *tableDef {
	t, _ := a.tableIx.get(n)
	return t
}

func (a *Analyzer) view(n Name) *CreateView {
	v, _ := a.viewIx.get(n)
	return v
}

// columns returns the columns of a declared table: physical and metadata columns are
// columns of the table; a computed column carries the columns its expression uses
// (itself when it uses none, as PROCTIME() does).
func (d *tableDef) columns(a *Analyzer) []col {
	if d.done {
		return d.cols
	}
	d.done = true
	var phys []col
	for _, c := range d.def.Columns {
		if c.Computed == nil {
			phys = append(phys, col{name: c.Name, value: identity(d.display+"."+c.Name, c.Type)})
		}
	}
	for _, n := range d.asCols {
		phys = append(phys, col{name: n, value: identity(d.display+"."+n, nil)})
	}
	sc := &scope{rels: []*rel{{name: lastOf(d.def.Name), cols: phys}}}
	r := a.newResolver()
	for _, c := range d.def.Columns {
		if c.Computed == nil {
			if i := indexOf(phys, c.Name); i >= 0 {
				d.cols = append(d.cols, phys[i])
			}
			continue
		}
		v := r.value(c.Computed, sc, set{})
		if len(v.lin) == 0 {
			v = identity(d.display+"."+c.Name, nil)
		}
		d.cols = append(d.cols, col{name: c.Name, value: v})
	}
	for _, n := range d.asCols {
		d.cols = append(d.cols, col{name: n, value: identity(d.display+"."+n, nil)})
	}
	return d.cols
}

func indexOf(cols []col, name string) int {
	for i, c := range cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

type resolved struct{ Statement }

func (a *Analyzer) insert(file string, ins *Insert) {
	st := a.resolveInsert(file, ins, a.table(ins.Table), false)
	a.res.Statements = append(a.res.Statements, st.Statement)
}

// resolveInsert resolves an INSERT, or the query of a CREATE TABLE ... AS (ctas),
// whose columns are matched by name: columns declared only in the CREATE part come
// first and are written nothing, and a list of names only reorders the query's.
func (a *Analyzer) resolveInsert(file string, ins *Insert, sink *tableDef, ctas bool) resolved {
	r := a.newResolver()
	cols := r.query(ins.Query, nil, r.reads)
	st := resolved{Statement: Statement{File: file, Line: ins.Line, Sink: ins.Table.String(), Columns: map[string][]string{}}}
	var targets []string
	static := map[string]bool{}
	for _, s := range ins.Static {
		static[strings.ToLower(s)] = true
	}
	switch {
	case len(ins.Columns) > 0:
		targets = ins.Columns
	case !ctas && sink != nil && len(sink.def.Columns) > 0:
		st.Sink = sink.display
		for _, c := range sink.def.Columns {
			if c.Computed == nil && !c.Virtual && !static[strings.ToLower(c.Name)] {
				targets = append(targets, c.Name)
			}
		}
	default:
		if sink != nil {
			st.Sink = sink.display
		}
		taken, next := map[string]bool{}, map[string]int{}
		for _, c := range cols {
			// duplicate names are made unique as Calcite does: id, id0, id1
			n := c.name
			for taken[n] {
				n = fmt.Sprintf("%s%d", c.name, next[c.name])
				next[c.name]++
			}
			taken[n] = true
			targets = append(targets, n)
		}
	}
	if sink != nil {
		st.Sink = sink.display
	}
	if len(cols) != len(targets) {
		r.unresolved(fmt.Sprintf("sink %s: the query yields %d columns for %d sink columns", st.Sink, len(cols), len(targets)))
	}
	for i, t := range targets {
		if i >= len(cols) {
			break
		}
		st.Columns[t] = cols[i].lin.sorted()
		st.Order = append(st.Order, t)
		r.reads.union(cols[i].lin)
	}
	for _, s := range ins.Static {
		st.Columns[s] = []string{}
	}
	if ctas && sink != nil {
		st.Order = ctasOrder(sink.def.Columns, st.Order, st.Columns)
	}
	st.Sources = r.sources.sorted()
	st.Reads = r.reads.sorted()
	st.Unresolved = r.unres
	return st
}

// ctasOrder is the column order of CREATE TABLE (columns) AS query: declared physical
// columns the query does not yield first (written nothing), then the query's columns;
// when every declared column is a name only, the declared order.
func ctasOrder(declared []ColumnDef, query []string, lin map[string][]string) []string {
	if len(declared) == 0 {
		return query
	}
	namesOnly := true
	var first []string
	for _, c := range declared {
		namesOnly = namesOnly && c.Type == nil && c.Computed == nil
		if _, ok := lin[c.Name]; !ok && c.Computed == nil && !c.Virtual {
			lin[c.Name] = []string{}
			first = append(first, c.Name)
		}
	}
	if namesOnly {
		out := make([]string, 0, len(declared))
		for _, c := range declared {
			out = append(out, c.Name)
		}
		return out
	}
	return append(first, query...)
}
