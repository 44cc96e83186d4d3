package flinksql

import (
	"fmt"
	"strings"
)

// maxSteps bounds the work of one statement (views that use views many times over).
const maxSteps = 2_000_000

// resolver resolves one statement against the tables and views declared so far.
type resolver struct {
	a        *Analyzer
	reads    set
	sources  set
	unres    []string
	seen     map[string]bool
	ctes     []map[string]*CTE
	visiting map[any]bool
	windows  map[string]*WindowSpec
	steps    int
}

func (a *Analyzer) newResolver() *resolver {
	return &resolver{a: a, reads: set{}, sources: set{}, seen: map[string]bool{}, visiting: map[any]bool{}}
}

func (r *resolver) unresolved(why string) {
	if why != "" && !r.seen[why] {
		r.seen[why] = true
		r.unres = append(r.unres, why)
	}
}

func (r *resolver) budget() bool {
	if r.steps > maxSteps {
		r.unresolved("the statement expands past the resolver's budget (views used many times over); its lineage is incomplete")
		return false
	}
	return true
}

func (r *resolver) query(q *Query, parent *scope, reads set) []col {
	if len(q.With) > 0 {
		m := map[string]*CTE{}
		for i := range q.With {
			m[q.With[i].Name] = &q.With[i]
		}
		r.ctes = append(r.ctes, m)
		defer func() { r.ctes = r.ctes[:len(r.ctes)-1] }()
	}
	return r.body(q.Body, parent, reads, q.OrderBy)
}

func (r *resolver) body(b QueryBody, parent *scope, reads set, orderBy []*Expr) []col {
	var cols []col
	switch b := b.(type) {
	case *Select:
		return r.selectBlock(b, parent, reads, orderBy)
	case *Query:
		cols = r.query(b, parent, reads)
	case *SetOp:
		left := r.body(b.Left, parent, reads, nil)
		right := r.body(b.Right, parent, reads, nil)
		cols = make([]col, len(left))
		for i, c := range left {
			cols[i] = col{name: c.name, value: value{lin: set{}}}
			cols[i].lin.union(c.lin)
			if i < len(right) {
				cols[i].lin.union(right[i].lin)
				if c.id == right[i].id {
					cols[i].id, cols[i].typ = c.id, c.typ
				}
			}
		}
		if len(left) != len(right) {
			r.unresolved(fmt.Sprintf("%s: the left side yields %d columns and the right side %d", b.Op, len(left), len(right)))
		}
	case *Values:
		for _, row := range b.Rows {
			for i, e := range row {
				if i >= len(cols) {
					cols = append(cols, col{name: fmt.Sprintf("EXPR$%d", i), value: newValue()})
				}
				cols[i].lin.union(r.value(e, parent, reads).lin)
			}
		}
	}
	if len(orderBy) > 0 {
		sc := &scope{parent: parent, aliases: cols}
		for _, e := range orderBy {
			r.read(e, sc, reads)
		}
	}
	return cols
}

func (r *resolver) selectBlock(s *Select, parent *scope, reads set, orderBy []*Expr) []col {
	local := &scope{parent: parent}
	if s.From != nil {
		r.from(s.From, local, reads)
	}
	saved := r.windows
	r.windows = s.Windows
	defer func() { r.windows = saved }()
	var cols []col
	for i, it := range s.Items {
		if it.Star {
			cols = append(cols, r.star(it, local)...)
			continue
		}
		v := r.value(it.Expr, local, reads)
		cols = append(cols, col{name: itemName(it, i), value: v})
	}
	local.aliases = cols
	r.read(s.Where, local, reads)
	for _, e := range s.GroupBy {
		r.read(e, local, reads)
	}
	r.read(s.Having, local, reads)
	r.read(s.Qualify, local, reads)
	for _, e := range orderBy {
		r.read(e, local, reads)
	}
	return cols
}

// itemName is the name of a select item's column: its alias, the column or field it
// passes through, or EXPR$i as Calcite names it.
func itemName(it SelectItem, i int) string {
	switch {
	case it.Alias != "":
		return it.Alias
	case it.Expr.Kind == ERef || it.Expr.Kind == EField:
		return lastOf(it.Expr.Parts)
	}
	return fmt.Sprintf("EXPR$%d", i)
}

