package flinksql

import "strings"

// query parses [WITH ...] body [ORDER BY ...] [LIMIT ...] [OFFSET ...] [FETCH ...].
func (p *parser) query() *Query {
	p.enter()
	defer p.leave()
	q := &Query{Pos: p.pos()}
	if p.acceptKw("WITH") {
		q.With = p.ctes()
	}
	q.Body = p.setExpr()
	if p.peek().is("ORDER") {
		q.OrderBy = p.orderBy()
	}
	for {
		switch {
		case p.acceptKw("LIMIT"), p.acceptKw("OFFSET"):
			if !p.acceptKw("ALL") {
				p.expr()
			}
			p.acceptKw("ROWS")
			p.acceptKw("ROW")
		case p.acceptKw("FETCH"):
			if !p.acceptKw("FIRST") {
				p.expectKw("NEXT")
			}
			if !p.peek().is("ROW") && !p.peek().is("ROWS") {
				p.expr()
			}
			p.next()
			p.expectKw("ONLY")
		default:
			return q
		}
	}
}

// ctes reads name [(columns)] AS (query), ... after WITH.
func (p *parser) ctes() []CTE {
	var out []CTE
	for {
		c := CTE{Name: p.ident()}
		if p.peek().isP("(") {
			c.Columns = p.identList()
		}
		p.expectKw("AS")
		p.expectP("(")
		c.Query = p.query()
		p.expectP(")")
		out = append(out, c)
		if !p.acceptP(",") {
			return out
		}
	}
}

func (p *parser) orderBy() []*Expr {
	p.expectKw("ORDER")
	p.expectKw("BY")
	var out []*Expr
	for {
		out = append(out, p.expr())
		if !p.acceptKw("ASC") {
			p.acceptKw("DESC")
		}
		if p.acceptKw("NULLS") {
			if !p.acceptKw("FIRST") {
				p.expectKw("LAST")
			}
		}
		if !p.acceptP(",") {
			return out
		}
	}
}

func (p *parser) setExpr() QueryBody {
	left := p.queryTerm()
	for {
		t := p.peek()
		if !(t.is("UNION") || t.is("INTERSECT") || t.is("EXCEPT") || t.is("MINUS")) {
			return left
		}
		p.next()
		if !p.acceptKw("ALL") {
			p.acceptKw("DISTINCT")
		}
		left = &SetOp{Op: strings.ToUpper(t.text), Left: left, Right: p.queryTerm()}
	}
}

func (p *parser) queryTerm() QueryBody {
	switch {
	case p.peek().is("SELECT"):
		return p.selectBlock()
	case p.acceptKw("VALUES"):
		v := &Values{}
		for {
			e := p.expr()
			if e.Kind == ECall && e.Name == "ROW" {
				v.Rows = append(v.Rows, e.Args)
			} else {
				v.Rows = append(v.Rows, []*Expr{e})
			}
			if !p.acceptP(",") {
				return v
			}
		}
	case p.peek().isP("("):
		p.next()
		q := p.query()
		p.expectP(")")
		return q
	}
	p.fail("expected SELECT, VALUES or a parenthesised query, found %s", p.peek())
	return nil
}

