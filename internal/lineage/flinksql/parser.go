package flinksql

import (
	"fmt"
	"strings"

	"github.com/contractbot/contractbot/checker/located"
)

// MaxDepth bounds the nesting of parentheses, subqueries and expressions; deeper input
// is refused with a located error instead of exhausting the stack.
const MaxDepth = 200

// MaxSize bounds the size of one script in bytes.
const MaxSize = 16 << 20

type parser struct {
	file  string
	toks  []token
	i     int
	depth int
	// marker is set by a statement that needs no semicolon (EXECUTE STATEMENT SET BEGIN).
	marker bool
	sets   [][2]string
}

// bail is panicked with a located error and recovered per statement.
type bail struct{ err *Error }

// Parse parses one Flink SQL script. Statements that do not parse are reported in
// Script.Errors (with file, line and column) and skipped up to their semicolon; the
// rest of the script is still parsed.
func Parse(file, src string) *Script {
	s := &Script{File: file}
	if len(src) > MaxSize {
		s.Errors = append(s.Errors, &Error{Span: located.Span{File: file, Line: 1, Column: 1},
			Message: fmt.Sprintf("the script is %d bytes, more than the %d this parser reads; split it", len(src), MaxSize)})
		return s
	}
	toks, lerr := lex(file, src)
	if lerr != nil {
		s.Errors = append(s.Errors, lerr)
		return s
	}
	p := &parser{file: file, toks: toks}
	for !p.at(tEOF) {
		if p.acceptP(";") {
			continue
		}
		start := p.i
		st, err := p.statementSafe()
		if err != nil {
			s.Errors = append(s.Errors, err)
			if p.i == start {
				p.i++
			}
			p.skipStatement()
			continue
		}
		if st != nil {
			s.Stmts = append(s.Stmts, st)
		}
	}
	s.Sets = p.sets
	return s
}

func (p *parser) statementSafe() (st Stmt, err *Error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			st, err = nil, b.err
		}
	}()
	p.depth, p.marker = 0, false
	st = p.statement()
	if !p.marker && !p.at(tEOF) && !p.peek().isP(";") && !p.peek().is("END") && !p.newStatementLine() {
		p.fail("expected ; after the statement, found %s", p.peek())
	}
	return st, nil
}

// statementWords start a statement. Scripts written for tools that split statements
// themselves often leave out the semicolons: a line that starts with one of these
// after a complete statement starts the next statement.
var statementWords = wordSet(`CREATE INSERT SET RESET USE DROP ALTER EXECUTE BEGIN SHOW
DESCRIBE EXPLAIN LOAD UNLOAD ADD REMOVE SELECT WITH REPLACE ANALYZE CALL TRUNCATE COMPILE`)

// newStatementLine reports whether the next token is a statement word that starts its
// line.
func (p *parser) newStatementLine() bool {
	t := p.peek()
	return t.kind == tIdent && statementWords[strings.ToUpper(t.text)] && p.i > 0 && p.toks[p.i-1].line < t.line
}

// skipStatement moves past the next semicolon outside parentheses, or up to a line
// that starts a statement.
func (p *parser) skipStatement() {
	depth := 0
	for !p.at(tEOF) {
		if depth == 0 && p.newStatementLine() {
			return
		}
		t := p.next()
		switch {
		case t.isP("("):
			depth++
		case t.isP(")"):
			if depth > 0 {
				depth--
			}
		case t.isP(";") && depth == 0:
			return
		}
	}
}

func (p *parser) statement() Stmt {
	t := p.peek()
	switch {
	case t.is("CREATE"):
		return p.create()
	case t.is("INSERT"):
		return p.insert()
	case t.is("EXECUTE"):
		p.next()
		switch p.expectWord("EXECUTE", "INSERT", "STATEMENT", "PLAN") {
		case "INSERT":
			p.i--
			return p.insert()
		case "STATEMENT":
			p.statementSet()
			return nil
		}
		// EXECUTE PLAN 'file': the plan's lineage is in the file COMPILE PLAN wrote
		p.expect(tString)
		return nil
	case t.is("COMPILE"):
		return p.compilePlan()
	case t.is("BEGIN") && p.peekN(1).is("STATEMENT"):
		p.next()
		p.next()
		p.statementSet()
		return nil
	case t.is("END"):
		p.next()
		return nil
	case t.is("WITH") && p.withInsert():
		return p.withInsertStmt()
	case t.is("REPLACE") && p.peekN(1).is("TABLE"):
		pos := p.pos()
		p.next()
		p.next()
		return p.createTable(pos)
	}
	// SET, RESET, USE, ADD JAR, LOAD MODULE, DROP, ALTER, SHOW, DESCRIBE, EXPLAIN, a
	// bare SELECT: nothing to learn about lineage, once their leading words are known.
	p.other()
	return nil
}

