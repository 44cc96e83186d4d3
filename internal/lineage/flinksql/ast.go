package flinksql

import (
	"cmp"
	"strings"
)

// Name is a possibly qualified object name: catalog.database.table.
type Name []string

func (n Name) String() string { return strings.Join(n, ".") }

// Pos is a 1-based line and column.
type Pos struct{ Line, Col int }

// Script is one parsed file: its statements in order and the errors of the statements
// that could not be parsed (each skipped up to its terminating semicolon).
type Script struct {
	File   string
	Stmts  []Stmt
	Errors []*Error
	// Sets are the options SET 'key' = 'value' sets, in order.
	Sets [][2]string
}

// Stmt is a statement that matters for lineage: *CreateTable, *CreateView, *Insert or
// *CreateDatabaseAs. Everything else (SET, USE, ADD JAR, CREATE FUNCTION, DROP,
// SELECT, ...) is skipped once its leading words are known.
type Stmt interface{ position() Pos }

// CreateTable is CREATE [TEMPORARY] TABLE, including LIKE and AS SELECT (CTAS).
type CreateTable struct {
	Pos
	Name    Name
	Columns []ColumnDef
	Options [][2]string // WITH ('k' = 'v', ...), in order
	Like    Name        // LIKE other
	As      *Query      // AS query
	// PrimaryKey is PRIMARY KEY (a, b) NOT ENFORCED, of the table or of a column.
	PrimaryKey []string
	KeyPos     Pos
}

// Option returns the value of a WITH option, or "".
func (c *CreateTable) Option(key string) string {
	for _, kv := range c.Options {
		if strings.EqualFold(kv[0], key) {
			return kv[1]
		}
	}
	return ""
}

// Connector is the table's connector ('connector', or the legacy 'connector.type').
func (c *CreateTable) Connector() string {
	return cmp.Or(c.Option("connector"), c.Option("connector.type"))
}

// Topic is the Kafka topic ('topic', or the legacy 'connector.topic').
func (c *CreateTable) Topic() string {
	return cmp.Or(c.Option("topic"), c.Option("connector.topic"))
}

// CreateDatabaseAs is Alibaba's CREATE DATABASE name AS DATABASE source INCLUDING
// { ALL TABLES | TABLE 'a|b' } [EXCLUDING TABLE 'c'] (CDAS): a copy of each table.
type CreateDatabaseAs struct {
	Pos
	Name, Source Name
	// Including is the INCLUDING TABLE pattern, "" for ALL TABLES; Excluding the
	// EXCLUDING TABLE pattern. Both are '|'-separated names or regular expressions.
	Including, Excluding string
}

// selectStar is SELECT * FROM name.
func selectStar(pos Pos, name Name) *Query {
	return &Query{Pos: pos, Body: &Select{Pos: pos, Items: []SelectItem{{Pos: pos, Star: true}},
		From: &TableRef{Pos: pos, Name: name}}}
}

// ColumnDef is one column of CREATE TABLE: physical, computed (name AS expr) or metadata.
type ColumnDef struct {
	Pos
	Name     string
	Type     *Type // nil for computed columns and CTAS's name-only columns
	Computed *Expr
	Metadata bool
	MetaKey  string // METADATA FROM 'key' ("" when the column's name is the key)
	Virtual  bool   // METADATA ... VIRTUAL: read-only
}

// CreateView is CREATE [TEMPORARY] VIEW name [(columns)] AS query.
type CreateView struct {
	Pos
	Name    Name
	Columns []string
	Query   *Query
}

// Insert is INSERT INTO|OVERWRITE table [PARTITION (...)] [(columns)] query.
type Insert struct {
	Pos
	Table   Name
	Columns []string
	Static  []string // columns given a constant by a static PARTITION clause
	Query   *Query
}

func (p Pos) position() Pos { return p }

// Type is a data type: its name, parameters, nullability and nested types.
type Type struct {
	Name   string      // upper case: ROW, ARRAY, MAP, MULTISET, INT, STRING, ...
	Params []string    // DECIMAL(10, 2): 10, 2; VARCHAR(20): 20
	Fields []TypeField // ROW
	Elem   *Type       // ARRAY, MULTISET; MAP value
	Key    *Type       // MAP key
	// NotNull is NOT NULL; LocalTZ is WITH LOCAL TIME ZONE (TIMESTAMP_LTZ written long).
	NotNull, LocalTZ bool
	Pos
}

// TypeField is a field of a ROW type.
type TypeField struct {
	Pos
	Name string
	Type *Type
}

// String writes the type as Flink SQL does, for messages.
func (t *Type) String() string {
	var b strings.Builder
	b.WriteString(t.Name)
	switch {
	case t.Name == "ROW":
		b.WriteByte('<')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name + " " + f.Type.String())
		}
		b.WriteByte('>')
	case t.Name == "MAP" && t.Key != nil && t.Elem != nil:
		b.WriteString("<" + t.Key.String() + ", " + t.Elem.String() + ">")
	case t.Elem != nil:
		b.WriteString("<" + t.Elem.String() + ">")
	case len(t.Params) > 0:
		b.WriteString("(" + strings.Join(t.Params, ", ") + ")")
	}
	if t.LocalTZ {
		b.WriteString(" WITH LOCAL TIME ZONE")
	}
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
	return b.String()
}

