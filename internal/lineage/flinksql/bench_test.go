package flinksql

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// corpusLines returns at least n lines of realistic SQL: the corpus scripts repeated,
// each copy's tables renamed so that every copy declares its own.
func corpusLines(tb testing.TB, n int) string {
	files, _ := filepath.Glob("testdata/corpus/*.sql")
	var b strings.Builder
	lines := 0
	for copyN := 0; lines < n; copyN++ {
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(src)
			b.WriteString("\n")
			lines += strings.Count(string(src), "\n") + 1
		}
	}
	return b.String()
}

func BenchmarkParseResolve10kLines(b *testing.B) {
	src := corpusLines(b, 10_000)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		res := Analyze([2]string{"bench.sql", src})
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors[0])
		}
	}
}

// TestTenThousandLines checks that a 10,000-line script parses and resolves whole; its
// speed (under 1 s) is measured by BenchmarkParseResolve10kLines, not by a clock here.
func TestTenThousandLines(t *testing.T) {
	src := corpusLines(t, 10_000)
	res := Analyze([2]string{"big.sql", src})
	if len(res.Errors) > 0 || len(res.Statements) < 300 {
		t.Fatalf("%d statements, errors %v", len(res.Statements), res.Errors)
	}
}

// hostile are 1 MB inputs meant to hurt a parser; each must finish in time, and those
// that are not valid SQL must say where.
func hostile() map[string]string {
	const mb = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, mb/len(s)+1) }
	return map[string]string{
		"deep parentheses":   "INSERT INTO t SELECT " + rep("("),
		"deep subqueries":    "INSERT INTO t " + rep("SELECT * FROM ("),
		"deep NOT":           "INSERT INTO t SELECT a FROM s WHERE " + rep("NOT "),
		"deep unary minus":   "INSERT INTO t SELECT " + rep("- ") + "1 FROM s",
		"long sum":           "INSERT INTO t SELECT a" + rep(" + a") + " FROM s",
		"long AND chain":     "INSERT INTO t SELECT a FROM s WHERE a = 1" + rep(" AND a = 1"),
		"many columns":       "INSERT INTO t SELECT a" + rep(", a") + " FROM s",
		"many joins":         "INSERT INTO t SELECT a FROM s" + rep(" JOIN s ON a = a"),
		"unclosed string":    "INSERT INTO t SELECT '" + rep("x"),
		"unclosed comment":   "/*" + rep("x"),
		"many semicolons":    rep(";"),
		"garbage":            rep("@#! ) ] } ,"),
		"many statements":    rep("INSERT INTO t SELECT a FROM s;\n"),
		"views of views":     viewChain(2000),
		"CASE chain":         "INSERT INTO t SELECT " + rep("CASE WHEN a THEN ") + "1 FROM s",
		"deep ROW type":      "CREATE TABLE t (a " + rep("ROW<b ") + ");",
		"long identifier":    "INSERT INTO t SELECT " + rep("a") + " FROM s",
		"one long line of ,": "INSERT INTO t SELECT f(" + rep("a,") + "a) FROM s",
	}
}

// viewChain declares n views, each selecting twice from the previous one.
func viewChain(n int) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE v0 (a INT, b INT) WITH ('connector' = 'kafka');\n")
	for i := 1; i <= n; i++ {
		b.WriteString("CREATE VIEW v" + itoa(i) + " AS SELECT x.a, y.b FROM v" + itoa(i-1) + " x JOIN v" + itoa(i-1) + " y ON x.a = y.a;\n")
	}
	b.WriteString("INSERT INTO t SELECT a, b FROM v" + itoa(n) + ";\n")
	return b.String()
}

func itoa(i int) string {
	const d = "0123456789"
	if i < 10 {
		return d[i : i+1]
	}
	return itoa(i/10) + d[i%10:i%10+1]
}

// valid are the hostile inputs that are valid SQL (and yield no error).
var valid = map[string]bool{"long sum": true, "long AND chain": true, "many columns": true,
	"many statements": true, "views of views": true, "long identifier": true,
	"one long line of ,": true, "many semicolons": true}

func TestHostileInputs(t *testing.T) {
	for name, src := range hostile() {
		start := time.Now()
		res := Analyze([2]string{"hostile.sql", src})
		took := time.Since(start) // logged; the budget is BenchmarkHostileInputs's
		for _, e := range res.Errors {
			if e.Line < 1 || e.Column < 1 || e.File != "hostile.sql" {
				t.Errorf("%s: error without a location: %v", name, e)
			}
		}
		msg := ""
		if len(res.Errors) > 0 {
			msg = res.Errors[0].Error()
		} else if !valid[name] {
			t.Errorf("%s: no error", name)
		}
		t.Logf("%-18s %4d KB %8v  %d statements, %d errors  %.90s", name, len(src)>>10, took.Round(time.Millisecond), len(res.Statements), len(res.Errors), msg)
	}
}

// BenchmarkHostileInputs times each 1 MiB hostile input (target: under 5 s each;
// docs/performance.md).
func BenchmarkHostileInputs(b *testing.B) {
	inputs := hostile()
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				Analyze([2]string{"hostile.sql", inputs[name]})
			}
		})
	}
}