func (r *resolver) star(it SelectItem, local *scope) []col {
	var cols []col
	for _, rl := range local.rels {
		if len(it.Qualifier) > 0 && !rl.qualifiedBy(it.Qualifier) {
			continue
		}
		switch {
		case rl.open != "":
			r.unresolved("SELECT *: the columns of " + rl.open + " are not declared in these files")
		case rl.any != nil:
			r.unresolved("SELECT *: a table function without column names (add AS t(a, b))")
		}
		cols = append(cols, rl.cols...)
	}
	return cols
}

func rename(cols []col, a Alias) []col {
	if len(a.Columns) == 0 {
		return cols
	}
	out := make([]col, len(a.Columns))
	for i, n := range a.Columns {
		out[i] = col{name: n, value: newValue()}
		if i < len(cols) {
			out[i].value = cols[i].value
		}
	}
	return out
}

func aliasOr(a Alias, name string) string {
	if a.Name != "" {
		return a.Name
	}
	return name
}

// from adds the relations of t to local.
func (r *resolver) from(t TableExpr, local *scope, reads set) {
	r.steps++
	if !r.budget() {
		return
	}
	switch t := t.(type) {
	case *Join:
		r.from(t.Left, local, reads)
		r.from(t.Right, local, reads)
		r.read(t.On, local, reads)
		for _, u := range t.Using {
			r.read(&Expr{Kind: ERef, Parts: []string{u}}, local, reads)
		}
	case *TableRef:
		local.rels = append(local.rels, r.tableRef(t, local, reads))
		r.read(t.AsOf, local, reads)
	case *Derived:
		cols := r.query(t.Query, local, reads)
		local.rels = append(local.rels, &rel{name: t.Alias.Name, cols: rename(cols, t.Alias)})
	case *TableFunc:
		local.rels = append(local.rels, r.tableFunc(t, local, reads))
	case *Unnest:
		local.rels = append(local.rels, r.unnest(t, local, reads))
	case *Match:
		local.rels = append(local.rels, r.match(t, local, reads))
	}
}

// tableRef resolves a name to a CTE, a view, a declared table or an undeclared one.
func (r *resolver) tableRef(t *TableRef, local *scope, reads set) *rel {
	if len(t.Name) == 1 {
		for i := len(r.ctes) - 1; i >= 0; i-- {
			if c, ok := r.ctes[i][t.Name[0]]; ok && !r.visiting[c] {
				r.visiting[c] = true
				cols := r.query(c.Query, nil, reads)
				delete(r.visiting, c)
				cols = rename(cols, Alias{Columns: c.Columns})
				return &rel{name: aliasOr(t.Alias, c.Name), cols: rename(cols, t.Alias)}
			}
		}
	}
	if v := r.a.view(t.Name); v != nil && !r.visiting[v] {
		r.visiting[v] = true
		cols := r.query(v.Query, nil, reads)
		delete(r.visiting, v)
		cols = rename(cols, Alias{Columns: v.Columns})
		return &rel{name: aliasOr(t.Alias, lastOf(t.Name)), qual: t.Name, cols: rename(cols, t.Alias)}
	}
	if d := r.a.table(t.Name); d != nil {
		r.sources.add(d.display)
		return &rel{name: aliasOr(t.Alias, lastOf(t.Name)), qual: t.Name, cols: rename(d.columns(r.a), t.Alias)}
	}
	name := t.Name.String()
	r.sources.add(name)
	rl := &rel{name: aliasOr(t.Alias, lastOf(t.Name)), qual: t.Name, open: name}
	if len(t.Alias.Columns) > 0 {
		r.unresolved("table " + name + " is not declared in these files; its columns are taken by name")
	}
	return rl
}

// input resolves the relation a window TVF or MATCH_RECOGNIZE works on.
func (r *resolver) input(t TableExpr, local *scope, reads set) *rel {
	tmp := &scope{parent: local.parent}
	r.from(t, tmp, reads)
	if len(tmp.rels) == 1 {
		return tmp.rels[0]
	}
	merged := &rel{}
	for _, rl := range tmp.rels {
		merged.cols = append(merged.cols, rl.cols...)
	}
	return merged
}

var windowTVFs = map[string]bool{"TUMBLE": true, "HOP": true, "CUMULATE": true, "SESSION": true}

