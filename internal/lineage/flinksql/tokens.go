package flinksql

import (
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/checker/located"
)

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekN(k int) token {
	if p.i+k >= len(p.toks) {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.i+k]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) at(k tokKind) bool { return p.toks[p.i].kind == k }

func (p *parser) pos() Pos { t := p.peek(); return Pos{t.line, t.col} }

func (p *parser) acceptKw(kw string) bool {
	if p.peek().is(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptP(s string) bool {
	if p.peek().isP(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) {
	if !p.acceptKw(kw) {
		p.fail("expected %s, found %s", kw, p.peek())
	}
}

func (p *parser) expectP(s string) {
	if !p.acceptP(s) {
		p.fail("expected %q, found %s", s, p.peek())
	}
}

func (p *parser) expect(k tokKind) token {
	if !p.at(k) {
		want := map[tokKind]string{tString: "a string literal", tNumber: "a number"}[k]
		p.fail("expected %s, found %s", want, p.peek())
	}
	return p.next()
}

// ident reads an identifier: a word or a quoted identifier.
func (p *parser) ident() string {
	t := p.peek()
	if t.kind != tIdent && t.kind != tQuoted {
		p.fail("expected a name, found %s", t)
	}
	p.i++
	return t.text
}

// name reads a dotted object name.
func (p *parser) name() Name {
	n := Name{p.ident()}
	for p.peek().isP(".") && (p.peekN(1).kind == tIdent || p.peekN(1).kind == tQuoted) {
		p.i++
		n = append(n, p.ident())
	}
	return n
}

// identList reads ( a, b, c ).
func (p *parser) identList() []string {
	p.expectP("(")
	var out []string
	for {
		out = append(out, p.ident())
		if !p.acceptP(",") {
			break
		}
	}
	p.expectP(")")
	return out
}

func (p *parser) fail(format string, args ...any) {
	p.failAt(p.peek(), format, args...)
}

func (p *parser) failAt(t token, format string, args ...any) {
	panic(bail{&Error{Span: located.Span{File: p.file, Line: t.line, Column: t.col}, Message: fmt.Sprintf(format, args...)}})
}

func (p *parser) enter() {
	p.depth++
	if p.depth > MaxDepth {
		p.fail("nesting deeper than %d levels (parentheses, subqueries or operators); simplify the statement", MaxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// reserved are words that end an expression or a relation: never an alias, never a
// column name unless quoted.
var reserved = wordSet(`ALL AND AS ASC BETWEEN BY CASE CROSS CURRENT DEFINE DESC DISTINCT ELSE END
ESCAPE EXCEPT EXISTS FETCH FILTER FOR FROM FULL GROUP HAVING IN INNER INTERSECT INTO IS JOIN
LATERAL LEFT LIKE LIMIT MATCH_RECOGNIZE MEASURES MINUS NATURAL NOT NULL OFFSET ON OR ORDER
OUTER OVER PARTITION PATTERN QUALIFY RIGHT SELECT SET SIMILAR TABLESAMPLE THEN UNION USING
VALUES WHEN WHERE WINDOW WITH WITHIN AFTER ONE ROWS RANGE`)

// timeUnits are the unit words of INTERVAL, EXTRACT, TIMESTAMPADD, CEIL(... TO ...).
var timeUnits = wordSet(`YEAR YEARS QUARTER QUARTERS MONTH MONTHS WEEK WEEKS DAY DAYS HOUR HOURS
MINUTE MINUTES SECOND SECONDS MILLISECOND MILLISECONDS MICROSECOND MICROSECONDS NANOSECOND
NANOSECONDS EPOCH DOW DOY DECADE CENTURY MILLENNIUM ISODOW ISOYEAR SQL_TSI_YEAR SQL_TSI_QUARTER
SQL_TSI_MONTH SQL_TSI_WEEK SQL_TSI_DAY SQL_TSI_HOUR SQL_TSI_MINUTE SQL_TSI_SECOND`)

// niladic are functions called without parentheses.
var niladic = wordSet(`CURRENT_TIMESTAMP CURRENT_DATE CURRENT_TIME LOCALTIME LOCALTIMESTAMP
CURRENT_ROW_TIMESTAMP CURRENT_WATERMARK USER CURRENT_USER SESSION_USER CURRENT_CATALOG
CURRENT_DATABASE CURRENT_SCHEMA UNKNOWN`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func isReserved(t token) bool { return t.kind == tIdent && reserved[strings.ToUpper(t.text)] }

func isTimeUnit(t token) bool { return t.kind == tIdent && timeUnits[strings.ToUpper(t.text)] }
