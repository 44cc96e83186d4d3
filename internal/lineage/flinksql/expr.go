package flinksql

import "strings"

// expr parses an expression. Binary operators of one kind are kept as one n-ary call
// (a + b + c), so long chains cost no depth.
func (p *parser) expr() *Expr {
	p.enter()
	defer p.leave()
	return p.orExpr()
}

func binary(op string, pos Pos, l, r *Expr) *Expr {
	if l.Kind == ECall && l.Name == op && l.Over == nil {
		l.Args = append(l.Args, r)
		return l
	}
	return &Expr{Pos: pos, Kind: ECall, Name: op, Args: []*Expr{l, r}}
}

func (p *parser) orExpr() *Expr {
	l := p.andExpr()
	for p.peek().is("OR") {
		pos := p.pos()
		p.next()
		l = binary("OR", pos, l, p.andExpr())
	}
	return l
}

func (p *parser) andExpr() *Expr {
	l := p.notExpr()
	for p.peek().is("AND") {
		pos := p.pos()
		p.next()
		l = binary("AND", pos, l, p.notExpr())
	}
	return l
}

func (p *parser) notExpr() *Expr {
	if p.peek().is("NOT") {
		pos := p.pos()
		p.next()
		p.enter()
		defer p.leave()
		return &Expr{Pos: pos, Kind: ECall, Name: "NOT", Args: []*Expr{p.notExpr()}}
	}
	return p.predicate()
}

