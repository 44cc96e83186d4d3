package flinksql

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites golden files: go test ./internal/lineage/flinksql -update
var update = flag.Bool("update", false, "rewrite golden files")

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.sql")
	if len(files) == 0 {
		t.Fatal("no golden scripts")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res := Analyze([2]string{filepath.Base(f), string(src)})
			got, _ := json.MarshalIndent(res, "", "  ")
			golden := strings.TrimSuffix(f, ".sql") + ".json"
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("golden file missing (go test ./internal/lineage/flinksql -update): %v", err)
			}
			if string(append(got, '\n')) != string(want) {
				t.Errorf("%s differs (rerun with -update if intended):\n%s", golden, got)
			}
		})
	}
}

func TestLocatedErrors(t *testing.T) {
	for _, tc := range []struct {
		src        string
		line, col  int
		msgContain string
	}{
		{"INSERT INTO t SELECT a FROM s WHERE (a = 1;", 1, 43, "expected"},
		{"SELECT 1;\nINSERT INTO t SELECT 'abc FROM s;", 2, 22, "never closed"},
		{"/* open comment\nINSERT INTO t SELECT 1;", 1, 1, "never closed"},
		{"INSERT INTO t SELECT " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + ";", 1, 0, "nesting deeper"},
		{"CREATE TABLE t (a INT,, b INT);", 1, 23, "expected a name"},
	} {
		s := Parse("x.sql", tc.src)
		if len(s.Errors) != 1 {
			t.Errorf("%q: want 1 error, got %v", tc.src, s.Errors)
			continue
		}
		e := s.Errors[0]
		if e.Line != tc.line || (tc.col != 0 && e.Column != tc.col) || !strings.Contains(e.Message, tc.msgContain) {
			t.Errorf("%q: got %v, want line %d col %d containing %q", tc.src, e, tc.line, tc.col, tc.msgContain)
		}
	}
}

func TestSkipsWhatIsNotLineage(t *testing.T) {
	src := `SET 'execution.checkpointing.interval' = '10s';
SET table.exec.state.ttl = 1h;
USE CATALOG hive; USE db1;
ADD JAR '/opt/udf.jar';
CREATE TEMPORARY FUNCTION my_udf AS 'com.example.MyUdf';
CREATE CATALOG paimon WITH ('type' = 'paimon');
DROP TABLE IF EXISTS x;
SELECT * FROM x;
EXPLAIN PLAN FOR SELECT 1;
BEGIN STATEMENT SET;
INSERT INTO a SELECT k FROM b;
END;`
	s := Parse("x.sql", src)
	if len(s.Errors) != 0 || len(s.Stmts) != 1 {
		t.Fatalf("want one INSERT and no error, got %d statements, errors %v", len(s.Stmts), s.Errors)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.sql")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Add("INSERT INTO t SELECT a.b[1].c, CAST(x AS ROW<a INT>) FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' MINUTE))")
	f.Fuzz(func(t *testing.T, src string) {
		res := Analyze([2]string{"f.sql", src})
		for _, e := range res.Errors {
			if e.Line < 1 || e.Column < 1 {
				t.Fatalf("error without a position: %v", e)
			}
		}
	})
}

// Scripts for tools that split statements themselves often have no semicolons.
func TestStatementsWithoutSemicolons(t *testing.T) {
	src := `SET 'pipeline.name' = 'x'
CREATE TABLE src (a INT, b STRING) WITH ('connector' = 'kafka', 'topic' = 't')
insert into sink1 select a from src

INSERT INTO sink2 SELECT b FROM src s
CREATE TABLE sink3 (b STRING) WITH ('connector' = 'print')
insert into sink3 select b from src`
	res := Analyze([2]string{"x.sql", src})
	if len(res.Errors) != 0 || len(res.Statements) != 3 || len(res.Tables) != 2 {
		t.Fatalf("want 2 tables and 3 INSERTs, got %d tables, %d statements, errors %v", len(res.Tables), len(res.Statements), res.Errors)
	}
	if got := res.Statements[2].Columns["b"]; len(got) != 1 || got[0] != "src.b" {
		t.Errorf("sink3.b <- %v", got)
	}
}

func TestTypes(t *testing.T) {
	src := "CREATE TABLE t (a CHARACTER VARYING(20), b DOUBLE PRECISION, c TIMESTAMP(3) WITHOUT TIME ZONE, " +
		"d INTERVAL DAY(2) TO SECOND(3), e INT ARRAY, f MAP<STRING, ARRAY<ROW<x INT NOT NULL 'the x'>>> NOT NULL, " +
		"g RAW('java.lang.String', 'AEZ'), h TIMESTAMP_LTZ(3), i DECIMAL(10, 2) NOT NULL COMMENT 'money') WITH ('connector' = 'print');"
	s := Parse("t.sql", src)
	if len(s.Errors) != 0 || len(s.Stmts) != 1 {
		t.Fatalf("errors %v", s.Errors)
	}
	ct := s.Stmts[0].(*CreateTable)
	if len(ct.Columns) != 9 {
		t.Fatalf("%d columns", len(ct.Columns))
	}
	if f := ct.Columns[5].Type; f.Name != "MAP" || f.Elem.Name != "ARRAY" || f.Elem.Elem.Fields[0].Name != "x" {
		t.Errorf("MAP type: %+v", f)
	}
}