// Query is [WITH ...] body [ORDER BY ...] [LIMIT/OFFSET/FETCH].
type Query struct {
	Pos
	With    []CTE
	Body    QueryBody
	OrderBy []*Expr
}

// CTE is one WITH item.
type CTE struct {
	Name    string
	Columns []string
	Query   *Query
}

// QueryBody is *Select, *SetOp, *Values or *Query (parenthesised).
type QueryBody interface{ body() }

// Select is one SELECT block.
type Select struct {
	Pos
	Distinct bool
	Items    []SelectItem
	From     TableExpr // nil without FROM
	Where    *Expr
	GroupBy  []*Expr
	Having   *Expr
	Windows  map[string]*WindowSpec // WINDOW w AS (...)
	Qualify  *Expr
}

// SelectItem is expr [AS alias], * or qualifier.*.
type SelectItem struct {
	Pos
	Expr      *Expr
	Alias     string
	Star      bool
	Qualifier []string // for qualifier.*
}

// SetOp is UNION [ALL] | INTERSECT | EXCEPT | MINUS.
type SetOp struct {
	Op          string
	Left, Right QueryBody
}

// Values is VALUES (row), (row).
type Values struct{ Rows [][]*Expr }

func (*Select) body() {}
func (*SetOp) body()  {}
func (*Values) body() {}
func (*Query) body()  {}

// TableExpr is a relation in FROM: *TableRef, *Derived, *TableFunc, *Unnest, *Join or
// *Match.
type TableExpr interface{ table() }

// Alias is a relation alias with optional column aliases: AS t(a, b).
type Alias struct {
	Name    string
	Columns []string
}

// TableRef is a named table or view, optionally FOR SYSTEM_TIME AS OF expr.
type TableRef struct {
	Pos
	Name Name
	AsOf *Expr
	Alias
}

// Derived is (query) AS alias, optionally LATERAL.
type Derived struct {
	Pos
	Query *Query
	Alias
}

// TableFunc is [LATERAL] TABLE(fn(args)): window TVFs (TUMBLE, HOP, CUMULATE,
// SESSION) and user table functions.
type TableFunc struct {
	Pos
	Call *Expr
	Alias
}

// Unnest is UNNEST(expr, ...) [WITH ORDINALITY] AS alias(columns).
type Unnest struct {
	Pos
	Args       []*Expr
	Ordinality bool
	Alias
}

// Join is left JOIN right ON cond | USING (columns); Kind is INNER, LEFT, RIGHT, FULL,
// CROSS or "," (a comma).
type Join struct {
	Kind        string
	Left, Right TableExpr
	On          *Expr
	Using       []string
}

// Match is input MATCH_RECOGNIZE (...) [AS alias].
type Match struct {
	Pos
	Input     TableExpr
	Partition []*Expr
	OrderBy   []*Expr
	Measures  []SelectItem
	AllRows   bool
	Define    []Define
	Alias
}

// Define is one DEFINE variable AS condition of MATCH_RECOGNIZE.
type Define struct {
	Var  string
	Cond *Expr
}

func (*TableRef) table()  {}
func (*Derived) table()   {}
func (*TableFunc) table() {}
func (*Unnest) table()    {}
func (*Join) table()      {}
func (*Match) table()     {}

// ExprKind is the kind of an expression node.
type ExprKind int

// The kinds of expression node.
const (
	ERef        ExprKind = iota // column reference: Parts = a.b.c (quoted or not)
	ELit                        // literal, keyword argument or niladic function: reads nothing
	ECall                       // function or operator: Name, Args
	EStar                       // * (COUNT(*))
	ESubquery                   // (SELECT ...), EXISTS (...), IN (...): Query
	EField                      // Args[0].Parts...
	EIndex                      // Args[0][Args[1]]
	ETable                      // TABLE name | TABLE (query) argument of a table function
	EDescriptor                 // DESCRIPTOR(a, b): Args are ERef
	ECase                       // CASE: Args are operand?, conditions and results
)

// Expr is an expression node. Only what lineage needs is kept: which columns flow in
// (Args), which only steer (Over, Filter goes into Args), and nested queries.
type Expr struct {
	Pos
	Kind  ExprKind
	Parts []string // ERef, EField
	Name  string   // ECall: function name or operator, upper case
	Args  []*Expr
	Over  *WindowSpec // ECall ... OVER (...)
	Query *Query      // ESubquery
	Table TableExpr   // ETable
	// Partition holds PARTITION BY of a TABLE argument (SESSION windows).
	Partition []*Expr
}

// WindowSpec is an OVER clause: a named window or PARTITION BY / ORDER BY.
type WindowSpec struct {
	Ref       string
	Partition []*Expr
	OrderBy   []*Expr
}