var comparisons = map[string]bool{"=": true, "==": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

func (p *parser) predicate() *Expr {
	l := p.additive()
	for {
		t := p.peek()
		pos := p.pos()
		not := false
		if t.is("NOT") && (p.peekN(1).is("BETWEEN") || p.peekN(1).is("IN") || p.peekN(1).is("LIKE") || p.peekN(1).is("SIMILAR") || p.peekN(1).is("RLIKE") || p.peekN(1).is("REGEXP")) {
			p.next()
			t, not = p.peek(), true
		}
		_ = not
		switch {
		case t.kind == tPunct && comparisons[t.text]:
			p.next()
			if p.peek().is("ANY") || p.peek().is("ALL") || p.peek().is("SOME") {
				p.next()
			}
			l = binary(t.text, pos, l, p.additive())
		case t.is("IS"):
			p.next()
			p.acceptKw("NOT")
			switch {
			case p.acceptKw("DISTINCT"):
				p.expectKw("FROM")
				l = binary("IS DISTINCT FROM", pos, l, p.additive())
			case p.acceptKw("JSON"):
				for p.peek().is("VALUE") || p.peek().is("OBJECT") || p.peek().is("ARRAY") || p.peek().is("SCALAR") {
					p.next()
				}
			default:
				if !(p.acceptKw("NULL") || p.acceptKw("TRUE") || p.acceptKw("FALSE") || p.acceptKw("UNKNOWN")) {
					p.fail("expected NULL, TRUE, FALSE, UNKNOWN, DISTINCT FROM or JSON after IS, found %s", p.peek())
				}
			}
		case t.is("BETWEEN"):
			p.next()
			if !p.acceptKw("SYMMETRIC") {
				p.acceptKw("ASYMMETRIC")
			}
			lo := p.additive()
			p.expectKw("AND")
			hi := p.additive()
			l = &Expr{Pos: pos, Kind: ECall, Name: "BETWEEN", Args: []*Expr{l, lo, hi}}
		case t.is("IN") && p.peekN(1).isP("("):
			p.next()
			var r *Expr
			if p.startsQuery(1) && !p.peekN(1).isP("(") {
				r = p.primary()
			} else {
				r = &Expr{Pos: p.pos(), Kind: ECall, Name: "ROW", Args: p.exprList()}
			}
			l = binary("IN", pos, l, r)
		case t.is("LIKE") || t.is("RLIKE") || t.is("REGEXP") || t.is("SIMILAR"):
			p.next()
			if strings.EqualFold(t.text, "SIMILAR") {
				p.expectKw("TO")
			}
			l = binary("LIKE", pos, l, p.additive())
			if p.acceptKw("ESCAPE") {
				p.additive()
			}
		default:
			return l
		}
	}
}

func (p *parser) additive() *Expr {
	l := p.multiplicative()
	for {
		t := p.peek()
		if !(t.isP("+") || t.isP("-") || t.isP("||")) {
			return l
		}
		p.next()
		l = binary(t.text, Pos{t.line, t.col}, l, p.multiplicative())
	}
}

func (p *parser) multiplicative() *Expr {
	l := p.unary()
	for {
		t := p.peek()
		if !(t.isP("*") || t.isP("/") || t.isP("%")) {
			return l
		}
		p.next()
		l = binary(t.text, Pos{t.line, t.col}, l, p.unary())
	}
}

func (p *parser) unary() *Expr {
	if t := p.peek(); t.isP("-") || t.isP("+") || t.isP("~") {
		p.next()
		p.enter()
		defer p.leave()
		return &Expr{Pos: Pos{t.line, t.col}, Kind: ECall, Name: "NEG", Args: []*Expr{p.unary()}}
	}
	return p.postfix(p.primary())
}

func (p *parser) postfix(e *Expr) *Expr {
	for {
		switch {
		case p.peek().isP(".") && (p.peekN(1).kind == tIdent || p.peekN(1).kind == tQuoted):
			p.next()
			name := p.next().text
			switch e.Kind {
			case ERef, EField:
				e.Parts = append(e.Parts, name)
			default:
				e = &Expr{Pos: e.Pos, Kind: EField, Parts: []string{name}, Args: []*Expr{e}}
			}
		case p.peek().isP("["):
			p.next()
			idx := p.expr()
			p.expectP("]")
			e = &Expr{Pos: e.Pos, Kind: EIndex, Args: []*Expr{e, idx}}
		case e.Kind == ERef && p.peek().isP("("):
			// a qualified function name: cat.db.fn(args)
			e = p.call(e.Pos, e.Parts[len(e.Parts)-1])
		default:
			return e
		}
	}
}

var literalWords = wordSet(`TRUE FALSE NULL UNKNOWN`)

// strictUnits are reserved time-unit words: never a column name unless quoted.
var strictUnits = wordSet(`YEAR YEARS MONTH MONTHS DAY DAYS HOUR HOURS MINUTE MINUTES SECOND SECONDS`)

func (p *parser) primary() *Expr {
	t := p.peek()
	pos := Pos{t.line, t.col}
	up := strings.ToUpper(t.text)
	switch {
	case t.kind == tNumber, t.kind == tString:
		p.next()
		return &Expr{Pos: pos, Kind: ELit}
	case t.isP("?"):
		p.next()
		return &Expr{Pos: pos, Kind: ELit}
	case t.isP("("):
		if p.startsQuery(1) && !p.peekN(1).isP("(") || p.peekN(1).is("SELECT") || p.peekN(1).is("WITH") {
			p.next()
			q := p.query()
			p.expectP(")")
			return &Expr{Pos: pos, Kind: ESubquery, Query: q}
		}
		p.enter()
		defer p.leave()
		args := p.exprList()
		if len(args) == 1 {
			return args[0]
		}
		return &Expr{Pos: pos, Kind: ECall, Name: "ROW", Args: args}
	case t.kind == tQuoted:
		p.next()
		return &Expr{Pos: pos, Kind: ERef, Parts: []string{t.text}}
	case t.kind != tIdent:
		p.fail("expected an expression, found %s", t)
	}
	// words
	next := p.peekN(1)
	switch {
	case up == "CASE":
		return p.caseExpr()
	case up == "EXISTS" && next.isP("("):
		p.next()
		p.expectP("(")
		q := p.query()
		p.expectP(")")
		return &Expr{Pos: pos, Kind: ESubquery, Name: "EXISTS", Query: q}
	case up == "INTERVAL":
		p.next()
		v := p.unary()
		p.intervalUnits()
		return &Expr{Pos: pos, Kind: ECall, Name: "INTERVAL", Args: []*Expr{v}}
	case (up == "DATE" || up == "TIME" || up == "TIMESTAMP" || up == "TIMESTAMP_LTZ") && next.kind == tString:
		p.next()
		p.next()
		return &Expr{Pos: pos, Kind: ELit}
	case (up == "ARRAY" || up == "MAP") && next.isP("["):
		p.next()
		p.next()
		var args []*Expr
		if !p.peek().isP("]") {
			args = p.exprsUntilClause()
		}
		p.expectP("]")
		return &Expr{Pos: pos, Kind: ECall, Name: up, Args: args}
	case literalWords[up] && !next.isP("("):
		p.next()
		return &Expr{Pos: pos, Kind: ELit}
	case next.isP("("):
		p.next()
		return p.call(pos, t.text)
	case niladic[up], strictUnits[up]:
		p.next()
		return &Expr{Pos: pos, Kind: ELit}
	case isReserved(t):
		p.fail("expected an expression, found the keyword %s", strings.ToUpper(t.text))
	}
	p.next()
	return &Expr{Pos: pos, Kind: ERef, Parts: []string{t.text}}
}

func (p *parser) intervalUnits() {
	for isTimeUnit(p.peek()) {
		p.next()
		if p.peek().isP("(") {
			p.skipParens()
		}
		if !p.acceptKw("TO") {
			return
		}
	}
}

func (p *parser) caseExpr() *Expr {
	e := &Expr{Pos: p.pos(), Kind: ECase}
	p.next()
	if !p.peek().is("WHEN") {
		e.Args = append(e.Args, p.expr())
	}
	for p.acceptKw("WHEN") {
		e.Args = append(e.Args, p.expr())
		p.expectKw("THEN")
		e.Args = append(e.Args, p.expr())
	}
	if p.acceptKw("ELSE") {
		e.Args = append(e.Args, p.expr())
	}
	p.expectKw("END")
	return e
}

// soup are keywords inside function arguments that separate operands:
// SUBSTRING(s FROM 1 FOR 2), TRIM(BOTH ' ' FROM s), POSITION(a IN b), JSON_VALUE(x, '$.a'
// DEFAULT 0 ON EMPTY), JSON_QUERY(x, '$' WITH ARRAY WRAPPER), JSON_ARRAY(a NULL ON NULL).
var soup = wordSet(`FROM FOR IN TO ON EMPTY ERROR WITH WITHOUT WRAPPER CONDITIONAL UNCONDITIONAL
BOTH LEADING TRAILING ABSENT PLACING DEFAULT SEPARATOR USING ASC DESC NULLS FORMAT JSON
ENCODING UTF8 UTF16 UTF32 OBJECT SCALAR DISTINCT ALL ORDER BY`)

// unitFuncs take a time unit as an argument.
var unitFuncs = wordSet(`EXTRACT TIMESTAMPADD TIMESTAMPDIFF CEIL CEILING FLOOR DATE_TRUNC TRUNCATE`)

// call parses the arguments and suffixes of a function call; the name was read.
func (p *parser) call(pos Pos, name string) *Expr {
	e := &Expr{Pos: pos, Kind: ECall, Name: strings.ToUpper(name)}
	p.enter()
	defer p.leave()
	p.expectP("(")
	jsonFn := strings.HasPrefix(e.Name, "JSON_")
	unitFn := unitFuncs[e.Name]
	for !p.peek().isP(")") {
		slotStart := true
		for {
			t := p.peek()
			up := strings.ToUpper(t.text)
			next := p.peekN(1)
			switch {
			case t.kind == tEOF:
				p.fail("the arguments of %s are never closed; add )", e.Name)
			case t.isP(",") || t.isP(")"):
			case slotStart && (t.kind == tIdent || t.kind == tQuoted) && next.isP("=>"):
				p.next()
				p.next()
				continue
			case t.isP("*"):
				p.next()
				e.Args = append(e.Args, &Expr{Pos: Pos{t.line, t.col}, Kind: EStar})
			case t.kind == tIdent && (up == "AS" || up == "RETURNING"):
				p.next()
				p.dataType()
			case t.kind == tIdent && up == "TABLE" && (next.kind == tIdent || next.kind == tQuoted || next.isP("(")):
				e.Args = append(e.Args, p.tableArg())
			case t.kind == tIdent && up == "DESCRIPTOR" && next.isP("("):
				p.next()
				d := &Expr{Pos: Pos{t.line, t.col}, Kind: EDescriptor}
				for _, n := range p.identList() {
					d.Args = append(d.Args, &Expr{Pos: d.Pos, Kind: ERef, Parts: []string{n}})
				}
				e.Args = append(e.Args, d)
			case t.kind == tIdent && up == "PARTITION" && next.is("BY"):
				p.next()
				p.next()
				// one key, or several in parentheses: PARTITION BY (a, b)
				part := []*Expr{p.expr()}
				if k := part[0]; k.Kind == ECall && k.Name == "ROW" {
					part = k.Args
				}
				if n := len(e.Args); n > 0 && e.Args[n-1].Kind == ETable {
					e.Args[n-1].Partition = part
				} else {
					e.Args = append(e.Args, part...)
				}
			case t.kind == tIdent && !next.isP("(") && !next.isP(".") && (soup[up] || jsonFn && (up == "KEY" || up == "VALUE" || up == "ARRAY" || up == "NULL")):
				p.next()
				if up == "TO" && isTimeUnit(p.peek()) || up == "NULLS" && (p.peek().is("FIRST") || p.peek().is("LAST")) {
					p.next()
				}
			case t.kind == tIdent && unitFn && isTimeUnit(t) && !next.isP("("):
				p.next()
			default:
				e.Args = append(e.Args, p.expr())
			}
			if p.peek().isP(",") || p.peek().isP(")") {
				break
			}
			slotStart = false
		}
		if !p.acceptP(",") {
			break
		}
	}
	p.expectP(")")
	for {
		switch {
		case p.peek().is("WITHIN") && p.peekN(1).is("GROUP"):
			p.next()
			p.next()
			p.expectP("(")
			e.Args = append(e.Args, p.orderBy()...)
			p.expectP(")")
		case p.peek().is("FILTER") && p.peekN(1).isP("("):
			p.next()
			p.next()
			p.expectKw("WHERE")
			e.Args = append(e.Args, p.expr())
			p.expectP(")")
		case (p.peek().is("RESPECT") || p.peek().is("IGNORE")) && p.peekN(1).is("NULLS"):
			p.next()
			p.next()
		case p.acceptKw("OVER"):
			e.Over = p.windowSpec()
			return e
		default:
			return e
		}
	}
}

// tableArg parses TABLE name | TABLE (query) inside a table function call.
func (p *parser) tableArg() *Expr {
	pos := p.pos()
	p.next() // TABLE
	e := &Expr{Pos: pos, Kind: ETable}
	if p.peek().isP("(") {
		p.next()
		e.Table = &Derived{Pos: pos, Query: p.query()}
		p.expectP(")")
	} else {
		e.Table = &TableRef{Pos: pos, Name: p.name()}
	}
	return e
}