func (p *parser) selectBlock() *Select {
	s := &Select{Pos: p.pos()}
	p.expectKw("SELECT")
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	for {
		s.Items = append(s.Items, p.selectItem())
		if !p.acceptP(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		s.From = p.fromList()
	}
	if p.acceptKw("WHERE") {
		s.Where = p.expr()
	}
	if p.peek().is("GROUP") {
		p.next()
		p.expectKw("BY")
		p.acceptKw("ALL")
		p.acceptKw("DISTINCT")
		for {
			if p.acceptKw("GROUPING") {
				p.expectKw("SETS")
			}
			s.GroupBy = append(s.GroupBy, p.expr())
			if !p.acceptP(",") {
				break
			}
		}
	}
	if p.acceptKw("HAVING") {
		s.Having = p.expr()
	}
	if p.acceptKw("WINDOW") {
		s.Windows = map[string]*WindowSpec{}
		for {
			name := p.ident()
			p.expectKw("AS")
			s.Windows[name] = p.windowSpec()
			if !p.acceptP(",") {
				break
			}
		}
	}
	if p.acceptKw("QUALIFY") {
		s.Qualify = p.expr()
	}
	return s
}

func (p *parser) selectItem() SelectItem {
	it := SelectItem{Pos: p.pos()}
	if p.acceptP("*") {
		it.Star = true
		return it
	}
	// qualifier.*
	if t := p.peek(); t.kind == tIdent || t.kind == tQuoted {
		j := 0
		for {
			if k := p.peekN(j); k.kind != tIdent && k.kind != tQuoted {
				break
			}
			if !p.peekN(j + 1).isP(".") {
				break
			}
			if p.peekN(j + 2).isP("*") {
				for k := 0; k <= j; k++ {
					it.Qualifier = append(it.Qualifier, p.toks[p.i+2*k].text)
				}
				p.i += 2*j + 3
				it.Star = true
				return it
			}
			j += 2
		}
	}
	it.Expr = p.expr()
	it.Alias = p.alias()
	return it
}

// alias reads [AS] name, or returns "".
func (p *parser) alias() string {
	if p.acceptKw("AS") {
		if p.peek().kind == tString {
			return p.next().text
		}
		return p.ident()
	}
	if t := p.peek(); t.kind == tQuoted || t.kind == tIdent && !isReserved(t) && !p.newStatementLine() {
		p.next()
		return t.text
	}
	return ""
}

func (p *parser) relAlias() Alias {
	a := Alias{Name: p.alias()}
	if a.Name != "" && p.peek().isP("(") {
		a.Columns = p.identList()
	}
	return a
}

// MaxRelations bounds the relations of one FROM clause (joins and commas).
const MaxRelations = 1000

func (p *parser) fromList() TableExpr {
	n := 0
	left := p.joined(&n)
	for p.acceptP(",") {
		left = &Join{Kind: ",", Left: left, Right: p.joined(&n)}
	}
	return left
}

func (p *parser) joined(n *int) TableExpr {
	left := p.tablePrimary()
	for {
		if *n++; *n > MaxRelations {
			p.fail("more than %d relations in one FROM clause; split the statement", MaxRelations)
		}
		kind := ""
		save := p.i
		p.acceptKw("NATURAL")
		switch {
		case p.acceptKw("JOIN"):
			kind = "INNER"
		case p.peek().is("INNER") || p.peek().is("CROSS"):
			kind = strings.ToUpper(p.next().text)
			p.expectKw("JOIN")
		case p.peek().is("LEFT") || p.peek().is("RIGHT") || p.peek().is("FULL"):
			kind = strings.ToUpper(p.next().text)
			p.acceptKw("OUTER")
			p.expectKw("JOIN")
		default:
			p.i = save
			return left
		}
		j := &Join{Kind: kind, Left: left, Right: p.tablePrimary()}
		if p.acceptKw("ON") {
			j.On = p.expr()
		} else if p.acceptKw("USING") {
			j.Using = p.identList()
		}
		left = j
	}
}

func (p *parser) tablePrimary() TableExpr {
	p.enter()
	defer p.leave()
	pos := p.pos()
	var t TableExpr
	lateral := p.acceptKw("LATERAL")
	switch {
	case p.peek().is("TABLE") && p.peekN(1).isP("("):
		p.next()
		p.expectP("(")
		call := p.expr()
		p.expectP(")")
		t = &TableFunc{Pos: pos, Call: call, Alias: p.relAlias()}
	case p.peek().is("UNNEST") && p.peekN(1).isP("("):
		p.next()
		u := &Unnest{Pos: pos, Args: p.exprList()}
		if p.peek().is("WITH") && p.peekN(1).is("ORDINALITY") {
			p.next()
			p.next()
			u.Ordinality = true
		}
		u.Alias = p.relAlias()
		t = u
	case p.peek().isP("("):
		if p.startsQuery(1) && !p.parenJoin() {
			p.next()
			q := p.query()
			p.expectP(")")
			t = &Derived{Pos: pos, Query: q, Alias: p.relAlias()}
		} else {
			p.next()
			t = p.fromList()
			p.expectP(")")
		}
	default:
		if lateral {
			p.fail("expected TABLE(...) or a subquery after LATERAL, found %s", p.peek())
		}
		r := &TableRef{Pos: pos, Name: p.name()}
		if p.peek().is("FOR") && p.peekN(1).is("SYSTEM_TIME") {
			p.next()
			p.next()
			p.expectKw("AS")
			p.expectKw("OF")
			r.AsOf = p.expr()
		}
		r.Alias = p.relAlias()
		t = r
	}
	if p.peek().is("MATCH_RECOGNIZE") {
		t = p.matchRecognize(t)
	}
	return t
}

// parenJoin reports whether "(" starts a parenthesised join whose first relation is a
// subquery: ((SELECT ...) a JOIN b ON ...). A subquery ends at its ")" and is then
// followed by ")" or an alias, never by JOIN.
func (p *parser) parenJoin() bool {
	if !p.peekN(1).isP("(") {
		return false
	}
	depth := 0
	for k := 0; p.i+k < len(p.toks); k++ {
		t := p.peekN(k)
		switch {
		case t.kind == tEOF:
			return false
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
			if depth == 1 {
				// end of the inner parenthesis: a join follows only in a paren join
				nt := p.peekN(k + 1)
				if nt.is("AS") || nt.kind == tIdent && !isReserved(nt) || nt.kind == tQuoted {
					nt = p.peekN(k + 2)
				}
				return nt.is("JOIN") || nt.is("LEFT") || nt.is("INNER") || nt.is("CROSS") || nt.is("RIGHT") || nt.is("FULL") || nt.isP(",")
			}
			if depth == 0 {
				return false
			}
		}
	}
	return false
}

func (p *parser) matchRecognize(input TableExpr) TableExpr {
	m := &Match{Pos: p.pos(), Input: input}
	p.next()
	p.expectP("(")
	for !p.acceptP(")") {
		switch {
		case p.acceptKw("PARTITION"):
			p.expectKw("BY")
			m.Partition = p.exprsUntilClause()
		case p.peek().is("ORDER"):
			m.OrderBy = p.orderBy()
		case p.acceptKw("MEASURES"):
			for {
				it := SelectItem{Pos: p.pos(), Expr: p.expr()}
				it.Alias = p.alias()
				m.Measures = append(m.Measures, it)
				if !p.acceptP(",") {
					break
				}
			}
		case p.acceptKw("ONE"):
			p.expectKw("ROW")
			p.expectKw("PER")
			p.expectKw("MATCH")
		case p.acceptKw("ALL"):
			p.expectKw("ROWS")
			p.expectKw("PER")
			p.expectKw("MATCH")
			m.AllRows = true
		case p.acceptKw("AFTER"):
			p.expectKw("MATCH")
			p.expectKw("SKIP")
			for !p.peek().is("PATTERN") && !p.at(tEOF) && !p.peek().isP(")") {
				p.next()
			}
		case p.acceptKw("PATTERN"):
			p.skipParens()
		case p.acceptKw("WITHIN"):
			p.expr()
		case p.acceptKw("SUBSET"):
			for {
				p.ident()
				p.expectP("=")
				p.skipParens()
				if !p.acceptP(",") {
					break
				}
			}
		case p.acceptKw("DEFINE"):
			for {
				d := Define{Var: p.ident()}
				p.expectKw("AS")
				d.Cond = p.expr()
				m.Define = append(m.Define, d)
				if !p.acceptP(",") {
					break
				}
			}
		default:
			p.fail("expected a MATCH_RECOGNIZE clause (PARTITION BY, ORDER BY, MEASURES, PATTERN, DEFINE, ...), found %s", p.peek())
		}
	}
	m.Alias = p.relAlias()
	return m
}

func (p *parser) exprsUntilClause() []*Expr {
	var out []*Expr
	for {
		out = append(out, p.expr())
		if !p.acceptP(",") {
			return out
		}
	}
}

// exprList reads ( e, e, ... ).
func (p *parser) exprList() []*Expr {
	p.expectP("(")
	var out []*Expr
	if p.acceptP(")") {
		return out
	}
	out = p.exprsUntilClause()
	p.expectP(")")
	return out
}

func (p *parser) windowSpec() *WindowSpec {
	w := &WindowSpec{}
	if !p.peek().isP("(") {
		w.Ref = p.ident()
		return w
	}
	p.expectP("(")
	p.enter()
	defer p.leave()
	if t := p.peek(); (t.kind == tIdent && !isReserved(t)) || t.kind == tQuoted {
		w.Ref = p.ident()
	}
	if p.acceptKw("PARTITION") {
		p.expectKw("BY")
		w.Partition = p.exprsUntilClause()
	}
	if p.peek().is("ORDER") {
		w.OrderBy = p.orderBy()
	}
	// frame: ROWS|RANGE BETWEEN ... AND ...; bounds read no columns
	depth := 0
	for {
		t := p.peek()
		if t.kind == tEOF {
			p.fail("an OVER window is never closed; add )")
		}
		if t.isP(")") && depth == 0 {
			break
		}
		if t.isP("(") {
			depth++
		} else if t.isP(")") {
			depth--
		}
		p.next()
	}
	p.expectP(")")
	return w
}