// statementSet reads SET [BEGIN] after EXECUTE STATEMENT or BEGIN STATEMENT: the
// INSERTs inside are parsed as statements of their own, up to END.
func (p *parser) statementSet() {
	p.expectKw("SET")
	p.acceptKw("BEGIN")
	p.marker = true
}

// withInsertStmt reads WITH cte AS (...) INSERT INTO ...: the CTEs belong to the
// INSERT's query.
func (p *parser) withInsertStmt() Stmt {
	p.next()
	with := p.ctes()
	ins := p.insert().(*Insert)
	ins.Query.With = append(with, ins.Query.With...)
	return ins
}

// compilePlan reads COMPILE [AND EXECUTE] PLAN 'file' [IF NOT EXISTS] FOR followed by
// an INSERT or a statement set, whose INSERTs are the plan's.
func (p *parser) compilePlan() Stmt {
	p.next()
	if p.acceptKw("AND") {
		p.expectKw("EXECUTE")
	}
	p.expectKw("PLAN")
	p.expect(tString)
	p.ifNotExists()
	p.expectKw("FOR")
	switch {
	case p.peek().is("INSERT"):
		return p.insert()
	case p.peek().is("WITH") && p.withInsert():
		return p.withInsertStmt()
	case p.acceptKw("EXECUTE"):
		if p.peek().is("INSERT") {
			return p.insert()
		}
	}
	p.expectWord("COMPILE PLAN ... FOR", "INSERT", "STATEMENT")
	p.statementSet()
	return nil
}

func (p *parser) skipToSemicolon() {
	depth := 0
	start := p.i
	for !p.at(tEOF) {
		t := p.peek()
		if depth == 0 && (t.isP(";") || p.i > start && p.newStatementLine()) {
			return
		}
		p.next()
		if t.isP("(") {
			depth++
		} else if t.isP(")") && depth > 0 {
			depth--
		}
	}
}

func (p *parser) create() Stmt {
	pos := p.pos()
	p.next() // CREATE
	p.modifiers()
	switch p.expectWord("CREATE", objectWords...) {
	case "TABLE":
		return p.createTable(pos)
	case "EXTERNAL", "MATERIALIZED":
		p.expectKw("TABLE")
		return p.createTable(pos)
	case "VIEW":
		return p.createView(pos)
	case "DATABASE", "SCHEMA":
		return p.createDatabase(pos)
	}
	p.skipToSemicolon() // FUNCTION, CATALOG, MODEL, ...
	return nil
}

// createDatabase reads CREATE DATABASE; with AS DATABASE (Alibaba's CDAS) it copies
// tables of a source database.
func (p *parser) createDatabase(pos Pos) Stmt {
	p.ifNotExists()
	cd := &CreateDatabaseAs{Pos: pos, Name: p.name()}
	for {
		switch {
		case p.acceptKw("COMMENT"):
			p.expect(tString)
		case p.acceptKw("WITH"):
			p.options()
		case p.acceptKw("AS"):
			p.expectKw("DATABASE")
			cd.Source = p.name()
			p.expectKw("INCLUDING")
			if p.acceptKw("ALL") {
				p.expectKw("TABLES")
			} else {
				p.expectKw("TABLE")
				cd.Including = p.expect(tString).text
			}
			if p.acceptKw("EXCLUDING") {
				p.expectKw("TABLE")
				cd.Excluding = p.expect(tString).text
			}
			return cd
		default:
			p.skipToSemicolon() // CREATE DATABASE without AS (Hive's LOCATION, ...): nothing to learn
			return nil
		}
	}
}

func (p *parser) ifNotExists() {
	if p.peek().is("IF") {
		p.next()
		p.expectKw("NOT")
		p.expectKw("EXISTS")
	}
}

