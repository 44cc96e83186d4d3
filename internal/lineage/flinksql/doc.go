// Package flinksql parses Flink SQL scripts and resolves, per INSERT, which source
// columns flow into which sink columns (column lineage) and which source columns the
// statement reads at all. It is pure: text in, data out.
//
// No Go SQL parser understands Flink's dialect (vitess and TiDB parse MySQL, CockroachDB
// PostgreSQL; none knows window table functions, FOR SYSTEM_TIME AS OF,
// MATCH_RECOGNIZE or statement sets), so this is a small recursive-descent parser
// that keeps only what lineage needs. The grammar it reads, after Flink's SQL
// reference (queries, CREATE, INSERT):
//
//	script     = { statement ";" }                   -- "--" and /* */ comments, hints dropped;
//	                                                 -- a statement word starting a line also
//	                                                 -- ends the statement before it
//	statement  = create_table | create_view | insert | WITH cte {, cte} insert
//	           | REPLACE TABLE ... (as create_table) | create_database_as
//	           | ( EXECUTE STATEMENT SET BEGIN | BEGIN STATEMENT SET ) | END
//	           | COMPILE [AND EXECUTE] PLAN s [IF NOT EXISTS] FOR ( insert | STATEMENT SET BEGIN )
//	           | EXECUTE PLAN s
//	           | other up to ";"     -- read by its leading words (statements.go): SET, RESET,
//	                                 -- USE, ADD|REMOVE JAR, LOAD|UNLOAD MODULE, SHOW, DESCRIBE,
//	                                 -- EXPLAIN, DROP|ALTER object, ANALYZE|TRUNCATE TABLE,
//	                                 -- CALL, UPDATE, DELETE FROM, STOP JOB, a bare query, ...;
//	                                 -- any other first word is a located error
//	create_table = CREATE [OR (REPLACE | ALTER)] [TEMPORARY] [EXTERNAL | MATERIALIZED] TABLE
//	             [IF NOT EXISTS] name [ "(" element { "," element } ")" ] [COMMENT s]
//	             [PARTITIONED BY (...)] [DISTRIBUTED (BY ... | INTO n BUCKETS)]
//	             [WITH "(" 'k' = 'v' {, ...} ")"] [LIKE name [(...)]]
//	             [FRESHNESS = e] [REFRESH_MODE = word] [AS (query | TABLE name ...)]
//	create_database_as = CREATE DATABASE [IF NOT EXISTS] name [COMMENT s] [WITH (...)]
//	             AS DATABASE name INCLUDING (ALL TABLES | TABLE s) [EXCLUDING TABLE s]
//	element    = column type [METADATA [FROM s] [VIRTUAL]] [NOT NULL] [PRIMARY KEY ...] [COMMENT s]
//	           | column AS expr [COMMENT s]          -- computed column
//	           | column                              -- CTAS: orders the query's columns
//	           | WATERMARK FOR column AS expr | [CONSTRAINT n] PRIMARY KEY (...) NOT ENFORCED
//	type       = ROW<f type, ...> | ROW(f type, ...) | ARRAY<type> | MAP<type, type>
//	           | MULTISET<type> | word ["(" n {, n} ")"] [WITH|WITHOUT [LOCAL] TIME ZONE] [NOT NULL]
//	create_view = CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name ["(" cols ")"] [COMMENT s] AS query
//	insert     = [EXECUTE] INSERT (INTO | OVERWRITE) [TABLE] name [PARTITION "(" k [= v], ... ")"]
//	             ["(" cols ")"] query
//	query      = [WITH cte {, cte}] set_expr [ORDER BY ...] [LIMIT n] [OFFSET n] [FETCH ...]
//	set_expr   = term { (UNION | INTERSECT | EXCEPT | MINUS) [ALL | DISTINCT] term }
//	term       = select | VALUES row {, row} | "(" query ")"
//	select     = SELECT [DISTINCT | ALL] item {, item} [FROM from] [WHERE e]
//	             [GROUP BY [GROUPING SETS] e {, e}] [HAVING e] [WINDOW w AS spec {, ...}] [QUALIFY e]
//	item       = * | qualifier.* | e [[AS] alias]
//	from       = joined { "," joined }
//	joined     = primary { [NATURAL] [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER] | CROSS]
//	             JOIN primary [ON e | USING (cols)] }
//	primary    = ( name [FOR SYSTEM_TIME AS OF e] | [LATERAL] "(" query ")" | "(" from ")"
//	             | [LATERAL] TABLE "(" call ")" | UNNEST "(" e {, e} ")" [WITH ORDINALITY] )
//	             [MATCH_RECOGNIZE "(" [PARTITION BY ...] [ORDER BY ...] [MEASURES e AS a, ...]
//	             [ONE ROW PER MATCH | ALL ROWS PER MATCH] [AFTER MATCH SKIP ...] PATTERN (...)
//	             [WITHIN e] [SUBSET ...] DEFINE v AS e, ... ")"] [[AS] alias ["(" cols ")"]]
//	e          = the usual precedence: OR, AND, NOT, comparisons, IS [NOT] ..., [NOT] BETWEEN,
//	             [NOT] IN, [NOT] LIKE | SIMILAR TO, ||, + -, * / %, unary, postfix (.field, [i]);
//	             primaries: literals, DATE/TIME/TIMESTAMP 'x', INTERVAL e unit [TO unit], CASE,
//	             (query), EXISTS (query), ROW(...) and (a, b), ARRAY[...], MAP[...], columns
//	             a.b.c, calls f(args) [WITHIN GROUP (ORDER BY ...)] [FILTER (WHERE e)] [OVER spec]
//	args       = operands separated by "," and by keywords: CAST(x AS type), EXTRACT(DAY FROM x),
//	             SUBSTRING(x FROM 1 FOR 2), TRIM(BOTH ' ' FROM x), POSITION(a IN b),
//	             JSON_VALUE(x, '$.a' RETURNING INT DEFAULT 0 ON EMPTY), JSON_OBJECT(KEY k VALUE v),
//	             named arguments (DATA => TABLE t), TABLE t [PARTITION BY ...], DESCRIPTOR(c), *
//
// Resolution (Analyzer): tables and views are declared in script order; views, CTEs and
// subqueries resolve to base tables; a computed column stands for the columns its
// expression uses (itself when none: PROCTIME()); metadata columns are columns of
// their table; nested ROW fields are dotted paths; UNNEST of an array of rows yields the
// rows' fields under the array's path; a window table function adds window_start,
// window_end and window_time, which carry its DESCRIPTOR column; MATCH_RECOGNIZE
// pattern variables qualify the input's columns. What cannot be attributed (a column
// no declared table has, SELECT * over a table that is not declared) is reported per
// statement in Unresolved, never guessed.
//
// Budgets: a script over MaxSize bytes is refused; nesting deeper than MaxDepth is a
// located error; a statement's resolution stops after a fixed number of steps.
package flinksql
