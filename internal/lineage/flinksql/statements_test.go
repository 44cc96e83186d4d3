package flinksql

import (
	"strings"
	"testing"
)

// Every statement of Flink's SQL reference (and of its SQL client, Hive dialect and
// Ververica's/Alibaba's platforms) parses without an error, whether or not it says
// anything about lineage.
func TestWholeDialectParses(t *testing.T) {
	src := `SET;
SET 'table.local-time-zone' = 'Europe/Berlin';
RESET 'table.planner';
RESET;
USE CATALOG my_catalog;
USE MODULES hive, core;
USE my_db;
ADD JAR '/opt/udfs/my-udf.jar';
REMOVE JAR '/opt/udfs/my-udf.jar';
SHOW JARS;
LOAD MODULE hive WITH ('hive-version' = '3.1.3');
UNLOAD MODULE hive;
SHOW CATALOGS; SHOW CURRENT CATALOG; SHOW DATABASES; SHOW CURRENT DATABASE;
SHOW TABLES FROM my_db LIKE '%orders%'; SHOW CREATE TABLE orders; SHOW COLUMNS FROM orders;
SHOW VIEWS; SHOW CREATE VIEW v; SHOW USER FUNCTIONS; SHOW FULL MODULES; SHOW JOBS;
SHOW PARTITIONS orders; SHOW PROCEDURES; SHOW MATERIALIZED TABLES; SHOW MODELS;
DESCRIBE orders; DESC EXTENDED orders; DESCRIBE JOB '228d70913eab60dda85c5e7f78b5782c';
EXPLAIN PLAN FOR SELECT * FROM orders;
EXPLAIN ESTIMATED_COST, CHANGELOG_MODE SELECT * FROM orders;
EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b; END;
CREATE CATALOG my_catalog WITH ('type' = 'generic_in_memory');
CREATE DATABASE IF NOT EXISTS my_db COMMENT 'mine' WITH ('k' = 'v');
CREATE DATABASE hive_db COMMENT 'hive' LOCATION '/warehouse/hive_db' WITH DBPROPERTIES ('owner' = 'dw');
CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS parse_ua AS 'com.example.ParseUa' LANGUAGE JAVA;
CREATE FUNCTION f AS 'com.example.F' USING JAR '/opt/f.jar';
CREATE MODEL sentiment INPUT (text STRING) OUTPUT (label STRING) WITH ('provider' = 'openai');
DROP TABLE IF EXISTS t; DROP TEMPORARY VIEW v; DROP CATALOG c; DROP DATABASE d CASCADE;
DROP TEMPORARY SYSTEM FUNCTION f; DROP MATERIALIZED TABLE IF EXISTS m; DROP MODEL m;
ALTER TABLE orders ADD (discount DOUBLE AFTER price);
ALTER TABLE orders SET ('scan.startup.mode' = 'latest-offset');
ALTER VIEW v RENAME TO v2; ALTER DATABASE d SET ('k' = 'v'); ALTER CATALOG c RESET ('k');
ALTER TEMPORARY SYSTEM FUNCTION f AS 'com.example.G';
ALTER MATERIALIZED TABLE m SUSPEND;
CREATE OR ALTER MATERIALIZED TABLE m2 AS SELECT k FROM b; ALTER MATERIALIZED TABLE m REFRESH PARTITION (ds = '2024-06-28');
ANALYZE TABLE orders COMPUTE STATISTICS FOR ALL COLUMNS;
TRUNCATE TABLE orders;
CALL my_catalog.sys.compact('db.orders');
UPDATE orders SET price = 0 WHERE order_id = 1;
DELETE FROM orders WHERE price < 0;
STOP JOB '228d70913eab60dda85c5e7f78b5782c' WITH SAVEPOINT;
SELECT 1;
VALUES (1), (2);
WITH t AS (SELECT 1 AS a) SELECT a FROM t;
(SELECT 1) UNION ALL (SELECT 2);
BEGIN STATEMENT SET;
INSERT INTO a SELECT k FROM b;
END;
EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT k FROM b; END;
EXECUTE INSERT INTO a SELECT k FROM b;
HELP;
CLEAR;
QUIT;`
	s := Parse("dialect.sql", src)
	if len(s.Errors) != 0 {
		t.Fatalf("valid statements refused: %v", s.Errors)
	}
	if len(s.Stmts) != 4 {
		t.Errorf("want the 3 INSERTs and the materialized table, got %d statements", len(s.Stmts))
	}
}

// A statement the parser does not know is a located error naming what to write,
// never skipped silently; the statements around it are still read.
func TestUnknownStatementsAreErrors(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		contains  string
	}{
		{"INSRT INTO t SELECT a FROM s;", 1, 1, "did you mean INSERT?"},
		{"SELECT 1;\n  CREATE TABEL t (a INT);", 2, 10, "did you mean TABLE?"},
		{"CREATE VEIW v AS SELECT 1;", 1, 8, "did you mean VIEW?"},
		{"DROP TALBE t;", 1, 6, "did you mean TABLE?"},
		{"EXECUTE STATMENT SET BEGIN INSERT INTO a SELECT 1; END;", 1, 9, "did you mean STATEMENT?"},
		{"COMPILE PLAN 'f.json' FOR SELECT 1;", 1, 27, "expected INSERT or STATEMENT"},
		{"UPSERT INTO t SELECT 1;", 1, 1, "does not start a Flink SQL statement"},
		{"MERGE INTO t USING s ON t.a = s.a;", 1, 1, "does not start a Flink SQL statement"},
		{"LOAD MODUL hive;", 1, 6, "did you mean MODULE?"},
	} {
		s := Parse("x.sql", tc.src)
		if len(s.Errors) != 1 {
			t.Errorf("%q: want 1 error, got %v", tc.src, s.Errors)
			continue
		}
		e := s.Errors[0]
		if e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.Message, tc.contains) {
			t.Errorf("%q: got %v, want %d:%d containing %q", tc.src, e, tc.line, tc.col, tc.contains)
		}
	}
	// the typo is reported and the next statement still read
	res := Analyze([2]string{"x.sql", "INSRT INTO a SELECT k FROM b;\nINSERT INTO a SELECT k FROM b;"})
	if len(res.Errors) != 1 || len(res.Statements) != 1 {
		t.Errorf("want 1 error and 1 statement, got %v and %d", res.Errors, len(res.Statements))
	}
}