func (p *parser) createTable(pos Pos) Stmt {
	p.ifNotExists()
	ct := &CreateTable{Pos: pos, Name: p.name()}
	if p.acceptP("(") {
		for {
			p.tableElement(ct)
			if !p.acceptP(",") {
				break
			}
		}
		p.expectP(")")
	}
	for {
		switch {
		case p.acceptKw("COMMENT"):
			p.expect(tString)
		case p.peek().is("DISTRIBUTED") && p.peekN(1).is("INTO"):
			p.next()
			p.next()
			p.expect(tNumber)
			p.expectKw("BUCKETS")
		case p.peek().is("PARTITIONED") || p.peek().is("DISTRIBUTED"):
			p.next()
			p.expectKw("BY")
			p.acceptKw("HASH")
			p.acceptKw("RANGE")
			p.skipParens()
			if p.acceptKw("INTO") {
				p.expect(tNumber)
				p.expectKw("BUCKETS")
			}
		case p.acceptKw("WITH"):
			ct.Options = p.options()
		case p.acceptKw("LIKE"):
			ct.Like = p.name()
			if p.peek().isP("(") {
				p.skipParens()
			}
		case p.acceptKw("FRESHNESS"): // CREATE MATERIALIZED TABLE
			p.expectP("=")
			p.expr()
		case p.acceptKw("REFRESH_MODE"):
			p.expectP("=")
			p.ident()
		case p.acceptKw("AS"):
			if p.acceptKw("TABLE") {
				// Alibaba's CREATE TABLE ... AS TABLE source [ADD COLUMN ...]: the
				// source's columns, as SELECT * would give them
				ct.As = selectStar(p.pos(), p.name())
				p.skipToSemicolon()
				return ct
			}
			ct.As = p.query()
			return ct
		case hiveTail[strings.ToUpper(p.peek().text)] && p.peek().kind == tIdent:
			// Hive dialect: STORED AS, TBLPROPERTIES, LOCATION, ROW FORMAT ...
			p.skipToSemicolon()
			return ct
		default:
			return ct
		}
	}
}

var hiveTail = wordSet(`STORED TBLPROPERTIES LOCATION ROW CLUSTERED SORTED SKEWED LIFECYCLE`)

func (p *parser) tableElement(ct *CreateTable) {
	switch {
	case p.peek().is("WATERMARK"):
		p.next()
		p.expectKw("FOR")
		p.ident()
		p.expectKw("AS")
		p.expr()
		return
	case p.peek().is("CONSTRAINT") && p.peekN(2).is("PRIMARY"), p.peek().is("PRIMARY"):
		if p.acceptKw("CONSTRAINT") {
			p.ident()
		}
		ct.KeyPos = p.pos()
		p.next()
		p.expectKw("KEY")
		ct.PrimaryKey = p.identList()
		p.acceptKw("NOT")
		p.acceptKw("ENFORCED")
		return
	case p.peek().is("CONSTRAINT"), p.peek().is("PERIOD"):
		for !p.at(tEOF) && !p.peek().isP(",") && !p.peek().isP(")") {
			if p.peek().isP("(") {
				p.skipParens()
				continue
			}
			p.next()
		}
		return
	}
	c := ColumnDef{Pos: p.pos(), Name: p.ident()}
	if p.peek().isP(",") || p.peek().isP(")") {
		// CREATE TABLE t (b, a) AS SELECT a, b: a name only orders the query's columns
		ct.Columns = append(ct.Columns, c)
		return
	}
	if p.acceptKw("AS") {
		c.Computed = p.expr()
	} else {
		c.Type = p.dataType()
	}
	for {
		switch {
		case p.acceptKw("METADATA"):
			c.Metadata = true
			if p.acceptKw("FROM") {
				c.MetaKey = p.next().text // 'key' (or a quoted identifier, which Flink refuses but people write)
			}
		case p.acceptKw("VIRTUAL"):
			c.Virtual = true
		case p.acceptKw("COMMENT"):
			p.expect(tString)
		case p.acceptKw("NOT"):
			p.acceptKw("NULL")
			p.acceptKw("ENFORCED")
		case p.acceptKw("NULL"), p.acceptKw("ENFORCED"):
		case p.peek().is("PRIMARY"):
			ct.KeyPos = p.pos()
			p.next()
			p.expectKw("KEY")
			ct.PrimaryKey = []string{c.Name}
		case p.acceptKw("CONSTRAINT"):
			p.ident()
		default:
			ct.Columns = append(ct.Columns, c)
			return
		}
	}
}

func (p *parser) options() [][2]string {
	var opts [][2]string
	p.expectP("(")
	for !p.peek().isP(")") {
		k := p.optionKey()
		p.acceptP("=")
		v := p.next()
		opts = append(opts, [2]string{k, v.text})
		if !p.acceptP(",") {
			break
		}
	}
	p.expectP(")")
	return opts
}

// optionKey reads 'key' or an unquoted dotted key (properties.bootstrap.servers).
func (p *parser) optionKey() string {
	if p.peek().kind == tString {
		return p.next().text
	}
	var b strings.Builder
	for !p.at(tEOF) && !p.peek().isP("=") && !p.peek().isP(",") && !p.peek().isP(")") {
		b.WriteString(p.next().text)
	}
	return b.String()
}

func (p *parser) createView(pos Pos) Stmt {
	p.ifNotExists()
	v := &CreateView{Pos: pos, Name: p.name()}
	if p.peek().isP("(") {
		v.Columns = p.identList()
	}
	if p.acceptKw("COMMENT") {
		p.expect(tString)
	}
	p.expectKw("AS")
	v.Query = p.query()
	return v
}

