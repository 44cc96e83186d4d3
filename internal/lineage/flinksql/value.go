package flinksql

// value computes what flows out of an expression in scope sc: every column it uses,
// including CASE conditions, FILTER clauses and OVER partitions and orders. Columns
// that only steer which rows there are (the conditions of a subquery) go to reads.
func (r *resolver) value(e *Expr, sc *scope, reads set) value {
	if e == nil {
		return newValue()
	}
	r.steps++
	switch e.Kind {
	case ERef:
		v, ok, why := sc.lookup(e.Parts)
		if !ok {
			r.unresolved(why)
		}
		return v
	case EField:
		base := r.value(e.Args[0], sc, reads)
		return base.field(e.Parts)
	case EIndex:
		base := r.value(e.Args[0], sc, reads)
		idx := r.value(e.Args[1], sc, reads)
		if len(idx.lin) == 0 && base.id != "" {
			// an array element or a map value: the contract names it by the array's path
			var elem *Type
			if base.typ != nil {
				elem = base.typ.Elem
			}
			return identity(base.id, elem)
		}
		out := value{lin: set{}}
		out.lin.union(base.lin)
		out.lin.union(idx.lin)
		return out
	case ESubquery:
		q := r.query(e.Query, sc, reads)
		out := newValue()
		if e.Name == "EXISTS" {
			// only its conditions matter, and they are reads already
			return out
		}
		for _, c := range q {
			out.lin.union(c.lin)
		}
		if len(q) == 1 {
			out.id, out.typ = q[0].id, q[0].typ
		}
		return out
	case ECall, ECase:
		out := newValue()
		for _, a := range e.Args {
			out.lin.union(r.value(a, sc, reads).lin)
		}
		if e.Over != nil {
			// the partition and order decide the value (ROW_NUMBER is made of nothing
			// else), as Calcite's column origins say too
			out.lin.union(r.window(e.Over, sc, reads))
		}
		return out
	}
	return newValue()
}

// read adds every column e uses to reads.
func (r *resolver) read(e *Expr, sc *scope, reads set) {
	if e != nil {
		reads.union(r.value(e, sc, reads).lin)
	}
}

func (r *resolver) window(w *WindowSpec, sc *scope, reads set) set {
	used := set{}
	for _, e := range w.Partition {
		used.union(r.value(e, sc, reads).lin)
	}
	for _, e := range w.OrderBy {
		used.union(r.value(e, sc, reads).lin)
	}
	if w.Ref != "" && r.windows != nil {
		if named, ok := r.windows[w.Ref]; ok && named != w {
			used.union(r.window(named, sc, reads))
		}
	}
	reads.union(used)
	return used
}