func (r *resolver) tableFunc(t *TableFunc, local *scope, reads set) *rel {
	call := t.Call
	if call.Kind == ECall && windowTVFs[call.Name] {
		var in *rel
		for _, a := range call.Args {
			if a.Kind == ETable {
				in = r.input(a.Table, local, reads)
				isc := &scope{rels: []*rel{in}, parent: local.parent}
				for _, e := range a.Partition {
					r.read(e, isc, reads)
				}
			}
		}
		if in == nil {
			r.unresolved(call.Name + ": no TABLE argument")
			in = &rel{}
		}
		isc := &scope{rels: []*rel{in}, parent: local.parent}
		timeAttr := newValue()
		for _, a := range call.Args {
			switch a.Kind {
			case EDescriptor:
				for _, d := range a.Args {
					timeAttr.lin.union(r.value(d, isc, reads).lin)
				}
			case ETable:
			default:
				r.read(a, isc, reads)
			}
		}
		reads.union(timeAttr.lin)
		out := &rel{name: aliasOr(t.Alias, in.name), qual: in.qual, open: in.open, any: in.any}
		out.cols = append(out.cols, in.cols...)
		for _, n := range []string{"window_start", "window_end", "window_time"} {
			out.cols = append(out.cols, col{name: n, value: value{lin: timeAttr.lin}})
		}
		out.cols = rename(out.cols, t.Alias)
		return out
	}
	// a user-defined table function: its columns come from its arguments
	args := newValue()
	if call.Kind == ECall {
		for _, a := range call.Args {
			args.lin.union(r.value(a, local, reads).lin)
		}
	} else {
		args.lin.union(r.value(call, local, reads).lin)
	}
	reads.union(args.lin)
	out := &rel{name: t.Alias.Name}
	if len(t.Alias.Columns) == 0 {
		out.any = &args
		return out
	}
	for _, n := range t.Alias.Columns {
		out.cols = append(out.cols, col{name: n, value: value{lin: args.lin}})
	}
	return out
}

func (r *resolver) unnest(t *Unnest, local *scope, reads set) *rel {
	var cols []col
	for _, a := range t.Args {
		v := r.value(a, local, reads)
		var elem *Type
		if v.typ != nil {
			elem = v.typ.Elem
		}
		if elem == nil || elem.Name != "ROW" || len(elem.Fields) == 0 || v.id == "" {
			// the array is read as a whole; with ROW elements only the fields used are
			reads.union(v.lin)
		}
		switch {
		case elem != nil && elem.Name == "ROW" && len(elem.Fields) > 0:
			for _, f := range elem.Fields {
				c := col{name: f.Name, value: value{lin: v.lin}}
				if v.id != "" {
					c.value = identity(v.id+"."+f.Name, f.Type)
				}
				cols = append(cols, c)
			}
		case v.typ != nil && v.typ.Name == "MAP":
			cols = append(cols, col{name: "key", value: value{lin: v.lin}}, col{name: "value", value: value{lin: v.lin}})
		default:
			c := col{name: fmt.Sprintf("EXPR$%d", len(cols)), value: value{lin: v.lin, id: v.id, typ: elem}}
			cols = append(cols, c)
		}
	}
	if t.Ordinality {
		cols = append(cols, col{name: "ORDINALITY", value: newValue()})
	}
	if n := len(t.Alias.Columns); n > len(cols) && len(cols) > 0 {
		// element type unknown: every named column comes from the last array
		last := cols[len(cols)-1]
		cols[len(cols)-1].id = ""
		for len(cols) < n {
			cols = append(cols, col{value: value{lin: last.lin}})
		}
	}
	return &rel{name: t.Alias.Name, cols: rename(cols, t.Alias)}
}

func (r *resolver) match(m *Match, local *scope, reads set) *rel {
	in := r.input(m.Input, local, reads)
	pv := &rel{name: in.name, qual: in.qual, cols: in.cols, open: in.open, any: in.any, match: true}
	msc := &scope{rels: []*rel{pv}, parent: local.parent}
	var cols []col
	for _, e := range m.Partition {
		v := r.value(e, msc, reads)
		reads.union(v.lin)
		if !m.AllRows && e.Kind == ERef {
			cols = append(cols, col{name: lastOf(e.Parts), value: v})
		}
	}
	order := newValue()
	for _, e := range m.OrderBy {
		order.lin.union(r.value(e, msc, reads).lin)
	}
	reads.union(order.lin)
	for _, d := range m.Define {
		r.read(d.Cond, msc, reads)
	}
	if m.AllRows {
		cols = append(cols, in.cols...)
	}
	for i, it := range m.Measures {
		v := r.value(it.Expr, msc, reads)
		if it.Expr.Kind == ECall && strings.HasPrefix(it.Expr.Name, "MATCH_") {
			v = value{lin: order.lin}
		}
		cols = append(cols, col{name: itemName(it, i), value: v})
	}
	return &rel{name: m.Alias.Name, cols: rename(cols, m.Alias)}
}
