package flinksql

import (
	"maps"
	"slices"
	"strings"
)

// set is a set of base column paths ("table.column.field").
type set map[string]struct{}

func (s set) add(paths ...string) {
	for _, p := range paths {
		s[p] = struct{}{}
	}
}

func (s set) union(o set) {
	for p := range o {
		s[p] = struct{}{}
	}
}

func (s set) sorted() []string {
	out := slices.Sorted(maps.Keys(s))
	if out == nil {
		out = []string{}
	}
	return out
}

// value is what an expression or a column carries: the base columns that flow into it
// and, when it is a plain pass-through of one base column (or field), that path, so that
// a nested field taken from it (r.detail.price) extends the path.
type value struct {
	lin set
	id  string
	typ *Type
}

func newValue() value { return value{lin: set{}} }

func identity(path string, typ *Type) value {
	return value{lin: set{path: {}}, id: path, typ: typ}
}

// field returns the value of a nested field under v.
func (v value) field(rest []string) value {
	if len(rest) == 0 {
		return v
	}
	if v.id == "" {
		return value{lin: v.lin}
	}
	typ := v.typ
	for _, f := range rest {
		typ = typ.field(f)
	}
	return identity(v.id+"."+strings.Join(rest, "."), typ)
}

func (t *Type) field(name string) *Type {
	if t == nil {
		return nil
	}
	for _, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Type
		}
	}
	return nil
}

// col is a column of a relation in scope.
type col struct {
	name string
	value
}

// rel is a relation in a FROM clause.
type rel struct {
	name  string   // alias, or the table's own name
	qual  []string // the full table name, also usable as a qualifier
	cols  []col
	open  string // an undeclared table: every column name resolves to open.name
	any   *value // a table function without column names: every column carries this
	match bool   // MATCH_RECOGNIZE input: any qualifier (a pattern variable) matches
}

func (r *rel) qualifiedBy(q []string) bool {
	if r.match && len(q) == 1 {
		return true
	}
	if len(q) == 1 && r.name != "" && strings.EqualFold(r.name, q[0]) {
		return true
	}
	if len(r.qual) >= len(q) && r.name == lastOf(r.qual) {
		tail := r.qual[len(r.qual)-len(q):]
		for i := range q {
			if !strings.EqualFold(tail[i], q[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func lastOf(n []string) string {
	if len(n) == 0 {
		return ""
	}
	return n[len(n)-1]
}

func (r *rel) col(name string) (col, bool) {
	for _, c := range r.cols {
		if c.name == name {
			return c, true
		}
	}
	for _, c := range r.cols {
		if strings.EqualFold(c.name, name) {
			return c, true
		}
	}
	return col{}, false
}

// scope is the relations visible at one level of a query, with the enclosing levels
// (correlated subqueries) as parents.
type scope struct {
	rels    []*rel
	parent  *scope
	aliases []col // select-list aliases, for ORDER BY, GROUP BY and HAVING
}

// lookup resolves a column reference a.b.c: a qualifier (alias or table name) and a
// column, or a column and nested fields; innermost scope first.
func (s *scope) lookup(parts []string) (value, bool, string) {
	for sc := s; sc != nil; sc = sc.parent {
		for n := len(parts) - 1; n >= 1; n-- {
			for _, r := range sc.rels {
				if !r.qualifiedBy(parts[:n]) {
					continue
				}
				if c, ok := r.col(parts[n]); ok {
					return c.field(parts[n+1:]), true, ""
				}
				if r.open != "" {
					return identity(r.open+"."+strings.Join(parts[n:], "."), nil), true, ""
				}
				if r.any != nil {
					return *r.any, true, ""
				}
			}
		}
		for _, r := range sc.rels {
			if c, ok := r.col(parts[0]); ok {
				return c.field(parts[1:]), true, ""
			}
		}
		for _, a := range sc.aliases {
			if strings.EqualFold(a.name, parts[0]) {
				return a.field(parts[1:]), true, ""
			}
		}
		var open []*rel
		for _, r := range sc.rels {
			if r.open != "" || r.any != nil {
				open = append(open, r)
			}
		}
		switch len(open) {
		case 0:
		case 1:
			if open[0].any != nil {
				return *open[0].any, true, ""
			}
			return identity(open[0].open+"."+strings.Join(parts, "."), nil), true, ""
		default:
			names := make([]string, len(open))
			for i, r := range open {
				names[i] = r.open
			}
			return newValue(), false, "column " + strings.Join(parts, ".") + ": several tables whose columns are not declared could hold it (" + strings.Join(names, ", ") + ")"
		}
	}
	return newValue(), false, "column " + strings.Join(parts, ".") + ": no table in scope declares it"
}