func (p *parser) insert() Stmt {
	ins := &Insert{Pos: p.pos()}
	p.next() // INSERT
	if !p.acceptKw("INTO") {
		p.expectKw("OVERWRITE")
	}
	p.acceptKw("TABLE")
	ins.Table = p.name()
	if p.acceptKw("PARTITION") {
		p.expectP("(")
		for {
			k := p.ident()
			if p.acceptP("=") {
				p.expr()
				ins.Static = append(ins.Static, k)
			}
			if !p.acceptP(",") {
				break
			}
		}
		p.expectP(")")
	}
	if p.peek().isP("(") && !p.startsQuery(1) {
		ins.Columns = p.identList()
	}
	ins.Query = p.query()
	return ins
}

// withInsert reports whether a statement that starts with WITH is an INSERT: its
// parenthesised CTEs are followed by INSERT.
func (p *parser) withInsert() bool {
	depth := 0
	for k := 1; p.i+k < len(p.toks); k++ {
		t := p.peekN(k)
		switch {
		case t.kind == tEOF || t.isP(";") && depth == 0:
			return false
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		case depth == 0 && (t.is("INSERT") || t.is("SELECT")):
			return t.is("INSERT")
		}
	}
	return false
}

// startsQuery reports whether the token k ahead starts a query (SELECT, WITH, VALUES
// or another parenthesis).
func (p *parser) startsQuery(k int) bool {
	t := p.peekN(k)
	return t.is("SELECT") || t.is("WITH") || t.is("VALUES") || t.isP("(")
}

// dataType parses a type, keeping ROW field names and ARRAY/MAP element types.
func (p *parser) dataType() *Type {
	p.enter()
	defer p.leave()
	t := &Type{Pos: p.pos(), Name: strings.ToUpper(p.ident())}
	switch t.Name {
	case "ROW":
		if p.acceptP("<") {
			t.Fields = p.rowFields(">")
		} else if p.acceptP("(") {
			t.Fields = p.rowFields(")")
		}
	case "ARRAY", "MULTISET":
		if p.acceptP("<") {
			t.Elem = p.dataType()
			p.expectP(">")
		}
	case "MAP":
		if p.acceptP("<") {
			t.Key = p.dataType()
			p.expectP(",")
			t.Elem = p.dataType()
			p.expectP(">")
		}
	default:
		if p.peek().isP("(") {
			t.Params = p.typeParams()
		}
	}
	for {
		switch {
		case p.peek().is("WITH") || p.peek().is("WITHOUT"):
			if !p.peekN(1).is("LOCAL") && !p.peekN(1).is("TIME") {
				return t
			}
			t.LocalTZ = p.next().is("WITH") && p.peek().is("LOCAL")
			p.acceptKw("LOCAL")
			p.expectKw("TIME")
			p.expectKw("ZONE")
		case p.peek().is("VARYING"), p.peek().is("PRECISION"):
			p.next()
			if p.peek().isP("(") {
				p.skipParens() // CHARACTER VARYING(20)
			}
		case p.peek().is("TO") && t.Name == "INTERVAL" || isTimeUnit(p.peek()) && t.Name == "INTERVAL":
			p.next()
			if p.peek().isP("(") {
				p.skipParens()
			}
		case p.peek().is("NOT") && p.peekN(1).is("NULL"):
			p.next()
			p.next()
			t.NotNull = true
		case p.peek().is("ARRAY") || p.peek().is("MULTISET"):
			p.next()
			t = &Type{Name: "ARRAY", Elem: t}
		default:
			return t
		}
	}
}

func (p *parser) rowFields(closing string) []TypeField {
	var fs []TypeField
	for !p.peek().isP(closing) {
		f := TypeField{Pos: p.pos(), Name: p.ident()}
		f.Type = p.dataType()
		if p.peek().kind == tString { // a field comment
			p.next()
		}
		fs = append(fs, f)
		if !p.acceptP(",") {
			break
		}
	}
	p.expectP(closing)
	return fs
}

// typeParams reads a type's ( n {, n} ); RAW('class', 'snapshot') keeps its strings.
func (p *parser) typeParams() []string {
	start := p.i
	p.skipParens()
	var out []string
	for _, t := range p.toks[start+1 : p.i-1] {
		if !t.isP(",") {
			out = append(out, t.text)
		}
	}
	return out
}

// skipParens skips a balanced ( ... ).
func (p *parser) skipParens() {
	p.expectP("(")
	depth := 1
	for depth > 0 {
		t := p.next()
		switch {
		case t.kind == tEOF:
			p.failAt(t, "a parenthesis is never closed; add )")
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		}
	}
}
